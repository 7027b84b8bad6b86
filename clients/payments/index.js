// @securities-platform/payments-client: openapi-fetch typed by schema.d.ts, which
// `npm run clients:generate` generates from payments-api's OpenAPI document.
import createClient from 'openapi-fetch';

export function createPaymentsClient({ baseUrl, apiKey, headers, ...options }) {
  return createClient({ ...options, baseUrl, headers: { ...headers, Authorization: `Bearer ${apiKey}` } });
}
