import { CurrentPrincipal } from '@app/auth';
import { Controller, Get } from '@nestjs/common';
import type { PaymentsKeyPrincipal } from '../../../accounts/payments-key.principal';
import { tenantOf } from '../../../common/tenant';
import { expandObjects } from '../stripe-expand';
import { STRIPE_CUSTOMER_SCHEMA, type StripeCustomer, stripeCustomer } from '../stripe-objects';
import { StripeBody, type StripeParams } from '../stripe-params';
import { StripeController, StripeRoute } from '../stripe-route';
import { decodePage, encodePage } from './stripe-search-page';
import { CUSTOMER_SEARCH_FIELDS } from './stripe-search-query';
import { searchParams, searchSchema, type StripeSearchResult } from './stripe-search-result';
import { StripeSearchRepository } from './stripe-search.repository';

const URL = '/v1/customers/search';

/**
 * `GET /v1/customers/search` (docs/stripe.md, "Search"): Stripe's query language over created,
 * email, metadata, name and phone; newest first; `page` is the previous answer's next_page.
 * A literal path, so Nest's router takes it before `/v1/customers/:id`.
 */
@StripeController('customers')
@Controller('v1/customers/search')
export class StripeCustomersSearchController {
  constructor(private readonly search: StripeSearchRepository) {}

  @Get()
  @StripeRoute(
    "Search customers with Stripe's query language, newest first (a query that does not parse: 400 parameter_invalid naming the position)",
    searchSchema(STRIPE_CUSTOMER_SCHEMA),
  )
  async find(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @StripeBody() p: StripeParams,
  ): Promise<StripeSearchResult<StripeCustomer>> {
    const tenant = tenantOf(key);
    const s = searchParams(p, CUSTOMER_SEARCH_FIELDS);
    await expandObjects([], s.expand, {}, { list: true }); // nothing of a customer expands: a path is a 400
    const after = s.page === undefined ? undefined : decodePage('customer', s.text, s.page);
    const rows = await this.search.customers(tenant, s.query, after, s.limit + 1);
    const page = rows.slice(0, s.limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > s.limit && last !== undefined;
    return {
      object: 'search_result',
      data: page.map(stripeCustomer),
      has_more: hasMore,
      next_page: hasMore ? encodePage('customer', s.text, last) : null,
      url: URL,
      ...(s.totalCount ? { total_count: await this.search.countCustomers(tenant, s.query) } : {}),
    };
  }
}
