import { Clock } from '@app/platform';

/** A Clock that stands still until a spec moves it. */
export class FakeClock extends Clock {
  private ms: number;

  constructor(start: Date | number | string = '2026-11-21T05:00:00.000Z') {
    super();
    this.ms = new Date(start).getTime();
  }

  override now(): Date {
    return new Date(this.ms);
  }

  set(at: Date | number): void {
    this.ms = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
