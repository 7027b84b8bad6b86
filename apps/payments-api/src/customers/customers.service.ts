import { Injectable } from '@nestjs/common';
import { Clock, newId, NotFoundError, TransactionRunner, type IdempotentRequest } from '@app/platform';
import { PaymentEvents } from '../common/events';
import { type ListEnvelope, page, resolvePage } from '../common/list';
import { stripeCustomer } from '../compat/stripe/stripe-objects';
import { type Metadata, mergeMetadata, tooManyKeys } from '../common/metadata';
import type { Tenant } from '../common/tenant';
import { type CustomerRow, CustomersRepository } from './customers.repository';
import type { CustomerCreateDto, CustomerListQuery, CustomerUpdateDto } from './dto/customer.dto';
import {
  type CustomerListView,
  type CustomerView,
  customerView,
  type DeletedCustomerView,
  deletedCustomerView,
} from './dto/customer.view';

/** What an update may change: `/v2`'s body, or `/v1`'s, where null unsets a field (Stripe's `""`). */
export interface CustomerChangeSet {
  readonly email?: string | null;
  readonly name?: string | null;
  readonly description?: string | null;
  readonly metadata?: Readonly<Record<string, string>> | null;
}

@Injectable()
export class CustomersService {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly events: PaymentEvents,
  ) {}

  /**
   * Creates the customer (both APIs: `/v2` answers the CustomerView, `/v1` its Stripe shape,
   * through `idempotency.presentedAs`). The event `customer.created` (`/v1` only: `/v2` has no
   * customer events) commits with it.
   */
  create(tenant: Tenant, dto: CustomerCreateDto, idempotency?: IdempotentRequest): Promise<CustomerView> {
    return this.createRow(tenant, dto, idempotency?.presentedAs<CustomerRow>(customerView)).then(customerView);
  }

  /** create, answering the row (for `/v1`, which shows it in Stripe's shape); `idempotency` stores what the route answers (presentedAs). */
  createRow(tenant: Tenant, dto: CustomerCreateDto, idempotency?: IdempotentRequest): Promise<CustomerRow> {
    // The row is the transaction's result: under an Idempotency-Key its view is the stored response.
    return this.transactions.run(
      async (tx, closing) => {
        const row = await this.customers.create(tx, tenant, {
          id: newId('cus'),
          ...(dto.email === undefined ? {} : { email: dto.email }),
          ...(dto.name === undefined ? {} : { name: dto.name }),
          ...(dto.description === undefined ? {} : { description: dto.description }),
          metadata: dto.metadata ?? {},
        });
        this.events.emitStripe(closing, tenant, { type: 'customer.created', object: stripeCustomer(row) });
        return row;
      },
      { completion: idempotency?.completion() },
    );
  }

  async retrieve(tenant: Tenant, id: string): Promise<CustomerView> {
    const row = await this.customers.findActive(tenant, id);
    if (!row) throw new NotFoundError('customer', id, 'id');
    return customerView(row);
  }

  async list(tenant: Tenant, query: CustomerListQuery): Promise<ListEnvelope<CustomerView>> {
    const request = await resolvePage(query, 'customer', (id) => this.customers.cursor(tenant, id));
    const rows = await this.customers.list(tenant, request, query.email);
    return page(rows, request, '/v2/customers', customerView) satisfies CustomerListView;
  }

  async update(tenant: Tenant, id: string, dto: CustomerUpdateDto, idempotency?: IdempotentRequest): Promise<CustomerView> {
    return customerView(await this.updateRow(tenant, id, dto, idempotency?.presentedAs<CustomerRow>(customerView)));
  }

  /**
   * update, answering the row. `customer.updated` (with the changed fields' earlier values as
   * previous_attributes) commits with the change; an update that changes nothing fires none.
   */
  async updateRow(tenant: Tenant, id: string, dto: CustomerChangeSet, idempotency?: IdempotentRequest): Promise<CustomerRow> {
    const current = await this.customers.findActive(tenant, id);
    if (!current) throw new NotFoundError('customer', id, 'id');
    let metadata: Metadata | undefined;
    // `metadata: null` passes @IsOptional: like Stripe's empty metadata, it removes every key.
    if (dto.metadata === null) {
      metadata = {};
    } else if (dto.metadata !== undefined) {
      const merged = mergeMetadata(current.metadata as Metadata, dto.metadata);
      if (merged === false) throw tooManyKeys();
      metadata = merged;
    }
    const changes = {
      ...(dto.email === undefined ? {} : { email: dto.email }),
      ...(dto.name === undefined ? {} : { name: dto.name }),
      ...(dto.description === undefined ? {} : { description: dto.description }),
      ...(metadata === undefined ? {} : { metadata }),
    };
    return this.transactions.run(
      async (tx, closing) => {
        const row = await this.customers.update(tx, tenant, id, changes);
        if (!row) throw new NotFoundError('customer', id, 'id');
        const before = stripeCustomer(current);
        const after = stripeCustomer(row);
        const previous = Object.fromEntries(
          Object.keys(after).flatMap((k) => (JSON.stringify(before[k]) === JSON.stringify(after[k]) ? [] : [[k, before[k]]])),
        );
        if (Object.keys(previous).length > 0) {
          this.events.emitStripe(closing, tenant, { type: 'customer.updated', object: after, previousAttributes: previous });
        }
        return row;
      },
      { completion: idempotency?.completion() },
    );
  }

  delete(tenant: Tenant, id: string, idempotency?: IdempotentRequest): Promise<DeletedCustomerView> {
    return this.transactions.run(
      async (tx, closing) => {
        const current = await this.customers.findActive(tenant, id);
        if (!current || !(await this.customers.markDeleted(tx, tenant, id, this.clock.now()))) {
          throw new NotFoundError('customer', id, 'id');
        }
        this.events.emitStripe(closing, tenant, {
          type: 'customer.deleted',
          object: { ...stripeCustomer(current), deleted: true },
        });
        return deletedCustomerView(id);
      },
      { completion: idempotency?.completion() },
    );
  }
}
