import { defineQueue } from '@app/platform';

export enum AuthorizationJob {
  Expire = 'expire',
  Sweep = 'sweep',
}

export interface ExpireJobData {
  readonly paymentId: string;
}

export type AuthorizationJobData = {
  readonly [AuthorizationJob.Expire]: ExpireJobData;
  readonly [AuthorizationJob.Sweep]: Record<string, never>;
};

/** The expiry of uncaptured authorizations (platform contract: Payments, more). */
export const AUTHORIZATION_QUEUE = defineQueue<AuthorizationJobData>('payments-authorizations');

/** How often the repair sweep runs: an authorization whose job was lost is canceled at most this late. */
export const AUTHORIZATION_SWEEP_INTERVAL_MS = 60_000;
export const AUTHORIZATION_SWEEP_SCHEDULER_ID = 'payments-authorizations-sweep';
/** Expiries one worker process runs at once (each is one conditional UPDATE: safe side by side). */
export const AUTHORIZATION_CONCURRENCY = 4;

/**
 * payment id + capture_before: re-enqueueing the same expiry is a no-op (BullMQ keeps one job
 * per id). BullMQ ids may not contain ':'.
 */
export function expireJobId(paymentId: string, captureBefore: Date): string {
  return `${paymentId}.expire.${captureBefore.getTime()}`;
}
