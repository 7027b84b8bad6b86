import { Authenticated } from '@app/auth';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { WebhookEndpointsRoutes, type WebhookOwner } from '@app/webhooks';
import { Controller } from '@nestjs/common';
import { PARTNER_WEBHOOK_OWNER } from './webhook-owner';

/** `/api/v1/webhook-endpoints`: the calling partner's webhook endpoints and their delivery log. */
@Authenticated('partner')
@Controller('api/v1/webhook-endpoints')
export class WebhookEndpointsController extends WebhookEndpointsRoutes<PartnerPrincipal> {
  protected ownerOf(p: PartnerPrincipal): WebhookOwner {
    return { ownerType: PARTNER_WEBHOOK_OWNER, ownerId: p.partnerId };
  }
}
