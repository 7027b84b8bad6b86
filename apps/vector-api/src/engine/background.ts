import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';

/**
 * Runs a self-contained function (no imports, no outer references) in a worker thread from
 * its source text. Using `eval` workers avoids resolving a separate worker file, which
 * differs between the compiled service (dist/, CommonJS) and Jest (TypeScript as ESM).
 * Typed-array buffers in `transfer` are moved, not copied; results come back the same way.
 * Aborting `signal` terminates the thread (a table deleted or the service stopping).
 */
export function runInWorker<R>(
  fn: (...args: never[]) => R,
  args: readonly unknown[],
  transfer: readonly ArrayBuffer[] = [],
  signal?: AbortSignal,
): Promise<R> {
  const source = `
const { parentPort, workerData } = require('node:worker_threads');
const fn = (${fn.toString()});
const result = fn(...workerData);
const transfer = [];
for (const v of Object.values(result)) if (ArrayBuffer.isView(v)) transfer.push(v.buffer);
parentPort.postMessage(result, transfer);
`;
  return new Promise<R>((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: args, transferList: [...transfer] });
    let settled = false;
    worker.once('message', (result: R) => {
      settled = true;
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`worker exited with code ${code}`));
    });
    signal?.addEventListener(
      'abort',
      () => {
        if (settled) return;
        settled = true;
        reject(new Error('worker aborted'));
        void worker.terminate();
      },
      { once: true },
    );
  });
}

/** Yields to the event loop (lets pending I/O and queries run between chunks of work). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Long work written as a generator that yields at checkpoints (each well under a
 * millisecond apart), or yields a promise to wait for (its value is sent back into the
 * generator). `runSliced` gives the event loop a
 * turn whenever `sliceMs` of work has run since the last one, so requests of other callers
 * are answered meanwhile instead of waiting for the whole of it.
 */
export type Steps<T> = Generator<void | Promise<unknown>, T, unknown>;

/** Runs steps that never wait (yielding a promise there is a programming error). */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (r.value instanceof Promise) throw new Error('these steps wait for a promise: run them with runSliced');
  }
}

export async function runSliced<T>(steps: Steps<T>, sliceMs: number): Promise<T> {
  let sliceEnd = performance.now() + sliceMs;
  let sent: unknown;
  for (;;) {
    const r = steps.next(sent);
    sent = undefined;
    if (r.done) return r.value;
    if (r.value instanceof Promise) {
      sent = await r.value;
      sliceEnd = performance.now() + sliceMs;
    } else if (performance.now() >= sliceEnd) {
      await yieldToEventLoop();
      sliceEnd = performance.now() + sliceMs;
    }
  }
}
