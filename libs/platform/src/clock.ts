import { Injectable } from '@nestjs/common';

/**
 * The time source of every rule that depends on "now" (token expiry, offer lifecycle,
 * retention). Tests replace it (`jest.spyOn(app.get(Clock), 'now')`) instead of faking
 * timers globally.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }

  nowMs(): number {
    return this.now().getTime();
  }
}
