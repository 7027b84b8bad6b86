import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode } from '@app/platform';

/**
 * The webhooks library's error codes, registered by WebhooksModule, each with its docs:
 * docs/errors.md is generated from them (`npm run docs:errors`).
 */
export const WEBHOOKS_ERRORS = {
  webhook_url_invalid: invalidRequest(400, {
    when: '`POST .../webhook-endpoints` (or `PATCH .../webhook-endpoints/{id}`) with a `url` that is not an absolute http(s) URL, is over 2048 characters, holds credentials or control characters, or is not https where https is required (production). While `WEBHOOK_ALLOW_PRIVATE_URLS` is off (the default in production), also a host that does not resolve, a `localhost`, `.local` or `.internal` name, or one that points (literally or through DNS) to a private, loopback, link-local or metadata address. `param: url`.',
    fix: 'Register a public https URL whose host resolves.',
  }),
  webhook_endpoint_disabled: invalidRequest(409, {
    when: '`POST .../webhook-endpoints/{id}/deliveries/{delivery_id}/retry`, `POST .../webhook-endpoints/{id}/recover` or `POST .../webhook-endpoints/{id}/test` on a disabled endpoint; `param: id`.',
    fix: 'Enable the endpoint first (`POST .../webhook-endpoints/{id}/enable`, or `PATCH` with `disabled: false`), then retry, recover or test.',
  }),
  webhook_endpoint_limit_reached: invalidRequest(409, {
    when: '`POST .../webhook-endpoints` when the owner already has `WEBHOOK_MAX_ENDPOINTS_PER_OWNER` (16) endpoints, disabled ones included.',
    fix: 'Delete an endpoint you no longer use, then create the new one.',
  }),
} as const satisfies ErrorCatalog;

export type WebhooksErrorCode = keyof typeof WEBHOOKS_ERRORS;

export class WebhooksError extends DomainError<WebhooksErrorCode | PlatformErrorCode> {}
