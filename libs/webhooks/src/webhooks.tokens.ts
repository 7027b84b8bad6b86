import { defineQueue, type QueueDefinition } from '@app/platform';
import type { WebhookDialect, WebhookOwnerType } from './webhooks.types';
import type { WebhookEventKind } from './event-types';

/** Injection token of the resolved `WebhooksModuleOptions`. */
export const WEBHOOKS_OPTIONS = Symbol('WEBHOOKS_OPTIONS');

export interface ResolvedWebhooksOptions {
  readonly ownerType: WebhookOwnerType;
  /** Event types the app emits; endpoint filters may only name these. */
  readonly eventTypes: readonly string[];
  /** The same kinds with their catalogue entries. */
  readonly eventKinds: readonly WebhookEventKind[];
  /** Run the outbox dispatcher, sweeps and the delivery worker in this process (ROLE≠api). */
  readonly runWorkers: boolean;
  /** The app's second wire dialect, if it speaks one. */
  readonly dialect: WebhookDialect | undefined;
}

/**
 * The payload of a delivery job: the delivery's id (also the job's id) and, when the
 * producer knows them, its endpoint and owner, so that the worker can apply the fair-share
 * limits without reading the database (a job without them reads its delivery first).
 */
export interface DeliveryJobData {
  readonly deliveryId: string;
  readonly endpointId?: string;
  readonly ownerId?: string;
}

export type DeliveryJobs = { readonly deliver: DeliveryJobData };

/**
 * The BullMQ queue of one owner type's deliveries (each app has its own). Finished jobs are
 * removed: the database is the record of what happened.
 */
export function deliveryQueue(ownerType: WebhookOwnerType): QueueDefinition<DeliveryJobs> {
  return defineQueue<DeliveryJobs>(`webhook-deliveries-${ownerType}`, {
    defaultJobOptions: {
      removeOnComplete: true,
      removeOnFail: true,
      // only for unexpected processor errors (database down); HTTP failures are
      // rescheduled by the processor on the contract's schedule
      attempts: 5,
      backoff: { type: 'exponential', delay: 1_000 },
    },
  });
}
