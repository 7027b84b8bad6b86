import type { Tier } from '../partners/partner-tier';

/** An OAuth 2.0 client of a partner, from a client-credentials access token. */
export interface PartnerPrincipal {
  readonly kind: 'partner';
  readonly partnerId: string;
  readonly clientId: string;
  readonly tier: Tier;
  /**
   * The version of the client secret that minted the caller's access token (its
   * `secret_version` claim, 0 without one); null for a partner dashboard session, which no
   * client secret minted. Managing credentials needs the client's current version (issue 31).
   */
  readonly secretVersion: number | null;
}

/** The principal's stable key (its rate-limit scope; idempotency is per partner, PartnerAuthenticator). */
export function partnerPrincipalKey(p: PartnerPrincipal): string {
  return `partner:${p.partnerId}:client:${p.clientId}`;
}
