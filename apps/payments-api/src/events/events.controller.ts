import { Authenticated } from '@app/auth';
import { WebhookEventsRoutes, type WebhookOwner } from '@app/webhooks';
import { Controller } from '@nestjs/common';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { PAYMENTS_WEBHOOK_OWNER, paymentsOwnerId } from '../webhook-endpoints/webhook-owner';
import { KeyResource } from '../accounts/permissions';

/** `/v2/events`: the events of the key's account in the key's mode (the same ones its webhooks get), to poll. */
@Authenticated('payments_key')
@KeyResource('events')
@Controller('v2/events')
export class EventsController extends WebhookEventsRoutes<PaymentsKeyPrincipal> {
  protected ownerOf(p: PaymentsKeyPrincipal): WebhookOwner {
    return { ownerType: PAYMENTS_WEBHOOK_OWNER, ownerId: paymentsOwnerId(p.accountId, p.mode) };
  }
}
