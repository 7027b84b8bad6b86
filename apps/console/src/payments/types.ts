/** The payments-api objects the dashboard reads (docs/payments.md; amounts in minor units). */

export type PaymentStatus = 'succeeded' | 'failed' | 'requires_capture' | 'canceled';
export const PAYMENT_STATUSES: readonly PaymentStatus[] = ['succeeded', 'requires_capture', 'canceled', 'failed'];

export interface Payment {
  readonly id: string;
  readonly object: 'payment';
  readonly status: PaymentStatus;
  readonly amount: number;
  readonly currency: string;
  readonly customer_id: string;
  readonly description: string | null;
  readonly metadata: Record<string, string>;
  readonly payment_method: string;
  readonly capture_method: 'automatic' | 'manual';
  readonly amount_capturable: number;
  readonly amount_received: number;
  readonly capture_before: string | null;
  readonly captured_at: string | null;
  readonly canceled_at: string | null;
  readonly cancellation_reason: string | null;
  readonly amount_refunded: number;
  readonly refunded: boolean;
  readonly failure_code: string | null;
  readonly decline_code: string | null;
  readonly failure_message: string | null;
  readonly livemode: boolean;
  readonly created: string;
}

export const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;
export const CANCELLATION_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent', 'abandoned'] as const;

export interface Refund {
  readonly id: string;
  readonly object: 'refund';
  readonly payment_id: string;
  readonly amount: number;
  readonly currency: string;
  readonly status: string;
  readonly reason: string | null;
  readonly metadata: Record<string, string>;
  readonly created: string;
}

export interface Customer {
  readonly id: string;
  readonly object: 'customer';
  readonly email: string | null;
  readonly name: string | null;
  readonly description: string | null;
  readonly metadata: Record<string, string>;
  readonly livemode: boolean;
  readonly created: string;
}

export const PERMISSION_RESOURCES = ['customers', 'payments', 'refunds', 'webhooks', 'events'] as const;
export type PermissionResource = (typeof PERMISSION_RESOURCES)[number];
export const PERMISSION_LEVELS = ['none', 'read', 'write'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

export interface ApiKey {
  readonly id: string;
  readonly object: 'api_key';
  readonly mode: 'test' | 'live';
  readonly kind: 'secret' | 'restricted';
  readonly name: string | null;
  readonly last4: string | null;
  readonly created: string;
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
  readonly permissions: Record<PermissionResource, PermissionLevel> | null;
}

export interface CreatedApiKey extends ApiKey {
  readonly secret: string;
}

export interface PaymentEvent {
  readonly id: string;
  readonly object: 'event';
  readonly event: string;
  readonly timestamp: string;
  readonly data: unknown;
}

export interface PaymentVolume {
  readonly object: 'payment_volume';
  readonly days: number;
  readonly since: string;
  readonly until: string;
  readonly currency: string | null;
  readonly data: ReadonlyArray<{ day: string; currency: string; amount: number; count: number }>;
}
