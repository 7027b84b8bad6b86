import { Injectable } from '@nestjs/common';
import { Clock, newId, NotFoundError, TransactionRunner, type IdempotentRequest } from '@app/platform';
import { type ListEnvelope, page, resolvePage } from '../common/list';
import type { Metadata } from '../common/metadata';
import type { Tenant } from '../common/tenant';
import { CustomersRepository } from './customers.repository';
import type { CustomerCreateDto, CustomerListQuery, CustomerUpdateDto } from './dto/customer.dto';
import {
  type CustomerListView,
  type CustomerView,
  customerView,
  type DeletedCustomerView,
  deletedCustomerView,
} from './dto/customer.view';

@Injectable()
export class CustomersService {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, dto: CustomerCreateDto, idempotency?: IdempotentRequest): Promise<CustomerView> {
    // The view is the transaction's result: under an Idempotency-Key it is the stored response.
    return this.transactions.run(
      async (tx) => {
        const row = await this.customers.create(tx, tenant, {
          id: newId('cus'),
          ...(dto.email === undefined ? {} : { email: dto.email }),
          ...(dto.name === undefined ? {} : { name: dto.name }),
          ...(dto.description === undefined ? {} : { description: dto.description }),
          metadata: dto.metadata ?? {},
        });
        return customerView(row);
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
    const current = await this.customers.findActive(tenant, id);
    if (!current) throw new NotFoundError('customer', id, 'id');
    let metadata: Metadata | undefined;
    // `metadata: null` passes @IsOptional: like Stripe's empty metadata, it removes every key.
    if ((dto.metadata as Metadata | null | undefined) === null) {
      metadata = {};
    } else if (dto.metadata !== undefined) {
      metadata = { ...(current.metadata as Metadata) };
      for (const [k, v] of Object.entries(dto.metadata)) {
        if (v === '') delete metadata[k];
        else metadata[k] = v;
      }
    }
    const changes = {
      ...(dto.email === undefined ? {} : { email: dto.email }),
      ...(dto.name === undefined ? {} : { name: dto.name }),
      ...(dto.description === undefined ? {} : { description: dto.description }),
      ...(metadata === undefined ? {} : { metadata }),
    };
    return this.transactions.run(
      async (tx) => {
        const row = await this.customers.update(tx, tenant, id, changes);
        if (!row) throw new NotFoundError('customer', id, 'id');
        return customerView(row);
      },
      { completion: idempotency?.completion() },
    );
  }

  delete(tenant: Tenant, id: string, idempotency?: IdempotentRequest): Promise<DeletedCustomerView> {
    return this.transactions.run(
      async (tx) => {
        if (!(await this.customers.markDeleted(tx, tenant, id, this.clock.now()))) throw new NotFoundError('customer', id, 'id');
        return deletedCustomerView(id);
      },
      { completion: idempotency?.completion() },
    );
  }
}
