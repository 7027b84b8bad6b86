import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode, type PlatformErrorNotes } from '@app/platform';

/**
 * offers-api's own error codes (platform contract: Offers service decisions), each with its
 * docs: docs/errors.md is generated from them (`npm run docs:errors`).
 */
export const OFFERS_ERRORS = {
  terms_not_accepted: invalidRequest(400, {
    when: '`POST /api/v1/offers/{offer_id}/indications` with `terms_accepted` not `true`; `param: terms_accepted`.',
    fix: 'Have the investor accept the current terms (`GET /api/v1/terms`), then send `terms_accepted: true`.',
  }),
  terms_version_invalid: invalidRequest(400, {
    when: '`POST /api/v1/offers/{offer_id}/indications` whose `terms_version` is not the current terms version: the message and `current_version` name the current one. Also when no terms have been published yet (then without `current_version`). `param: terms_version`.',
    fix: 'Show the investor the current terms (`GET /api/v1/terms`) and send their `version` as `terms_version`.',
    fields: ['current_version'],
  }),
  amount_too_small: invalidRequest(400, {
    when: "`POST /api/v1/offers/{offer_id}/indications` whose `amount` (minor units) is below the offer's `minimum_investment` × 100; `minimum_amount` is that minimum in minor units. `param: amount`.",
    fix: 'Send an `amount` of at least `minimum_amount`.',
    fields: ['minimum_amount'],
  }),
  amount_above_maximum: invalidRequest(400, {
    when: "`POST /api/v1/offers/{offer_id}/indications` or `PATCH /api/v1/offers/{offer_id}/indications/{id}` whose `amount` (minor units) is above the offer's `maximum_investment` × 100 (offers without a maximum have `maximum_investment: null`); `maximum_amount` is that maximum in minor units. `param: amount`.",
    fix: 'Send an `amount` of at most `maximum_amount`.',
    fields: ['maximum_amount'],
  }),
  offer_not_live: invalidRequest(409, {
    when: '`POST /api/v1/offers/{offer_id}/indications`, `PATCH` or `DELETE /api/v1/offers/{offer_id}/indications/{id}` while the offer is not live: upcoming, or closed (also once `closes_at` has passed, before the close job ran). `offer_status` says which. Checked after the terms and the amount.',
    fix: "Send indications between the offer's `opens_at` and `closes_at`; an indication can be changed or cancelled only until the offer closes.",
    fields: ['offer_status'],
  }),
  indication_cancelled: invalidRequest(409, {
    when: '`PATCH /api/v1/offers/{offer_id}/indications/{id}` on an indication that has been cancelled.',
    fix: 'A cancelled indication stays cancelled: submit a new indication instead.',
  }),
  offer_not_closed: invalidRequest(409, {
    when: '`POST /admin/v1/offers/{id}/allocations` on an offer that is upcoming or live.',
    fix: "Allocate after the offer's `closes_at`, once its `status` is `closed`.",
  }),
  offer_not_editable: invalidRequest(409, {
    when: '`PATCH /admin/v1/offers/{id}` on a closed offer, or on a live offer changing `opens_at`, `price_per_share`, `currency` or `minimum_investment` (`param` names the first: indications were taken against them).',
    fix: 'While the offer is live, change only `company`, `ticker`, `type`, `shares_offered` and `closes_at`; a closed offer cannot change.',
  }),
  offer_already_allocated: invalidRequest(409, {
    when: '`POST /admin/v1/offers/{id}/allocations` on an offer that has already been allocated (an offer is allocated once).',
    fix: 'Nothing to redo: the first run stands; partners read it at `GET /api/v1/offers/{offer_id}/allocations`.',
  }),
  client_limit_reached: invalidRequest(409, {
    when: '`POST /api/v1/clients` by a partner that already has 20 OAuth clients that work (not deleted). The rate limit counts per client, so the clients a partner makes itself are bounded (the operator, through `/admin/v1`, is not).',
    fix: 'Delete clients the partner no longer uses (`DELETE /api/v1/clients/{id}`), then create the new one.',
  }),
  client_in_use: invalidRequest(409, {
    when: '`DELETE /api/v1/clients/{id}` naming the client whose access token makes the request (`param: id`): a client cannot delete itself.',
    fix: "Get a token of another of the partner's clients (create one with `POST /api/v1/clients`) and delete it with that, or ask the operator (`DELETE /admin/v1/partners/{id}/clients/{client_id}`).",
  }),
} as const satisfies ErrorCatalog;

