/** Who is calling. One guard abstraction authenticates all three kinds (see auth.guard.ts). */
export type Tier = 'starter' | 'growth' | 'enterprise';
export const TIERS: readonly Tier[] = ['starter', 'growth', 'enterprise'];

export type PaymentsMode = 'test' | 'live';

/** offers-api: an OAuth 2.0 client of a partner, from a client-credentials access token. */
export interface PartnerPrincipal {
  readonly kind: 'partner';
  readonly partnerId: string;
  readonly clientId: string;
  readonly tier: Tier;
}

/** vector-api: an opaque API token created by the admin API. */
export interface VectorTokenPrincipal {
  readonly kind: 'vector_token';
  readonly tokenId: string;
}

/** payments-api: an `sk_test_…` / `sk_live_…` key bound to one account and one mode. */
export interface PaymentsKeyPrincipal {
  readonly kind: 'payments_key';
  readonly accountId: string;
  readonly mode: PaymentsMode;
  readonly keyId: string;
}

export type Principal = PartnerPrincipal | VectorTokenPrincipal | PaymentsKeyPrincipal;
export type PrincipalKind = Principal['kind'];
export type PrincipalOf<K extends PrincipalKind> = Extract<Principal, { kind: K }>;

/** A stable string naming the principal, e.g. for rate-limit and idempotency scopes. */
export function principalKey(p: Principal): string {
  switch (p.kind) {
    case 'partner':
      return `partner:${p.partnerId}:client:${p.clientId}`;
    case 'vector_token':
      return `vector_token:${p.tokenId}`;
    case 'payments_key':
      return `payments_key:${p.keyId}`;
  }
}
