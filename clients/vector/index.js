// @securities-platform/vector-client: openapi-fetch typed by schema.d.ts, which
// `npm run clients:generate` generates from vector-api's OpenAPI document.
import createClient from 'openapi-fetch';

export function createVectorClient({ baseUrl, token, headers, ...options }) {
  return createClient({ ...options, baseUrl, headers: { ...headers, Authorization: `Bearer ${token}` } });
}
