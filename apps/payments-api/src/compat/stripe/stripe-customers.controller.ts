import { CurrentPrincipal } from '@app/auth';
import { IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { Controller, Delete, Get, Param, Post } from '@nestjs/common';
import type { PaymentsKeyPrincipal } from '../../accounts/payments-key.principal';
import { resolvePage } from '../../common/list';
import { tenantOf } from '../../common/tenant';
import { CustomersRepository } from '../../customers/customers.repository';
import { type CustomerChangeSet, CustomersService } from '../../customers/customers.service';
import { noSuchResource } from './stripe-error';
import { cursorMissing, createdFilter, listParams, listSchema, type StripeList, stripeList } from './stripe-list';
import { STRIPE_CUSTOMER_SCHEMA, type StripeCustomer, stripeCustomer, stripeDeletedCustomer } from './stripe-objects';
import { StripeBody, type StripeParams } from './stripe-params';
import { StripeController, StripeRoute } from './stripe-route';

const DELETED_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['customer'] },
    deleted: { type: 'boolean', enum: [true] },
  },
};
const NOT_FOUND = { code: 'resource_missing', when: 'no such customer of this account and mode' } as const;

/** Reads the fields a customer create or update takes (Stripe's names; the rest are unknown parameters); `""` is null. */
function customerFields(p: StripeParams): CustomerChangeSet {
  const email = p.nullableString('email', { max: 512 });
  const name = p.nullableString('name', { max: 256 });
  const description = p.nullableString('description', { max: 1000 });
  return {
    ...(email === undefined ? {} : { email }),
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
  };
}

/** Stripe's `/v1/customers` over the customers `/v2` has (one customer, both APIs). */
@StripeController('customers')
@Controller('v1/customers')
export class StripeCustomersController {
  constructor(
    private readonly customers: CustomersService,
    private readonly repository: CustomersRepository,
  ) {}

  @Post()
  @StripeRoute('Create a customer', STRIPE_CUSTOMER_SCHEMA)
  async create(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<StripeCustomer> {
    const fields = customerFields(p);
    const metadata = p.metadata();
    p.done();
    const row = await this.customers.createRow(
      tenantOf(key),
      {
        ...(fields.email ? { email: fields.email } : {}),
        ...(fields.name ? { name: fields.name } : {}),
        ...(fields.description ? { description: fields.description } : {}),
        ...(metadata === undefined ? {} : { metadata }),
      },
      claim?.presentedAs(stripeCustomer),
    );
    return stripeCustomer(row);
  }

  @Get()
  @StripeRoute('List customers, newest first', listSchema(STRIPE_CUSTOMER_SCHEMA), cursorMissing('customer'))
  async list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @StripeBody() p: StripeParams): Promise<StripeList<StripeCustomer>> {
    const tenant = tenantOf(key);
    const query = listParams(p);
    const email = p.string('email', { max: 512 });
    const created = createdFilter(p);
    p.done();
    const request = await resolvePage(query, 'customer', (id) => this.repository.cursor(tenant, id));
    const rows = await this.repository.list(tenant, request, email, created);
    const slice = rows.slice(0, request.limit);
    if (request.before) slice.reverse();
    return stripeList(slice.map(stripeCustomer), rows.length > request.limit, '/v1/customers');
  }

  @Get(':id')
  @StripeRoute('Retrieve a customer (a deleted one answers {id, object, deleted: true})', STRIPE_CUSTOMER_SCHEMA, NOT_FOUND)
  async retrieve(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
  ): Promise<StripeCustomer | ReturnType<typeof stripeDeletedCustomer>> {
    p.expand(); // nothing of a customer expands here; accepted empty
    p.done();
    const row = await this.repository.find(tenantOf(key), id);
    if (row === null) throw noSuchResource('customer', id);
    return row.deletedAt === null ? stripeCustomer(row) : stripeDeletedCustomer(row.id);
  }

  @Post(':id')
  @StripeRoute('Update a customer: metadata merges ("" removes a key), "" unsets a field', STRIPE_CUSTOMER_SCHEMA, NOT_FOUND)
  async update(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
    @IdempotencyOf() claim: IdempotentRequest | undefined,
  ): Promise<StripeCustomer> {
    const fields = customerFields(p);
    const metadata = p.metadataUpdate();
    p.done();
    const row = await this.customers.updateRow(
      tenantOf(key),
      id,
      { ...fields, ...(metadata === undefined ? {} : { metadata }) },
      claim?.presentedAs(stripeCustomer),
    );
    return stripeCustomer(row);
  }

  @Delete(':id')
  @StripeRoute('Delete a customer', DELETED_SCHEMA, NOT_FOUND)
  async delete(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @StripeBody() p: StripeParams,
  ): Promise<ReturnType<typeof stripeDeletedCustomer>> {
    p.done();
    await this.customers.delete(tenantOf(key), id);
    return stripeDeletedCustomer(id);
  }
}
