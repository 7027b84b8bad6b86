// @securities-platform/offers-client: openapi-fetch typed by schema.d.ts, which
// `npm run clients:generate` generates from offers-api's OpenAPI document.
import createClient from 'openapi-fetch';

export function createOffersClient({ baseUrl, accessToken, headers, ...options }) {
  return createClient({ ...options, baseUrl, headers: { ...headers, Authorization: `Bearer ${accessToken}` } });
}

export function fetchAccessToken({ baseUrl, clientId, clientSecret, ...options }) {
  return createClient({ ...options, baseUrl }).POST('/oauth/token', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    // Explicit: openapi-fetch's default serializer detects the form content type with an
    // `instanceof Function` check that fails across realms (a Jest VM context), and falls back to JSON.
    bodySerializer: (form) => new URLSearchParams(form).toString(),
  });
}
