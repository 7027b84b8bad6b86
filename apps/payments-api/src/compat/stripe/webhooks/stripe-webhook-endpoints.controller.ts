import { CurrentPrincipal } from '@app/auth';
import { IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { type DeletedView, type WebhookEndpointRecord, WebhookEndpointsService } from '@app/webhooks';
import { Controller, Delete, Get, Param, Post } from '@nestjs/common';
import type { PaymentsKeyPrincipal } from '../../../accounts/payments-key.principal';
import { STRIPE_EVENT_TYPES } from '../stripe-event-types';
import { invalidRequest, missingParam, unsupported } from '../stripe-error';
import { cursorMissing, listParams, listSchema, type StripeList, stripeList } from '../stripe-list';
import { StripeBody, type StripeParams } from '../stripe-params';
import { StripeController, StripeRoute } from '../stripe-route';
import {
  STRIPE_WEBHOOK_ENDPOINT_SCHEMA,
  type StripeWebhookEndpoint,
  stripeEndpointScope,
  stripeWebhookEndpoint,
} from './stripe-webhook-objects';

const DELETED_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['webhook_endpoint'] },
    deleted: { type: 'boolean', enum: [true] },
  },
};
const NOT_FOUND = { code: 'resource_missing', when: 'no such /v1 webhook endpoint of this account and mode' } as const;
const URL_INVALID = {
  code: 'webhook_url_invalid',
  when: 'not http(s), not https in production, or a private address (the same checks as /v2)',
} as const;
const LIMIT = {
  code: 'webhook_endpoint_limit_reached',
  status: 400,
  when: 'the account has WEBHOOK_MAX_ENDPOINTS_PER_OWNER endpoints (/v1 and /v2 together)',
} as const;
const KNOWN_TYPES: ReadonlySet<string> = new Set(STRIPE_EVENT_TYPES);
/** The longest description (as `/v2`'s). */
const DESCRIPTION_MAX = 500;

/**
 * `enabled_events`: "*" or types this API sends. A Stripe type it never sends (`charge.succeeded`)
 * is refused by name rather than accepted to stay silent forever.
 */
function enabledEvents(p: StripeParams, required: boolean): string[] | undefined {
  const events = p.strings('enabled_events', { required, max: 100 });
  if (events === undefined) return undefined;
  if (events.length === 0) throw missingParam('enabled_events');
  for (const [i, type] of events.entries()) {
    if (type !== '*' && !KNOWN_TYPES.has(type)) {
      throw invalidRequest(
        `Invalid enabled_events[${i}]: ${JSON.stringify(type)} is not an event payments-api sends; use "*" or one of: ${STRIPE_EVENT_TYPES.join(', ')} (docs/stripe.md).`,
        { code: 'parameter_invalid', param: `enabled_events[${i}]` },
      );
    }
  }
  return events;
}

/** `expand[]`: nothing of a webhook endpoint or an event expands; an empty list is accepted. */
export function noExpansion(p: StripeParams): void {
  const [first] = p.expand();
  if (first !== undefined) throw invalidRequest(`This property cannot be expanded (${first}).`, { param: 'expand[0]' });
}

/** `metadata` of an update in the library's terms: a key set to null is removed, null removes every key. */
function metadataPatch(update: Record<string, string> | null): Record<string, string | null> | null {
  if (update === null) return null;
  return Object.fromEntries(Object.entries(update).map(([k, v]) => [k, v === '' ? null : v]));
}

/**
 * Stripe's `/v1/webhook_endpoints`: an endpoint of Stripe's webhook dialect (its own object:
 * `/v2/webhook-endpoints` never lists or touches it, and these routes never a `/v2` one). It
 * gets the `/v1` events as Stripe's event objects, signed `Stripe-Signature`, with the same
 * retries, fairness and URL checks as `/v2`'s.
 */
