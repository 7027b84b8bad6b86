import type { Tier } from '../partners/partner-tier';

/** An OAuth 2.0 client of a partner, from a client-credentials access token. */
export interface PartnerPrincipal {
  readonly kind: 'partner';
  readonly partnerId: string;
  readonly clientId: string;
  readonly tier: Tier;
}

/** The principal's stable key (its rate-limit scope; idempotency is per partner, PartnerAuthenticator). */
export function partnerPrincipalKey(p: PartnerPrincipal): string {
  return `partner:${p.partnerId}:client:${p.clientId}`;
}
