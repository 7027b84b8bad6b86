import { defineQueue } from '@app/platform';
import type { OfferRecord } from '../offers/offer.types';

export enum LifecycleJob {
  Open = 'open',
  ClosingSoon = 'closing_soon',
  Close = 'close',
  Sweep = 'sweep',
}

export interface TransitionJobData {
  readonly offerId: string;
}

export type LifecycleJobData = {
  readonly [LifecycleJob.Open]: TransitionJobData;
  readonly [LifecycleJob.ClosingSoon]: TransitionJobData;
  readonly [LifecycleJob.Close]: TransitionJobData;
  readonly [LifecycleJob.Sweep]: Record<string, never>;
};

/** The offers lifecycle queue and its jobs (typed payloads, immich-style). */
export const LIFECYCLE_QUEUE = defineQueue<LifecycleJobData>('offers-lifecycle');

export type TransitionJob = LifecycleJob.Open | LifecycleJob.ClosingSoon | LifecycleJob.Close;

/** offer.closing_soon is due this long before closes_at (offers-distribution.md "Limits"). */
export const CLOSING_SOON_MS = 60 * 60 * 1000;
/**
 * Lifecycle jobs one worker process runs at once: one offer whose transition waits (a row
 * lock, a slow statement) must not hold up every other offer's. Transitions are conditional
 * updates, so running them side by side is safe.
 */
export const LIFECYCLE_CONCURRENCY = 8;
/** How often the repair sweep runs. */
export const SWEEP_INTERVAL_MS = 60_000;
export const SWEEP_SCHEDULER_ID = 'offers-lifecycle-sweep';

export interface PlannedJob {
  readonly name: TransitionJob;
  readonly offerId: string;
  readonly at: Date;
  /** offer id + transition + scheduled time: a re-enqueue of the same plan is a no-op, a new time is a new job. BullMQ ids may not contain ':'. */
  readonly jobId: string;
}

/** When closing_soon is due: an hour before close, but never before the offer opens. */
export function closingSoonAt(offer: Pick<OfferRecord, 'opensAt' | 'closesAt'>): Date {
  return new Date(Math.max(offer.opensAt.getTime(), offer.closesAt.getTime() - CLOSING_SOON_MS));
}

/** The transitions still ahead of an offer, each with the time it is due. */
export function plannedJobs(offer: OfferRecord): PlannedJob[] {
  if (offer.status === 'closed') return [];
  const plan: Array<[TransitionJob, Date]> = [];
  if (offer.status === 'upcoming') plan.push([LifecycleJob.Open, offer.opensAt]);
  if (offer.closingSoonNotifiedAt === null) plan.push([LifecycleJob.ClosingSoon, closingSoonAt(offer)]);
  plan.push([LifecycleJob.Close, offer.closesAt]);
  return plan.map(([name, at]) => ({ name, offerId: offer.id, at, jobId: `${offer.id}.${name}.${at.getTime()}` }));
}
