import { Clock } from '@app/platform';
import { LATENCY_WINDOW_MINUTES, QueryLatency } from './query-latency';

class FixedClock extends Clock {
  constructor(public ms: number) {
    super();
  }
  override now(): Date {
    return new Date(this.ms);
  }
}

const T0 = Date.UTC(2026, 10, 26, 1, 0, 0);
const MINUTE = 60_000;

describe('QueryLatency', () => {
  it('keeps per-minute p50, p95, max and counts per table, oldest first', () => {
    const clock = new FixedClock(T0 + 5_000);
    const latency = new QueryLatency(clock);
    for (let i = 1; i <= 100; i++) latency.record('t1', i / 10);
    latency.record('t2', 7);
    clock.ms = T0 + MINUTE + 1;
    latency.record('t1', 2);
    expect(latency.recent('t1')).toEqual([
      { start: T0, queries: 100, p50: 5, p95: 9.5, max: 10 },
      { start: T0 + MINUTE, queries: 1, p50: 2, p95: 2, max: 2 },
    ]);
    expect(latency.recent('t2')).toEqual([{ start: T0, queries: 1, p50: 7, p95: 7, max: 7 }]);
    expect(latency.recent('nothing')).toEqual([]);
  });

  it('bounds the samples of a minute but counts every query and its maximum', () => {
    const latency = new QueryLatency(new FixedClock(T0));
    for (let i = 0; i < 5000; i++) latency.record('t', i === 4321 ? 100 : 1);
    const [bucket] = latency.recent('t');
    expect(bucket).toMatchObject({ queries: 5000, max: 100, p50: 1 });
  });

  it('forgets minutes older than the window, tables without queries in it, and deleted tables', () => {
    const clock = new FixedClock(T0);
    const latency = new QueryLatency(clock);
    latency.record('old', 1);
    latency.record('gone', 1);
    latency.forget('gone');
    expect(latency.recent('gone')).toEqual([]);
    clock.ms = T0 + (LATENCY_WINDOW_MINUTES - 1) * MINUTE;
    expect(latency.recent('old')).toHaveLength(1);
    clock.ms = T0 + LATENCY_WINDOW_MINUTES * MINUTE;
    expect(latency.recent('old')).toEqual([]);
    latency.record('other', 3);
    expect(latency.recent('old')).toEqual([]);
    expect(latency.recent('other')).toHaveLength(1);
  });
});
