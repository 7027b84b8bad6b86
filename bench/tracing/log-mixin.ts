/**
 * What tracing costs while it is off, per log line: the platform's pino mixin
 * (libs/platform/src/telemetry/log-correlation.ts, which adds `reqId` inside a request and
 * trace ids while tracing is on) against the same logger without it. Everything else tracing
 * adds is skipped by one flag check when off (docs/decisions.md 339-353).
 *
 *   node bench/ts-run.mjs bench/tracing/log-mixin.ts      [LINES=200000] [ROUNDS=5]
 */
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { logCorrelation, runWithRequestId } from '@app/platform';

const LINES = Number(process.env.LINES ?? 200_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** A destination that drops what it gets (the cost measured is building the line). */
const sink = (): Writable =>
  new Writable({
    write(_chunk, _enc, done) {
      done();
    },
  });

function logger(withMixin: boolean): Logger {
  return pino(
    {
      level: 'info',
      base: { service: 'bench' },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(withMixin ? { mixin: logCorrelation } : {}),
    },
    sink(),
  );
}

/** ns per line of `LINES` plain calls, inside a request (the mixin adds reqId) or not (it adds nothing). */
function measure(log: Logger, inRequest: boolean): number {
  const run = (): number => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < LINES; i++) log.info({ n: i }, 'a line');
    return Number(process.hrtime.bigint() - started) / LINES;
  };
  return inRequest ? runWithRequestId('req_0123456789abcdef01234567', run) : run();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const plain = logger(false);
const mixed = logger(true);
for (const inRequest of [false, true]) {
  measure(plain, inRequest);
  measure(mixed, inRequest); // warm-up
  const results: Array<{ plain: number; mixin: number }> = [];
  for (let r = 0; r < ROUNDS; r++) {
    // alternate the order, so drift of a shared machine falls on both
    if (r % 2 === 0) results.push({ plain: measure(plain, inRequest), mixin: measure(mixed, inRequest) });
    else {
      const mixin = measure(mixed, inRequest);
      results.push({ plain: measure(plain, inRequest), mixin });
    }
  }
  const p = median(results.map((x) => x.plain));
  const m = median(results.map((x) => x.mixin));
  process.stdout.write(
    `${inRequest ? 'inside a request (line gains reqId)' : 'outside a request (line unchanged)'}: ${LINES} lines × ${ROUNDS} rounds, ` +
      `median ns/line without mixin ${p.toFixed(0)}, with ${m.toFixed(0)} (+${(m - p).toFixed(0)} ns, ×${(m / p).toFixed(3)}); ` +
      `rounds ${results.map((x) => `${x.plain.toFixed(0)}/${x.mixin.toFixed(0)}`).join(', ')}\n`,
  );
}
