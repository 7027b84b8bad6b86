import { CurrentPrincipal } from '@app/auth';
import { IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { Controller, Get, Param, Post } from '@nestjs/common';
import type { PaymentsKeyPrincipal } from '../../../accounts/payments-key.principal';
import { type Tenant, tenantOf } from '../../../common/tenant';
import { CustomersRepository } from '../../../customers/customers.repository';
import type { PaymentIntentView } from '../../../payment-intents/dto/payment-intent.view';
import { PaymentIntentsService } from '../../../payment-intents/payment-intents.service';
import { type ExpandResolver, expandObject, expandObjects } from '../stripe-expand';
import { cursorMissing, createdFilter, listParams, listSchema, type StripeList, stripeList } from '../stripe-list';
import { customerResolver } from '../stripe-objects';
import { StripeBody, type StripeParams } from '../stripe-params';
import { StripeController, StripeRoute } from '../stripe-route';
import { readCancel, readCapture, readConfirm, readCreate, readUpdate } from './stripe-payment-intent.params';
import { STRIPE_PAYMENT_INTENT_SCHEMA } from './stripe-payment-intent.schema';

const NOT_FOUND = { code: 'resource_missing', when: 'no such payment intent of this account and mode' } as const;
const UNEXPECTED_STATE = {
  code: 'payment_intent_unexpected_state',
  when: "the action does not apply to the intent's status (the message names it)",
} as const;
const DECLINED = {
  code: 'card_declined',
  when: 'the confirmation was declined (402 card_error; also processing_error, expired_card, incorrect_cvc): the intent is back in requires_payment_method with last_payment_error, in error.payment_intent',
} as const;

/** An intent as answered: `customer` expanded when asked (expand[]=customer; on lists data.customer). */
type Answer = PaymentIntentView | (Omit<PaymentIntentView, 'customer'> & { customer: unknown });

/**
 * Stripe's `/v1/payment_intents` over PaymentIntentsService (issue 35): each route reads
 * Stripe's parameters (unknown ones are refused by name), calls the service and expands.
 */
@StripeController('payments')
@Controller('v1/payment_intents')
export class StripePaymentIntentsController {
  constructor(
    private readonly intents: PaymentIntentsService,
    private readonly customers: CustomersRepository,
  ) {}

  @Post()
  @StripeRoute(
    'Create a payment intent (confirm=true: and confirm it)',
    STRIPE_PAYMENT_INTENT_SCHEMA,
    DECLINED,
    UNEXPECTED_STATE,
    {
      code: 'resource_missing',
      status: 400,
      when: 'customer or payment_method names nothing of yours (test mode: a test payment method)',
    },
  )
  async create(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<Answer> {
    const input = readCreate(p);
    const expand = p.expand();
    p.done();
    const tenant = tenantOf(key);
    return this.expand(tenant, await this.intents.create(tenant, input, claim), expand);
  }

  @Get()
  @StripeRoute('List payment intents, newest first', listSchema(STRIPE_PAYMENT_INTENT_SCHEMA), cursorMissing('payment intent'))
  async list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @StripeBody() p: StripeParams): Promise<StripeList<Answer>> {
    const tenant = tenantOf(key);
    const page = listParams(p);
    const customer = p.string('customer', { max: 255 });
    const created = createdFilter(p);
    const expand = p.expand();
    p.done();
    const { data, hasMore } = await this.intents.list(tenant, {
      limit: page.limit ?? 10,
      ...(page.starting_after === undefined ? {} : { starting_after: page.starting_after }),
      ...(page.ending_before === undefined ? {} : { ending_before: page.ending_before }),
      ...(customer === undefined ? {} : { customer }),
      ...(created === undefined ? {} : { created }),
    });
    const expanded = await expandObjects<Answer>(data, expand, this.resolvers(tenant), { list: true });
    return stripeList(expanded, hasMore, '/v1/payment_intents');
  }

  @Get(':id')
  @StripeRoute('Retrieve a payment intent', STRIPE_PAYMENT_INTENT_SCHEMA, NOT_FOUND)
  async retrieve(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
  ): Promise<Answer> {
    const expand = p.expand();
    // Stripe's publishable-key clients send it; a secret key needs none (accepted, not checked)
    p.ignore('client_secret');
    p.done();
    const tenant = tenantOf(key);
    return this.expand(tenant, await this.intents.retrieve(tenant, id), expand);
  }

  @Post(':id')
  @StripeRoute(
    'Update a payment intent: description and metadata any time (metadata merges, "" removes a key); amount, currency, customer, payment_method, capture_method before a payment is under way',
    STRIPE_PAYMENT_INTENT_SCHEMA,
    NOT_FOUND,
    UNEXPECTED_STATE,
  )
  async update(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<Answer> {
    const input = readUpdate(p);
    const expand = p.expand();
    p.done();
    const tenant = tenantOf(key);
    return this.expand(tenant, await this.intents.update(tenant, id, input, claim), expand);
  }

  @Post(':id/confirm')
  @StripeRoute(
    'Confirm a payment intent: charge (or authorize, capture_method manual) its payment method',
    STRIPE_PAYMENT_INTENT_SCHEMA,
    NOT_FOUND,
    DECLINED,
    UNEXPECTED_STATE,
  )
  async confirm(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<Answer> {
    const input = readConfirm(p);
    const expand = p.expand();
    p.done();
    const tenant = tenantOf(key);
    return this.expand(tenant, await this.intents.confirm(tenant, id, input, claim), expand);
  }

  @Post(':id/capture')
  @StripeRoute(
    'Capture an authorized payment intent, in full or in part (amount_to_capture); the rest is released',
    STRIPE_PAYMENT_INTENT_SCHEMA,
    NOT_FOUND,
    UNEXPECTED_STATE,
    {
      code: 'amount_exceeds_capturable',
      when: 'amount_to_capture is more than amount_capturable',
    },
  )
  async capture(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<Answer> {
    const input = readCapture(p);
    const expand = p.expand();
    p.done();
    const tenant = tenantOf(key);
    return this.expand(tenant, await this.intents.capture(tenant, id, input, claim), expand);
  }

  @Post(':id/cancel')
  @StripeRoute(
    'Cancel a payment intent (before a payment, or an authorization: released)',
    STRIPE_PAYMENT_INTENT_SCHEMA,
    NOT_FOUND,
    UNEXPECTED_STATE,
  )
  async cancel(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<Answer> {
    const input = readCancel(p);
    const expand = p.expand();
    p.done();
    const tenant = tenantOf(key);
    return this.expand(tenant, await this.intents.cancel(tenant, id, input, claim), expand);
  }

  private expand(tenant: Tenant, view: PaymentIntentView, paths: readonly string[]): Promise<Answer> {
    return paths.length === 0 ? Promise.resolve(view) : expandObject<Answer>(view, paths, this.resolvers(tenant));
  }

  /** What an intent expands: its customer. */
  private resolvers(tenant: Tenant): Record<string, ExpandResolver> {
    return { customer: customerResolver(this.customers, tenant) };
  }
}
