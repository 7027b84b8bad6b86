import { type CredentialKind, hasPrefix, looksLikeJwt } from '@app/platform';

/**
 * The bearer credentials a caller of payments-api may hold, by shape: its own secret keys
 * and the other services' credentials (their formats are public: docs/auth.md). A 401 names
 * the one presented instead of what the route takes (CredentialKinds).
 */
export const PAYMENTS_CREDENTIAL_KINDS: readonly CredentialKind[] = [
  {
    name: 'a secret or restricted API key (sk_test_…, sk_live_…, rk_test_… or rk_live_…), which works on the /v2 routes',
    authenticator: 'payments_key',
    matches: hasPrefix('sk_test_', 'sk_live_', 'rk_test_', 'rk_live_'),
  },
  { name: 'a vector-api token', matches: hasPrefix('vt_') },
  { name: 'an offers-api OAuth 2.0 access token', matches: looksLikeJwt },
  { name: 'an offers-api OAuth client secret (cs_…)', matches: hasPrefix('cs_') },
];
