import { Authenticated } from '@app/auth';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { WebhookEndpointsRoutes, type WebhookOwner } from '@app/webhooks';
import { Controller } from '@nestjs/common';
import { PAYMENTS_WEBHOOK_OWNER, paymentsOwnerId } from './webhook-owner';
import { KeyResource } from '../accounts/permissions';

/** `/v2/webhook-endpoints`: owned by the key's account in the key's mode. */
@Authenticated('payments_key')
@KeyResource('webhooks')
@Controller('v2/webhook-endpoints')
export class WebhookEndpointsController extends WebhookEndpointsRoutes<PaymentsKeyPrincipal> {
  protected ownerOf(p: PaymentsKeyPrincipal): WebhookOwner {
    return { ownerType: PAYMENTS_WEBHOOK_OWNER, ownerId: paymentsOwnerId(p.accountId, p.mode) };
  }
}
