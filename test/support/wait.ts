export interface WaitOptions {
  /** Give up after this long (a bound on a hang, not a timing assertion). Default 20 s. */
  readonly timeoutMs?: number;
  /** Poll this often. Default 100 ms. */
  readonly everyMs?: number;
  /** Treat a probe that throws as "not yet" (e.g. a server still starting); the last error is in the timeout message. */
  readonly retryErrors?: boolean;
}

/**
 * Polls `probe` until it yields something other than `undefined` or `false` and returns it;
 * throws after the timeout, naming `what` and how long it waited. The third argument is
 * the timeout in ms or the options.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: number | WaitOptions = {},
): Promise<T> {
  const {
    timeoutMs = 20_000,
    everyMs = 100,
    retryErrors = false,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const started = Date.now();
  let lastError = '';
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      if (!retryErrors) throw err;
      lastError = `; last error: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (Date.now() - started >= timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
