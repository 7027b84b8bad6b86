/**
 * The one place where a domain error code becomes an HTTP status and an error `type`
 * (platform contract, "Errors"). Services throw `new DomainError(code, message)`; the
 * global filter looks the code up here. Every code is documented in docs/errors.md.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'idempotency_error'
  | 'card_error'
  | 'api_error';

export interface ErrorSpec {
  readonly status: number;
  readonly type: ErrorType;
}

const invalid = (status: number): ErrorSpec => ({ status, type: 'invalid_request_error' });

export const ERROR_CATALOG = {
  // request shape
  parameter_invalid: invalid(400),
  parameter_missing: invalid(400),
  parameter_unknown: invalid(400),
  body_invalid: invalid(400),
  invalid_json: invalid(400),
  body_too_large: invalid(413),
  unsupported_media_type: invalid(415),
  // routing and resources
  route_not_found: invalid(404),
  resource_missing: invalid(404),
  resource_already_exists: invalid(409),
  // vector-api: an embedding's length differs from its table's dimension
  dimension_mismatch: invalid(400),
  // authentication and authorization (RFC 6750)
  authentication_required: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  invalid_token: { status: 401, type: 'authentication_error' },
  permission_denied: { status: 403, type: 'permission_error' },
  // limits
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  // webhooks (libs/webhooks)
  webhook_url_invalid: invalid(400),
  webhook_endpoint_disabled: invalid(409),
  // offers-api (platform contract: Offers service decisions)
  terms_not_accepted: invalid(400),
  terms_version_invalid: invalid(400),
  amount_too_small: invalid(400),
  offer_not_live: invalid(409),
  offer_not_closed: invalid(409),
  offer_not_editable: invalid(409),
  offer_already_allocated: invalid(409),
  // idempotency (platform contract: Payments service decisions, Idempotency)
  idempotency_key_reused: { status: 422, type: 'idempotency_error' },
  idempotency_key_in_use: { status: 409, type: 'idempotency_error' },
  // payments-api (docs/payments.md)
  card_declined: { status: 402, type: 'card_error' },
  processing_error: { status: 402, type: 'card_error' },
  live_mode_not_enabled: { status: 403, type: 'permission_error' },
  amount_exceeds_refundable: invalid(400),
  payment_not_refundable: invalid(400),
  // server side
  internal_error: { status: 500, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function errorSpec(code: ErrorCode): ErrorSpec {
  return ERROR_CATALOG[code];
}
