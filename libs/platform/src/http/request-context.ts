import { AsyncLocalStorage } from 'node:async_hooks';
import { randomPoolBytes } from '../ids';

/** `req_` + 24 hex characters; the value of the `Request-Id` header and of `request_id`. */
export function newRequestId(): string {
  return `req_${randomPoolBytes(12).toString('hex')}`;
}

interface RequestContext {
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `requestId` visible to every log line written during it. */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
