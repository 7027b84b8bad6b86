import { CurrentPrincipal } from '@app/auth';
import { Controller, Get } from '@nestjs/common';
import type { PaymentsKeyPrincipal } from '../../../accounts/payments-key.principal';
import { tenantOf } from '../../../common/tenant';
import { CustomersRepository } from '../../../customers/customers.repository';
import { expandObjects } from '../stripe-expand';
import { customerResolver } from '../stripe-objects';
import { StripeBody, type StripeParams } from '../stripe-params';
import { StripeController, StripeRoute } from '../stripe-route';
import { paymentIntentView, type PaymentIntentView } from '../../../payment-intents/dto/payment-intent.view';
import { STRIPE_PAYMENT_INTENT_SCHEMA } from '../payment-intents/stripe-payment-intent.schema';
import { decodePage, encodePage } from './stripe-search-page';
import { PAYMENT_INTENT_SEARCH_FIELDS } from './stripe-search-query';
import { searchParams, searchSchema, type StripeSearchResult } from './stripe-search-result';
import { StripeSearchRepository } from './stripe-search.repository';

const URL = '/v1/payment_intents/search';

/**
 * `GET /v1/payment_intents/search` (docs/stripe.md, "Search"): Stripe's query language over
 * amount, created, currency, customer, metadata and status (the status `/v1` shows: the latest
 * payment's unless it failed, else the intent's own); newest first; `expand[]=data.customer`.
 * A literal path, so Nest's router takes it before `/v1/payment_intents/:id`.
 */
@StripeController('payments')
@Controller('v1/payment_intents/search')
export class StripePaymentIntentsSearchController {
  constructor(
    private readonly search: StripeSearchRepository,
    private readonly customers: CustomersRepository,
  ) {}

  @Get()
  @StripeRoute(
    "Search payment intents with Stripe's query language, newest first (a query that does not parse: 400 parameter_invalid naming the position)",
    searchSchema(STRIPE_PAYMENT_INTENT_SCHEMA),
  )
  async find(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @StripeBody() p: StripeParams,
  ): Promise<StripeSearchResult<PaymentIntentView>> {
    const tenant = tenantOf(key);
    const s = searchParams(p, PAYMENT_INTENT_SEARCH_FIELDS);
    const after = s.page === undefined ? undefined : decodePage('payment_intent', s.text, s.page);
    const rows = await this.search.paymentIntents(tenant, s.query, after, s.limit + 1);
    const page = rows.slice(0, s.limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > s.limit && last !== undefined;
    const data = await expandObjects(
      page.map((r) => paymentIntentView(r.intent, r.latest)),
      s.expand,
      { customer: customerResolver(this.customers, tenant) },
      { list: true },
    );
    return {
      object: 'search_result',
      data,
      has_more: hasMore,
      next_page: hasMore ? encodePage('payment_intent', s.text, last.intent) : null,
      url: URL,
      ...(s.totalCount ? { total_count: await this.search.countPaymentIntents(tenant, s.query) } : {}),
    };
  }
}
