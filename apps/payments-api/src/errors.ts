import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode, type PlatformErrorNotes } from '@app/platform';

/**
 * payments-api's own error codes (platform contract: Payments service decisions), each with
 * its docs: docs/errors.md is generated from them (`npm run docs:errors`).
 */
export const PAYMENTS_ERRORS = {
  card_declined: {
    status: 402,
    type: 'card_error',
    when: '`POST /v2/payments` whose charge (or authorization, with `capture_method: manual`) was declined (test mode: `payment_method` `pm_card_declined` or `pm_card_insufficient_funds`, or their Stripe aliases). The failed payment is stored: `payment_id` names it, `decline_code` says why (`generic_decline`, `insufficient_funds`). The same `Idempotency-Key` replays this answer.',
    fix: 'Ask the customer for another payment method and charge again with a new `Idempotency-Key`.',
    fields: ['decline_code', 'payment_id'],
  },
  processing_error: {
    status: 402,
    type: 'card_error',
    when: '`POST /v2/payments` whose charge failed while being processed (test mode: `payment_method` `pm_card_processing_error`). The failed payment is stored: `payment_id` names it (no `decline_code`). The same `Idempotency-Key` replays this answer.',
    fix: 'Charge again later with a new `Idempotency-Key`.',
    fields: ['payment_id'],
  },
  live_mode_not_enabled: {
    status: 403,
    type: 'permission_error',
    when: '`POST /v2/payments` with a live key (`sk_live_...`) while no live payment processor is configured.',
    fix: 'Use a test key (`sk_test_...`); live charges need a live payment processor on the server.',
  },
  amount_exceeds_refundable: invalidRequest(400, {
    when: '`POST /v2/refunds` whose `amount` (by default, what is left) is more than what is left to refund on the payment, or a payment already refunded in full; concurrent refunds are checked one at a time. `param: amount`.',
    fix: "Refund at most the payment's `amount_received` (what was captured) minus its `amount_refunded` (`GET /v2/payments/{id}`).",
  }),
  payment_not_refundable: invalidRequest(400, {
    when: '`POST /v2/refunds` for a payment whose `status` is not `succeeded`: a failed payment, or an authorization not captured (`requires_capture`) or canceled — only captured money is refundable; `param: payment_id`.',
    fix: 'Refund only succeeded payments. Release an uncaptured authorization with `POST /v2/payments/{id}/cancel` instead.',
  }),
  payment_unexpected_state: invalidRequest(400, {
    when: '`POST /v2/payments/{id}/capture` or `/cancel` on a payment whose `status` is not `requires_capture` (already captured, canceled — by you, by a concurrent request or by expiry — failed, or charged with `capture_method: automatic`). The message names the status.',
    fix: 'Read the payment (`GET /v2/payments/{id}`): capture and cancel apply only to `requires_capture`.',
  }),
  payment_intent_unexpected_state: invalidRequest(400, {
    when: "`/v1` payment intents (Stripe's code): confirm of an intent that is not `requires_payment_method` or `requires_confirmation` (succeeded, waiting for capture, canceled) or that has no `payment_method`; capture of one not `requires_capture`; cancel of one that succeeded or was canceled; a change of `amount`, `currency`, `customer`, `payment_method` or `capture_method` once a payment is under way. The message names the status.",
    fix: 'Read the intent (`GET /v1/payment_intents/{id}`) and act as its `status` allows.',
  }),
  amount_exceeds_capturable: invalidRequest(400, {
    when: "`POST /v2/payments/{id}/capture` whose `amount_to_capture` is more than the payment's `amount_capturable`; `param: amount_to_capture`.",
    fix: 'Capture at most `amount_capturable`; to take more, create a new payment.',
  }),
  last_secret_key: invalidRequest(409, {
    when: '`DELETE /v2/api-keys/{id}` by the key it names while that key is the only secret key of its mode out of a grace period (keys rolled with `expires_in_hours` cannot manage keys, and expire): the account would be locked out of that mode. `param: id`.',
    fix: 'Roll the key instead (`POST /v2/api-keys/roll`).',
  }),
  api_key_limit_reached: invalidRequest(409, {
    when: '`POST /v2/api-keys` or `POST /v2/api-keys/roll` that would leave more than 100 working keys (secret and restricted, including rolled keys not yet expired) in one mode of the account.',
    fix: 'Revoke keys you no longer use (`DELETE /v2/api-keys/{id}`), then try again.',
  }),
} as const satisfies ErrorCatalog;

export type PaymentsErrorCode = keyof typeof PAYMENTS_ERRORS;

/** The platform's codes as payments-api raises them on its own routes (docs only: docs/errors.md). */
export const PAYMENTS_PLATFORM_ERROR_NOTES = {
  resource_missing: {
    status: 400,
    when: "400, not 404, when an id in the body or query names nothing of the account's: `customer_id` of `POST /v2/payments`, `payment_id` of `POST /v2/refunds`, a list's `starting_after` or `ending_before` (for `GET /admin/v1/accounts`: an id of any account); `param` names it. An id in the path that names nothing is 404.",
    fix: "Send an id of this account's objects.",
  },
  parameter_invalid: {
    when: "Besides the request's shape: in test mode a `payment_method` that is not a test payment method or one of Stripe's test aliases (the message lists them); `created[gte]` or `created[lte]` not a timestamp; `starting_after` with `ending_before`; an update (`POST /v2/payments/{id}`, `POST /v2/refunds/{id}`) whose merged `metadata` would hold more than 50 keys.",
    fix: 'Correct the field `param` names as the message says.',
  },
  credential_in_grace: {
    when: '`POST /v2/api-keys/roll`, `POST /v2/api-keys` or `DELETE /v2/api-keys/{id}` by a secret key rolled with `expires_in_hours` (it shows an `expires_at`): until it expires it serves the other routes, but cannot roll, create or revoke keys, so a leaked old key cannot undo the roll. A retry of a roll or create with its `Idempotency-Key` still replays the first answer. A console session acts as the current key of its mode and is never in grace.',
    fix: 'Manage keys with the newest secret key (the `secret` the roll returned), or from the console.',
  },
  permission_denied: {
    when: 'A restricted key (`rk_…`) calling a route beyond its permissions: GET routes need "read" on their resource (customers, payments, refunds, webhooks, events), other methods "write"; the message names the resource and the level needed. Restricted keys cannot call `/v2/api-keys` at all. A test-mode key naming live-mode keys on `/v2/api-keys` (roll, create or revoke).',
    fix: 'Use a key with the permission the message names (create one with `POST /v2/api-keys`), a secret key, or for live keys a live secret key.',
  },
} as const satisfies PlatformErrorNotes;

/** A DomainError with one of payments-api's codes or the platform's. */
export class PaymentsError extends DomainError<PaymentsErrorCode | PlatformErrorCode> {}
