import { Authenticated, CurrentPrincipal, type PartnerPrincipal, type PaymentsKeyPrincipal } from '@app/auth';
import { createWebhookEndpointsController } from './webhook-endpoints.controller';

/** offers-api: `/api/v1/webhook-endpoints`, owned by the calling partner. */
export const PartnerWebhookEndpointsController = createWebhookEndpointsController<PartnerPrincipal>({
  path: 'api/v1/webhook-endpoints',
  auth: Authenticated('partner'),
  principal: CurrentPrincipal,
  ownerOf: (p) => ({ ownerType: 'partner', ownerId: p.partnerId }),
});

/** payments-api: `/v2/webhook-endpoints`, owned by the key's account in the key's mode. */
export const PaymentsWebhookEndpointsController = createWebhookEndpointsController<PaymentsKeyPrincipal>({
  path: 'v2/webhook-endpoints',
  auth: Authenticated('payments_key'),
  principal: CurrentPrincipal,
  ownerOf: (p) => ({ ownerType: 'payments_account', ownerId: paymentsOwnerId(p.accountId, p.mode) }),
});

/** The owner id of a payments account in one mode (test and live never share endpoints or events). */
export function paymentsOwnerId(accountId: string, mode: 'test' | 'live'): string {
  return `${accountId}:${mode}`;
}
