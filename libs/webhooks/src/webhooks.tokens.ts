import type { WebhookOwnerType } from './webhooks.types';

/** Injection token of the resolved `WebhooksModuleOptions`. */
export const WEBHOOKS_OPTIONS = Symbol('WEBHOOKS_OPTIONS');

export interface ResolvedWebhooksOptions {
  readonly ownerType: WebhookOwnerType;
  /** Event types the app emits; endpoint filters may only name these. */
  readonly eventTypes: readonly string[];
  /** Run the outbox dispatcher, sweeps and the delivery worker in this process (ROLE≠api). */
  readonly runWorkers: boolean;
}

/** BullMQ queue of one owner type's deliveries (each app has its own). */
export function deliveryQueueName(ownerType: WebhookOwnerType): string {
  return `webhook-deliveries-${ownerType}`;
}

export interface DeliveryJobData {
  readonly deliveryId: string;
}
