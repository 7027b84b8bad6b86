/**
 * The webhook routes' answers (libs/webhooks, docs/webhooks.md), as the console reads them: aliases of
 * the generated clients' schemas (docs/clients.md). Both offers-api and payments-api serve these pages;
 * the types are payments-client's, and `Same` below fails the typecheck if offers-client's differ.
 */
import type { components as OffersComponents } from '../../../../clients/offers/schema';
import type { components } from '../../../../clients/payments/schema';

type Schemas = components['schemas'];
type OffersSchemas = OffersComponents['schemas'];

/** The endpoint, with `secret` only in the answers of create and rotate-secret. */
export type WebhookEndpoint = Schemas['WebhookEndpointDto'] & Partial<Pick<Schemas['WebhookEndpointWithSecretDto'], 'secret'>>;
export type WebhookAttempt = Schemas['WebhookAttemptDto'];
export type WebhookDelivery = Schemas['WebhookDeliveryDto'];
export type DeliveryStatus = WebhookDelivery['status'];
export type WebhookEventType = Schemas['WebhookEventTypeDto'];
export type WebhookRecovery = Schemas['WebhookRecoveryDto'];
export type WebhookEndpointStats = Schemas['WebhookEndpointStatsDto'];
export type StatsGranularity = WebhookEndpointStats['granularity'];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type WebhookSchemaNames =
  | 'WebhookEndpointDto'
  | 'WebhookEndpointWithSecretDto'
  | 'WebhookAttemptDto'
  | 'WebhookDeliveryDto'
  | 'WebhookEventTypeDto'
  | 'WebhookRecoveryDto'
  | 'WebhookEndpointStatsDto';
type Assert<T extends true> = T;
/** A compile error when offers-api's webhook schemas stop matching payments-api's (types only, nothing runs). */
export type WebhookSchemasMatch = Assert<Same<Pick<Schemas, WebhookSchemaNames>, Pick<OffersSchemas, WebhookSchemaNames>>>;

/** Where a console mounts the pages: the API's prefix and the console path. */
export interface WebhookPaths {
  readonly apiBase: '/api/v1' | '/v2';
  readonly pathBase: string;
}

export const endpointsApi = (p: WebhookPaths): string => `${p.apiBase}/webhook-endpoints`;
