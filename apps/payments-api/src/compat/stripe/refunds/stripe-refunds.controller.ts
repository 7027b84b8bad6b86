import { CurrentPrincipal } from '@app/auth';
import { IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { Controller, Get, Param, Post } from '@nestjs/common';
import type { PaymentsKeyPrincipal } from '../../../accounts/payments-key.principal';
import { MAX_AMOUNT } from '../../../common/money';
import { type Tenant, tenantOf } from '../../../common/tenant';
import { PaymentIntentsService } from '../../../payment-intents/payment-intents.service';
import { REFUND_REASONS } from '../../../refunds/dto/refund.dto';
import type { RefundRow } from '../../../refunds/refunds.repository';
import { presented, RefundsService } from '../../../refunds/refunds.service';
import { invalidRequest } from '../stripe-error';
import { type ExpandResolver, expandObject, expandObjects } from '../stripe-expand';
import { cursorMissing, listParams, listSchema, type StripeList, stripeList } from '../stripe-list';
import { StripeBody, type StripeParams } from '../stripe-params';
import { StripeController, StripeRoute } from '../stripe-route';
import { type StripeRefundObject, stripeRefund } from './stripe-refund';
import { STRIPE_REFUND_SCHEMA } from './stripe-refund.schema';

const NOT_FOUND = {
  code: 'resource_missing',
  when: 'no such refund of this account and mode (a refund of a /v2 payment is not a /v1 refund)',
} as const;
const ID_MAX = 255;

type Answer = StripeRefundObject | (Omit<StripeRefundObject, 'payment_intent'> & { payment_intent: unknown });

/**
 * Stripe's `/v1/refunds` over RefundsService: a refund of a payment intent (its succeeded
 * payment) or of a `charge` (an intent's payment id). Only refunds of intents' payments are
 * `/v1` refunds; a refund of a `/v2` payment is seen on `/v2` only.
 */
@StripeController('refunds')
@Controller('v1/refunds')
export class StripeRefundsController {
  constructor(
    private readonly refunds: RefundsService,
    private readonly intents: PaymentIntentsService,
  ) {}

  @Post()
  @StripeRoute(
    'Refund a payment intent (or a charge) in full (default) or in part',
    STRIPE_REFUND_SCHEMA,
    { code: 'resource_missing', status: 400, when: 'payment_intent or charge names nothing of yours' },
    { code: 'payment_not_refundable', when: 'the payment intent did not succeed' },
    { code: 'amount_exceeds_refundable', when: 'more than what is left to refund' },
  )
  async create(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<Answer> {
    const intent = p.string('payment_intent', { max: ID_MAX });
    const charge = p.string('charge', { max: ID_MAX });
    const amount = p.integer('amount', { min: 1, max: MAX_AMOUNT });
    const reason = p.oneOf('reason', REFUND_REASONS);
    const metadata = p.metadata();
    const expand = p.expand();
    p.done();
    if (intent === undefined && charge === undefined) {
      throw invalidRequest('One of the following params should be provided for this request: payment_intent or charge.', {
        code: 'parameter_missing',
        param: 'payment_intent',
      });
    }
    const tenant = tenantOf(key);
    const param = intent === undefined ? 'charge' : 'payment_intent';
    const { paymentIntentId, paymentId } =
      intent === undefined
        ? { paymentIntentId: await this.intents.intentOfPayment(tenant, charge ?? '', param), paymentId: charge ?? '' }
        : { paymentIntentId: intent, paymentId: await this.intents.paymentToRefund(tenant, intent, param) };
    const row = await this.refunds.createRow(
      tenant,
      {
        payment_id: paymentId,
        ...(amount === undefined ? {} : { amount }),
        ...(reason === undefined ? {} : { reason }),
        ...(metadata === undefined ? {} : { metadata }),
      },
      presented(claim, (r: RefundRow) => stripeRefund(r, paymentIntentId)),
      param,
    );
    return this.expand(tenant, stripeRefund(row, paymentIntentId), expand);
  }

  @Get()
  @StripeRoute(
    'List refunds of payment intents, newest first (payment_intent: of one)',
    listSchema(STRIPE_REFUND_SCHEMA),
    cursorMissing('refund'),
  )
  async list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @StripeBody() p: StripeParams): Promise<StripeList<Answer>> {
    const tenant = tenantOf(key);
    const page = listParams(p);
    const intent = p.string('payment_intent', { max: ID_MAX });
    const expand = p.expand();
    p.done();
    const { rows, hasMore } = await this.refunds.listOfIntents(tenant, page, intent);
    const data = rows.map((r) => stripeRefund(r.row, r.paymentIntentId));
    return stripeList(await expandObjects<Answer>(data, expand, this.resolvers(tenant), { list: true }), hasMore, '/v1/refunds');
  }

  @Get(':id')
  @StripeRoute('Retrieve a refund', STRIPE_REFUND_SCHEMA, NOT_FOUND)
  async retrieve(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
  ): Promise<Answer> {
    const expand = p.expand();
    p.done();
    const tenant = tenantOf(key);
    const { row, paymentIntentId } = await this.refunds.retrieveOfIntent(tenant, id);
    return this.expand(tenant, stripeRefund(row, paymentIntentId), expand);
  }

  @Post(':id')
  @StripeRoute('Update a refund\'s metadata (merges; "" removes a key): refund.updated', STRIPE_REFUND_SCHEMA, NOT_FOUND)
  async update(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<Answer> {
    const metadata = p.metadataUpdate();
    const expand = p.expand();
    p.done();
    const tenant = tenantOf(key);
    // only /v1 refunds: 404 for a refund of a /v2 payment, before anything is written
    const { paymentIntentId } = await this.refunds.retrieveOfIntent(tenant, id);
    const row = await this.refunds.updateRow(
      tenant,
      id,
      metadata === undefined ? {} : { metadata },
      presented(claim, (r: RefundRow) => stripeRefund(r, paymentIntentId)),
    );
    return this.expand(tenant, stripeRefund(row, paymentIntentId), expand);
  }

  private expand(tenant: Tenant, refund: StripeRefundObject, paths: readonly string[]): Promise<Answer> {
    return paths.length === 0 ? Promise.resolve(refund) : expandObject<Answer>(refund, paths, this.resolvers(tenant));
  }

  /** What a refund expands: its payment intent. */
  private resolvers(tenant: Tenant): Record<string, ExpandResolver> {
    return {
      payment_intent: async (ids) => {
        const views = await Promise.all(ids.map((id) => this.intents.retrieve(tenant, id)));
        return new Map(views.map((v) => [v.id, v]));
      },
    };
  }
}
