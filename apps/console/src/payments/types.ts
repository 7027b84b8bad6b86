/**
 * The payments-api objects the dashboard reads (docs/payments.md; amounts in minor units): aliases of
 * the generated client's schemas (`clients/payments/schema.d.ts`, docs/clients.md), so the console's
 * typecheck fails when the API changes.
 */
import type { components } from '../../../../clients/payments/schema';

import { membersOf } from '../members';

type Schemas = components['schemas'];

export type Payment = Schemas['PaymentView'];
export type PaymentStatus = Payment['status'];
export type Refund = Schemas['RefundView'];
export type Customer = Schemas['CustomerView'];
export type ApiKey = Schemas['ApiKeyView'];
export type CreatedApiKey = Schemas['ApiKeyCreatedView'];
export type PermissionResource = keyof Schemas['ApiKeyPermissionsView'];
export type PermissionLevel = Schemas['ApiKeyPermissionsView'][PermissionResource];
export type PaymentEvent = Schemas['EventDto'];
export type PaymentVolume = Schemas['PaymentVolumeView'];

export const PAYMENT_STATUSES = membersOf<PaymentStatus>()(['succeeded', 'requires_capture', 'canceled', 'failed'] as const);
export const REFUND_REASONS = membersOf<NonNullable<Schemas['RefundCreateDto']['reason']>>()([
  'requested_by_customer',
  'duplicate',
  'fraudulent',
] as const);
export const CANCELLATION_REASONS = membersOf<NonNullable<Schemas['PaymentCancelDto']['cancellation_reason']>>()([
  'requested_by_customer',
  'duplicate',
  'fraudulent',
  'abandoned',
] as const);
export const PERMISSION_RESOURCES = membersOf<PermissionResource>()([
  'customers',
  'payments',
  'refunds',
  'webhooks',
  'events',
] as const);
export const PERMISSION_LEVELS = membersOf<PermissionLevel>()(['none', 'read', 'write'] as const);
