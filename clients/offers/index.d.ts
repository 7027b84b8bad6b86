import type { Client, ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export interface OffersClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** The service's root, e.g. `http://localhost:3000` (the paths start with `/api/v1`, `/oauth` or `/admin/v1`). */
  baseUrl: string;
  /** An access token from `fetchAccessToken`, or the operator's admin key for the `/admin/v1` routes. */
  accessToken: string;
  /** Headers sent with every request besides `Authorization`. */
  headers?: Record<string, string>;
}

/** openapi-fetch's client of offers-api: `GET`, `POST`, `DELETE`… each typed by the path. */
export type OffersClient = Client<paths>;

/** A client that sends `Authorization: Bearer <accessToken>` with every request. */
export declare function createOffersClient(options: OffersClientOptions): OffersClient;

export interface AccessTokenOptions extends Omit<ClientOptions, 'baseUrl' | 'headers' | 'body'> {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

/** RFC 6749 §5.1: `access_token` (a JWT), `token_type` and `expires_in` (seconds). */
export type AccessToken = components['schemas']['TokenResponseDto'];

/** RFC 6749 §5.2: the token endpoint's error body (not the platform's `ApiError`). */
export interface OAuthError {
  error: string;
  error_description?: string;
}

/**
 * `POST /oauth/token` with the client credentials grant (form-encoded). As openapi-fetch does,
 * resolves to `{ data }` on success and `{ error }` otherwise; a token lives `expires_in` seconds.
 */
export declare function fetchAccessToken(
  options: AccessTokenOptions,
): Promise<{ data: AccessToken; error?: never; response: Response } | { data?: never; error: OAuthError; response: Response }>;

/** The body of every non-2xx response but the token endpoint's (docs/errors.md); `error.code` is the stable part. */
export interface ApiError {
  error: {
    type: string;
    code: string;
    message: string;
    param?: string;
    request_id: string;
    /** Some codes add fields (`current_version` with `terms_version_invalid`). */
    [field: string]: unknown;
  };
}
