// libs/webhooks: signed, at-least-once webhook delivery with a transactional outbox (docs/webhooks.md).
export { WebhookEndpointsRoutes } from './http/webhook-endpoints.routes';
export { serviceSignature, standardSignature, standardWebhooksKey } from './security/signature';
export { type EndpointStatsView, WebhookDeliveriesService } from './webhook-deliveries.service';
export { WebhookEmitter } from './webhook-emitter';
export {
  type CreateEndpointInput,
  type DeletedView,
  type EndpointListInput,
  type EndpointWriteOptions,
  MAX_METADATA_KEYS,
  type UpdateEndpointInput,
  WebhookEndpointsService,
} from './webhook-endpoints.service';
export { WebhooksConfig } from './webhooks.config';
export { WEBHOOKS_ERRORS, type WebhooksErrorCode } from './webhooks.errors';
export { WebhooksModule, type WebhooksModuleOptions } from './webhooks.module';
export * from './webhooks.types';
export { WebhookEventsRoutes } from './http/webhook-events.routes';
export { type EventView, type ListDialectEventsInput, WebhookEventsService } from './webhook-events.service';
export type { EventRecord } from './webhook-events.repository';
export { eventKind, type WebhookEventKind, type WebhookEventTypeView } from './event-types';
