import type { PaymentsKeyPrincipal, PaymentsMode } from '../accounts/payments-key.principal';

/** The account and mode every payments object belongs to; every repository method takes it. */
export interface Tenant {
  readonly accountId: string;
  readonly mode: PaymentsMode;
}

export const tenantOf = (p: PaymentsKeyPrincipal): Tenant => ({ accountId: p.accountId, mode: p.mode });
