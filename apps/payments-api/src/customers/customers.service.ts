import { Injectable } from '@nestjs/common';
import { Clock, newId, NotFoundError } from '@app/platform';
import { type ListEnvelope, page, resolvePage } from '../common/list';
import type { Metadata } from '../common/metadata';
import type { Tenant } from '../common/tenant';
import type { CustomerListView, CustomerView, DeletedCustomerView } from '../common/views';
import { type CustomerRow, CustomersRepository } from './customers.repository';
import type { CustomerCreateDto, CustomerListQuery, CustomerUpdateDto } from './dto/customer.dto';

export function customerView(row: CustomerRow): CustomerView {
  return {
    id: row.id,
    object: 'customer',
    email: row.email,
    name: row.name,
    description: row.description,
    metadata: row.metadata as Metadata,
    livemode: row.mode === 'live',
    created: row.createdAt.toISOString(),
  };
}

@Injectable()
export class CustomersService {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly clock: Clock,
  ) {}

  async create(tenant: Tenant, dto: CustomerCreateDto): Promise<CustomerView> {
    const row = await this.customers.create(tenant, {
      id: newId('cus'),
      ...(dto.email === undefined ? {} : { email: dto.email }),
      ...(dto.name === undefined ? {} : { name: dto.name }),
      ...(dto.description === undefined ? {} : { description: dto.description }),
      metadata: dto.metadata ?? {},
    });
    return customerView(row);
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

  async update(tenant: Tenant, id: string, dto: CustomerUpdateDto): Promise<CustomerView> {
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
    const row = await this.customers.update(tenant, id, {
      ...(dto.email === undefined ? {} : { email: dto.email }),
      ...(dto.name === undefined ? {} : { name: dto.name }),
      ...(dto.description === undefined ? {} : { description: dto.description }),
      ...(metadata === undefined ? {} : { metadata }),
    });
    if (!row) throw new NotFoundError('customer', id, 'id');
    return customerView(row);
  }

  async delete(tenant: Tenant, id: string): Promise<DeletedCustomerView> {
    if (!(await this.customers.markDeleted(tenant, id, this.clock.now()))) throw new NotFoundError('customer', id, 'id');
    return { id, object: 'customer', deleted: true };
  }
}
