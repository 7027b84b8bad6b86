import { AsyncLocalStorage } from 'node:async_hooks';
import { randomPoolBytes } from '../ids';
import type { RateLimitName } from '../metrics/metrics.service';

/** `req_` + 24 hex characters; the value of the `Request-Id` header and of `request_id`. */
export function newRequestId(): string {
  return `req_${randomPoolBytes(12).toString('hex')}`;
}

interface RequestContext {
  readonly requestId: string;
  /** The limit that refused this request (noteRateLimit), read when its 429 is counted. */
  rateLimit?: RateLimitName;
}

const storage = new AsyncLocalStorage<RequestContext>();
/** The context of each request by its raw request (the onResponse hook reads it outside the request's async scope). */
const byRequest = new WeakMap<object, RequestContext>();

/** Runs `fn` with `requestId` visible to every log line written during it; `carrier` (the raw request) finds the context again later. */
export function runWithRequestId<T>(requestId: string, fn: () => T, carrier?: object): T {
  const context: RequestContext = { requestId };
  if (carrier !== undefined) byRequest.set(carrier, context);
  return storage.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * Names the limit about to refuse the current request with 429, for
 * `rate_limit_refusals_total{limit}` (counted once, when the response is sent). Outside a
 * request it does nothing.
 */
export function noteRateLimit(limit: RateLimitName): void {
  const context = storage.getStore();
  if (context) context.rateLimit = limit;
}

/** The limit noted for the request of `carrier`, if any. */
export function notedRateLimit(carrier: object): RateLimitName | undefined {
  return byRequest.get(carrier)?.rateLimit;
}