export type OffersErrorCode = keyof typeof OFFERS_ERRORS;

/** The platform's codes as offers-api raises them on its own routes (docs only: docs/errors.md). */
export const OFFERS_PLATFORM_ERROR_NOTES = {
  invalid_token: {
    when: "A partner's access token (every `/api/v1` route) that is malformed, not signed by a current key, expired, lacks a claim, claims a lifetime over 3600 s or an `iat` more than 60 s ahead, whose client has been disabled by the operator or deleted by the partner, or that was issued for a client secret since rotated without a grace period (`POST /api/v1/clients/{id}/rotate-secret` with `expires_in_hours` 0 ends the old secret's tokens at once).",
    fix: "Request a new token at `POST /oauth/token` (tokens last 3600 s), with the client's newest secret.",
  },
  credential_in_grace: {
    when: '`POST /api/v1/clients`, `POST /api/v1/clients/{id}/rotate-secret` or `DELETE /api/v1/clients/{id}` with an access token issued for a client secret that has since been rotated: a secret still in its grace period (`expires_in_hours`) or one replaced since the token was issued. Checked before anything else the route does. Such a token still works on the other `/api/v1` routes until it expires.',
    fix: "Request a token with the client's newest secret (the one `rotate-secret` returned) and manage clients with it.",
  },
  rate_limit_exceeded: {
    when: "Besides the per-client rate limit: `POST /api/v1/clients` and `POST /api/v1/clients/{id}/rotate-secret` when the partner already has `OAUTH_HASH_PER_ADDRESS` (4) secrets being hashed or waiting for a slot of the instance's secret gate (the token endpoint's, where a partner runs at most half of `OAUTH_HASH_CONCURRENCY`); `POST /admin/v1/partners/{id}/clients` the same for the operator. `Retry-After: 1`; nothing was created or rotated.",
    fix: 'Wait `Retry-After` seconds; create and rotate clients one at a time.',
  },
  service_unavailable: {
    when: "Besides a dependency being down: `POST /api/v1/clients`, `POST /api/v1/clients/{id}/rotate-secret` and `POST /admin/v1/partners/{id}/clients` when the instance's secret gate has no room (`OAUTH_HASH_QUEUE` waiting) or the wait for a slot passed `OAUTH_HASH_QUEUE_TIMEOUT_MS`; the token endpoint answers the same as 429 `temporarily_unavailable`. `Retry-After: 1`; nothing was created or rotated.",
    fix: 'Retry after `Retry-After` seconds.',
  },
  resource_missing: {
    when: "An offer outside the partner's distribution agreement is missing like one that does not exist; so is another partner's OAuth client, or a deleted one, on `/api/v1/clients/{id}` routes (`param: id`); `GET /api/v1/terms` before any terms are published (no `param`). 400, not 404, when a list's `starting_after` names nothing (`GET /api/v1/allocations`: no allocation of the partner's; `GET /admin/v1/partners`: no partner); `param: starting_after`.",
    fix: 'Ask the operator to add the offer to your agreement, or to publish terms (`POST /admin/v1/terms`).',
  },
  resource_already_exists: {
    when: '`POST /admin/v1/terms` with a `version` already published; `param: version`.',
    fix: 'Publish the terms under a new `version`.',
  },
  parameter_invalid: {
    when: "Besides the request's shape: an indication's `currency` other than the offer's; an offer whose `closes_at` is not after `opens_at` or whose `minimum_investment` is below `price_per_share`; an allocation with `minimum_allocation_shares` under policy `pro_rata`, or `shares_available` over the offer's `shares_offered`.",
    fix: 'Correct the field `param` names as the message says.',
  },
  parameter_missing: {
    when: '`POST /admin/v1/offers/{id}/allocations` with policy `min_then_pro_rata` and no `minimum_allocation_shares`.',
    fix: 'Send `minimum_allocation_shares` with that policy.',
  },
} as const satisfies PlatformErrorNotes;

/** A DomainError with one of offers-api's codes or the platform's. */
export class OffersError extends DomainError<OffersErrorCode | PlatformErrorCode> {}
