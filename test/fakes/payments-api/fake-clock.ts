import type { Clock } from '@app/platform';
import type { PublicOf } from './fake-of';

/** A clock that moves only when told. */
export class FakeClock implements PublicOf<Clock> {
  private current: number;

  constructor(start: Date | string = '2026-11-21T05:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  nowMs(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
