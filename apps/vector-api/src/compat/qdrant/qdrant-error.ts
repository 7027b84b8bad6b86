import { RawHttpError, type RouteErrorRenderer } from '@app/platform';

/**
 * An error of the Qdrant-compatible API in Qdrant's body: `{"status": {"error": "…"},
 * "time": …}` with the HTTP status (as Qdrant's REST API answers; the official clients
 * throw on any status but 200 and read `status.error`).
 */
export function qdrantError(status: number, message: string, headers: Record<string, string> = {}): RawHttpError {
  return new RawHttpError(status, { status: { error: message }, time: 0 }, headers);
}

/** 400 for what Qdrant has and this service does not: names the feature. */
export function unsupported(feature: string): RawHttpError {
  return qdrantError(400, `Bad request: ${feature} is not supported by vector-api's Qdrant-compatible API (docs/qdrant.md).`);
}

export function badRequest(message: string): RawHttpError {
  return qdrantError(400, `Bad request: ${message}`);
}

/** Qdrant's 404 of a missing collection (another project's collection answers the same). */
export function collectionNotFound(name: string): RawHttpError {
  return qdrantError(404, `Not found: Collection \`${name}\` doesn't exist!`);
}

/**
 * Errors the platform renders itself on these routes (authentication 401, rate limit 429
 * with Retry-After, body limit 413, malformed JSON and validation 400, the service's own
 * 4xx and 5xx) in Qdrant's body, keeping the status, the headers and the message (with the
 * platform's code in front, so a reader can look it up in docs/errors.md).
 */
export const qdrantRouteError: RouteErrorRenderer = (error) => qdrantError(error.status, `${error.code}: ${error.message}`);
