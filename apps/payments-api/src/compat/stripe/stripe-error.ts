import { RawHttpError, type RouteErrorRenderer } from '@app/platform';

/** Stripe's error types (the `stripe` SDK picks its error class by status, and by type for idempotency_error). */
export type StripeErrorType = 'invalid_request_error' | 'card_error' | 'api_error' | 'idempotency_error';

/** The fields of Stripe's error body `{error: {...}}` this API fills. */
export interface StripeErrorFields {
  readonly type: StripeErrorType;
  readonly message: string;
  readonly code?: string;
  readonly param?: string;
  readonly decline_code?: string;
  /** On a card error of a confirmation: the payment intent as it is after it. */
  readonly payment_intent?: unknown;
  readonly [extra: string]: unknown;
}

/** The OpenAPI component of every `/v1` error (ApiErrorBody). */
export const STRIPE_ERROR_BODY = {
  name: 'StripeErrorBody',
  schema: {
    type: 'object',
    description:
      "Every error of Stripe's /v1 (tag stripe), in Stripe's body: `type` is invalid_request_error, card_error, " +
      "idempotency_error or api_error; `code` the platform's or Stripe's code (docs/stripe.md, docs/errors.md).",
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['type', 'message'],
        properties: {
          type: { type: 'string', enum: ['invalid_request_error', 'card_error', 'idempotency_error', 'api_error'] },
          code: { type: 'string' },
          message: { type: 'string' },
          param: { type: 'string' },
          decline_code: { type: 'string' },
          payment_intent: { type: 'object', description: 'On a card error: the payment intent after the failed confirmation' },
        },
      },
    },
  },
} as const;

/**
 * An error in Stripe's body. `Stripe-Should-Retry` tells the `stripe` SDK (which otherwise
 * retries every 409 and 5xx) whether a retry can help.
 */
export function stripeError(status: number, fields: StripeErrorFields, headers: Record<string, string> = {}): RawHttpError {
  const retry = status === 409 || status === 429 || status >= 500 ? 'true' : 'false';
  return new RawHttpError(status, { error: { ...fields } }, { 'Stripe-Should-Retry': retry, ...headers });
}

/** 400 `invalid_request_error`. */
export function invalidRequest(message: string, options: { code?: string; param?: string } = {}): RawHttpError {
  return stripeError(400, {
    type: 'invalid_request_error',
    message,
    ...(options.code === undefined ? {} : { code: options.code }),
    ...(options.param === undefined ? {} : { param: options.param }),
  });
}

/** Stripe's "Missing required param: x." */
export function missingParam(param: string): RawHttpError {
  return invalidRequest(`Missing required param: ${param}.`, { code: 'parameter_missing', param });
}

/** Stripe's "Received unknown parameter: x". */
export function unknownParam(param: string): RawHttpError {
  return invalidRequest(`Received unknown parameter: ${param}`, { code: 'parameter_unknown', param });
}

/** 404 (or 400 for an id in the body) `resource_missing`: "No such payment_intent: 'pi_…'". */
export function noSuchResource(resource: string, id: string, options: { param?: string; status?: 400 | 404 } = {}): RawHttpError {
  return stripeError(options.status ?? 404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${resource}: '${id}'`,
    param: options.param ?? 'id',
  });
}

/** 400 for what Stripe has and this API has not: names the feature (docs/stripe.md lists them). */
export function unsupported(feature: string, param?: string): RawHttpError {
  return invalidRequest(`${feature} is not supported by payments-api's Stripe-compatible API (docs/stripe.md).`, {
    code: 'parameter_invalid',
    ...(param === undefined ? {} : { param }),
  });
}

/**
 * The platform's and the services' errors on `/v1` routes in Stripe's body (RenderErrorsWith):
 * the code, message, param and details (a decline_code…) kept; the status as Stripe answers:
 * a conflict that is not an idempotency race is 400 (the SDK retries 409), an unprocessable
 * request 400; idempotency errors have Stripe's type (a key reused with another body: 400,
 * which the SDK raises as StripeIdempotencyError; a key still in flight: 409, which it retries).
 */
export const stripeRouteError: RouteErrorRenderer = (error) => {
  const { code, message } = error;
  const details = { ...(error.details ?? {}) };
  const param = error.param === undefined ? {} : { param: error.param };
  if (code === 'idempotency_key_reused') {
    const body = { type: 'idempotency_error' as const, code, message, ...param, ...details };
    return stripeError(400, body);
  }
  if (code === 'idempotency_key_in_use')
    return stripeError(409, { type: 'idempotency_error', code, message, ...param, ...details });
  const status = error.status === 409 || error.status === 422 ? 400 : error.status;
  const type: StripeErrorType = status === 402 ? 'card_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return stripeError(status, { ...details, type, code, message, ...param });
};
