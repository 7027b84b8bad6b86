import type { Client, ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export interface VectorClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** The service's root, e.g. `http://localhost:3001` (the paths start with `/v1` or `/admin/v1`). */
  baseUrl: string;
  /** A vector token (`vt_…`), or the operator's admin key for the `/admin/v1` routes. */
  token: string;
  /** Headers sent with every request besides `Authorization`. */
  headers?: Record<string, string>;
}

/** openapi-fetch's client of vector-api: `GET`, `POST`, `DELETE`… each typed by the path. */
export type VectorClient = Client<paths>;

/** A client that sends `Authorization: Bearer <token>` with every request. */
export declare function createVectorClient(options: VectorClientOptions): VectorClient;

/** The body of every non-2xx response (docs/errors.md); `error.code` is the stable part. */
export interface ApiError {
  error: {
    type: string;
    code: string;
    message: string;
    param?: string;
    request_id: string;
    /** Some codes add fields (`ids`: every offending row of an insert). */
    [field: string]: unknown;
  };
}
