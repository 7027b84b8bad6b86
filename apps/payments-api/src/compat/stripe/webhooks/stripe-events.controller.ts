import { CurrentPrincipal } from '@app/auth';
import { WebhookEventsService } from '@app/webhooks';
import { Controller, Get, Param } from '@nestjs/common';
import type { PaymentsKeyPrincipal } from '../../../accounts/payments-key.principal';
import { invalidRequest, unsupported } from '../stripe-error';
import { cursorMissing, createdFilter, listParams, listSchema, type StripeList, stripeList } from '../stripe-list';
import { StripeBody, type StripeParams } from '../stripe-params';
import { StripeController, StripeRoute } from '../stripe-route';
import { stripeEventObject } from '../stripe-webhook-dialect';
import { noExpansion } from './stripe-webhook-endpoints.controller';
import { STRIPE_EVENT_SCHEMA, stripeEndpointScope } from './stripe-webhook-objects';

/** Stripe's limit on `types[]`. */
const MAX_TYPES = 20;
type StripeEvent = Record<string, unknown>;

/**
 * Stripe's `/v1/events`: the account's events (in the key's mode) as `/v1` has them, under
 * their Stripe types with `data.object` in its `/v1` shape; the same rows `/v2/events` reads
 * (an event both APIs have is stored once), without the events `/v1` has not
 * (`payment.captured`, a `/v2` payment's), kept EVENT_RETENTION_DAYS.
 */
@StripeController('events')
@Controller('v1/events')
export class StripeEventsController {
  constructor(private readonly events: WebhookEventsService) {}

  @Get()
  @StripeRoute(
    'List events, newest first: type (exact, or prefix.*), types[], created, limit, starting_after, ending_before',
    listSchema(STRIPE_EVENT_SCHEMA),
    cursorMissing('/v1 event'),
  )
  async list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @StripeBody() p: StripeParams): Promise<StripeList<StripeEvent>> {
    const query = listParams(p);
    const type = p.string('type', { max: 100 });
    const types = p.strings('types', { max: 100 });
    if (types !== undefined && types.length > MAX_TYPES) {
      throw invalidRequest(`Invalid types: at most ${MAX_TYPES} types.`, { code: 'parameter_invalid', param: 'types' });
    }
    if (type !== undefined && types !== undefined) {
      throw invalidRequest('You may only specify one of these parameters: type, types.', {
        code: 'parameter_invalid',
        param: 'types',
      });
    }
    const created = createdFilter(p);
    if (p.has('delivery_success')) {
      p.boolean('delivery_success');
      throw unsupported('Filtering events by delivery_success', 'delivery_success');
    }
    noExpansion(p);
    p.done();
    const { data, hasMore } = await this.events.listDialect(stripeEndpointScope(key), {
      limit: query.limit ?? 10,
      type,
      types,
      created,
      startingAfter: query.starting_after,
      endingBefore: query.ending_before,
    });
    return stripeList(data.map(stripeEventObject), hasMore, '/v1/events');
  }

  @Get(':id')
  @StripeRoute('Retrieve an event', STRIPE_EVENT_SCHEMA, {
    code: 'resource_missing',
    when: 'no such /v1 event of this account and mode (or past its retention)',
  })
  async retrieve(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
  ): Promise<StripeEvent> {
    noExpansion(p);
    p.done();
    return stripeEventObject(await this.events.getDialect(stripeEndpointScope(key), id));
  }
}
