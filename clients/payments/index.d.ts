import type { Client, ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export interface PaymentsClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** The service's root, e.g. `http://localhost:3002` (the paths start with `/v2` or `/admin/v1`). */
  baseUrl: string;
  /** A secret key (`sk_test_…`, `sk_live_…`), or the operator's admin key for the `/admin/v1` routes. */
  apiKey: string;
  /** Headers sent with every request besides `Authorization`. */
  headers?: Record<string, string>;
}

/** openapi-fetch's client of payments-api: `GET`, `POST`, `DELETE`… each typed by the path. */
export type PaymentsClient = Client<paths>;

/**
 * A client that sends `Authorization: Bearer <apiKey>` with every request. Writes take an
 * `Idempotency-Key` as a typed header parameter:
 * `client.POST('/v2/payments', { params: { header: { 'Idempotency-Key': key } }, body })`;
 * a replay answers `Idempotent-Replayed: true` (`response.headers`).
 */
export declare function createPaymentsClient(options: PaymentsClientOptions): PaymentsClient;

/** The body of every non-2xx response (docs/errors.md); `error.code` is the stable part. */
export interface ApiError {
  error: {
    type: string;
    code: string;
    message: string;
    param?: string;
    request_id: string;
    /** Some codes add fields (`decline_code`, `payment_id` of a declined payment). */
    [field: string]: unknown;
  };
}
