import { Clock } from '@app/platform';

/** A Clock that stands still until a spec moves it. */
export class FakeClock extends Clock {
  private ms: number;

  constructor(start: Date | number) {
    super();
    this.ms = typeof start === 'number' ? start : start.getTime();
  }

  override now(): Date {
    return new Date(this.ms);
  }

  set(at: Date | number): void {
    this.ms = typeof at === 'number' ? at : at.getTime();
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
