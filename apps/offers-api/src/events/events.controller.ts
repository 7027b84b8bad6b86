import { Authenticated } from '@app/auth';
import { WebhookEventsRoutes, type WebhookOwner } from '@app/webhooks';
import { Controller } from '@nestjs/common';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { PARTNER_WEBHOOK_OWNER } from '../webhook-endpoints/webhook-owner';

/** `/api/v1/events`: the calling partner's events (the same ones its webhooks get), to poll. */
@Authenticated('partner')
@Controller('api/v1/events')
export class EventsController extends WebhookEventsRoutes<PartnerPrincipal> {
  protected ownerOf(p: PartnerPrincipal): WebhookOwner {
    return { ownerType: PARTNER_WEBHOOK_OWNER, ownerId: p.partnerId };
  }
}