@StripeController('webhooks')
@Controller('v1/webhook_endpoints')
export class StripeWebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @StripeRoute(
    'Create a webhook endpoint (its whsec_ secret in this answer only)',
    STRIPE_WEBHOOK_ENDPOINT_SCHEMA,
    URL_INVALID,
    LIMIT,
  )
  async create(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<StripeWebhookEndpoint> {
    const url = p.string('url', { required: true, max: 2048 });
    const events = enabledEvents(p, true) ?? [];
    const description = p.nullableString('description', { max: DESCRIPTION_MAX });
    const metadata = p.metadata();
    // accepted (the SDK's typed parameter); events always come in STRIPE_API_VERSION's shape
    p.string('api_version', { max: 64 });
    if (p.boolean('connect') === true) throw unsupported('Connect webhook endpoints (connect=true)', 'connect');
    noExpansion(p);
    p.done();
    const livemode = key.mode === 'live';
    const present = (r: WebhookEndpointRecord): StripeWebhookEndpoint => stripeWebhookEndpoint(r, livemode, true);
    const record = await this.endpoints.createIn(
      stripeEndpointScope(key),
      { url, events, description: description ?? null, ...(metadata === undefined ? {} : { metadata }) },
      { completion: claim?.presentedAs(present).completion<WebhookEndpointRecord>() },
    );
    return present(record);
  }

  @Get()
  @StripeRoute(
    'List webhook endpoints, newest first',
    listSchema(STRIPE_WEBHOOK_ENDPOINT_SCHEMA),
    cursorMissing('/v1 webhook endpoint'),
  )
  async list(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @StripeBody() p: StripeParams,
  ): Promise<StripeList<StripeWebhookEndpoint>> {
    const query = listParams(p);
    noExpansion(p);
    p.done();
    const { data, hasMore } = await this.endpoints.pageIn(stripeEndpointScope(key), {
      limit: query.limit ?? 10,
      startingAfter: query.starting_after,
      endingBefore: query.ending_before,
    });
    const livemode = key.mode === 'live';
    return stripeList(
      data.map((e) => stripeWebhookEndpoint(e, livemode)),
      hasMore,
      '/v1/webhook_endpoints',
    );
  }

  @Get(':id')
  @StripeRoute('Retrieve a webhook endpoint (without its secret)', STRIPE_WEBHOOK_ENDPOINT_SCHEMA, NOT_FOUND)
  async retrieve(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
  ): Promise<StripeWebhookEndpoint> {
    noExpansion(p);
    p.done();
    return stripeWebhookEndpoint(await this.endpoints.getIn(stripeEndpointScope(key), id), key.mode === 'live');
  }

  @Post(':id')
  @StripeRoute(
    'Update a webhook endpoint: url (checked as at creation), enabled_events, description ("" unsets), metadata (merges; "" removes a key), disabled',
    STRIPE_WEBHOOK_ENDPOINT_SCHEMA,
    NOT_FOUND,
    URL_INVALID,
  )
  async update(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<StripeWebhookEndpoint> {
    const url = p.string('url', { max: 2048 });
    const events = enabledEvents(p, false);
    const description = p.nullableString('description', { max: DESCRIPTION_MAX });
    const metadata = p.metadataUpdate();
    const disabled = p.boolean('disabled');
    noExpansion(p);
    p.done();
    const livemode = key.mode === 'live';
    const present = (r: WebhookEndpointRecord): StripeWebhookEndpoint => stripeWebhookEndpoint(r, livemode);
    const record = await this.endpoints.updateIn(
      stripeEndpointScope(key),
      id,
      {
        url,
        events,
        description,
        disabled,
        ...(metadata === undefined ? {} : { metadata: metadataPatch(metadata) }),
      },
      { completion: claim?.presentedAs(present).completion<WebhookEndpointRecord>() },
    );
    return present(record);
  }

  @Delete(':id')
  @StripeRoute('Delete a webhook endpoint (and its delivery log)', DELETED_SCHEMA, NOT_FOUND)
  async delete(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
  ): Promise<DeletedView> {
    p.done();
    return this.endpoints.deleteIn(stripeEndpointScope(key), id);
  }
}
