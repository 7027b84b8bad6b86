import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode } from '@app/platform';

/** The webhooks library's error codes, registered by WebhooksModule (docs/errors.md). */
export const WEBHOOKS_ERRORS = {
  webhook_url_invalid: invalidRequest(400),
  webhook_endpoint_disabled: invalidRequest(409),
  webhook_endpoint_limit_reached: invalidRequest(409),
} as const satisfies ErrorCatalog;

export type WebhooksErrorCode = keyof typeof WEBHOOKS_ERRORS;

export class WebhooksError extends DomainError<WebhooksErrorCode | PlatformErrorCode> {}
