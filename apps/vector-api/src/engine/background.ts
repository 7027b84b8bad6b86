import { performance } from 'node:perf_hooks';

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
