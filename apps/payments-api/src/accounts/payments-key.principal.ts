/** Test and live data never mix: every object belongs to one account in one mode. */
export type PaymentsMode = 'test' | 'live';

/** An `sk_test_…` / `sk_live_…` key bound to one account and one mode. */
export interface PaymentsKeyPrincipal {
  readonly kind: 'payments_key';
  readonly accountId: string;
  readonly mode: PaymentsMode;
  readonly keyId: string;
}
