import { type CredentialKind, hasPrefix, looksLikeJwt } from '@app/platform';

/**
 * The bearer credentials a caller of vector-api may hold, by shape: its own tokens and the
 * other services' credentials (their formats are public: docs/auth.md). A 401 names the one
 * presented instead of what the route takes (CredentialKinds).
 */
export const VECTOR_CREDENTIAL_KINDS: readonly CredentialKind[] = [
  { name: 'a vector token (vt_…), which works on the /v1 routes', authenticator: 'vector_token', matches: hasPrefix('vt_') },
  { name: 'an offers-api OAuth 2.0 access token', matches: looksLikeJwt },
  { name: 'an offers-api OAuth client secret (cs_…)', matches: hasPrefix('cs_') },
  { name: 'a payments-api secret key (sk_test_… or sk_live_…)', matches: hasPrefix('sk_test_', 'sk_live_') },
];
