import { type CredentialKind, hasPrefix, looksLikeJwt } from '@app/platform';

/**
 * The bearer credentials a caller of offers-api may hold, by shape: its own access tokens
 * and client secrets, and the other services' keys (their formats are public: docs/auth.md).
 * A 401 names the one presented instead of what the route takes (CredentialKinds).
 */
export const OFFERS_CREDENTIAL_KINDS: readonly CredentialKind[] = [
  { name: 'an OAuth 2.0 access token, which works on the /api/v1 routes', authenticator: 'partner', matches: looksLikeJwt },
  {
    name: 'an OAuth client secret (cs_…), which POST /oauth/token exchanges, with its client_id, for an access token',
    matches: hasPrefix('cs_'),
  },
  { name: 'a vector-api token (vt_…)', matches: hasPrefix('vt_') },
  { name: 'a payments-api secret key (sk_test_… or sk_live_…)', matches: hasPrefix('sk_test_', 'sk_live_') },
];
