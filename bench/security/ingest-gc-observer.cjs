// Preloaded into a benchmarked service (NODE_OPTIONS="--require <this file>", with
// INGEST_GC_LOG=<file>): appends one line per garbage collection of the main thread,
// "<epoch ms at its start> <duration ms> <kind>", so a benchmark can report the longest GC
// pause of each of its phases. Worker threads are not recorded (their pauses do not hold
// the event loop that serves requests). With INGEST_CPU_PROF=<file> it also records a V8
// CPU profile of the main thread (NODE_OPTIONS refuses --cpu-prof), written on SIGUSR2.
const { isMainThread } = require('node:worker_threads');
const { appendFileSync } = require('node:fs');
const { PerformanceObserver, constants, performance } = require('node:perf_hooks');

const file = process.env.INGEST_GC_LOG;
if (file && isMainThread) {
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let lines = [];
  const flush = () => {
    if (lines.length === 0) return;
    appendFileSync(file, lines.join(''));
    lines = [];
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = kinds[e.detail?.kind ?? e.kind] ?? 'other';
      lines.push(`${(performance.timeOrigin + e.startTime).toFixed(1)} ${e.duration.toFixed(2)} ${kind}\n`);
    }
  }).observe({ entryTypes: ['gc'] });
  setInterval(flush, 250).unref();
  process.on('exit', flush);
}

const profile = process.env.INGEST_CPU_PROF;
if (profile && isMainThread) {
  const { Session } = require('node:inspector');
  const { writeFileSync } = require('node:fs');
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  process.on('SIGUSR2', () => {
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(profile, JSON.stringify(result.profile));
    });
  });
}
