import type { CustomerRow, CustomersRepository } from '../../customers/customers.repository';
import type { Tenant } from '../../common/tenant';
import type { ExpandResolver } from './stripe-expand';
import type { Metadata } from '../../common/metadata';
import { unix } from './stripe-list';

/** A customer as Stripe's `/v1` shows it (the fields this API has; the rest at Stripe's defaults). */
export interface StripeCustomer {
  readonly [field: string]: unknown;
  readonly id: string;
  readonly object: 'customer';
  readonly created: number;
  readonly description: string | null;
  readonly email: string | null;
  readonly livemode: boolean;
  readonly metadata: Metadata;
  readonly name: string | null;
}

export function stripeCustomer(row: CustomerRow): StripeCustomer {
  return {
    id: row.id,
    object: 'customer',
    address: null,
    balance: 0,
    created: unix(row.createdAt),
    currency: null,
    default_source: null,
    delinquent: false,
    description: row.description,
    discount: null,
    email: row.email,
    invoice_prefix: null,
    livemode: row.mode === 'live',
    metadata: row.metadata as Metadata,
    name: row.name,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

/** `expand[]=customer` (and `data.customer`): the tenant's live customers in Stripe's shape; another id stays an id. */
export function customerResolver(customers: Pick<CustomersRepository, 'findMany'>, tenant: Tenant): ExpandResolver {
  return async (ids) => {
    const rows = await customers.findMany(tenant, ids);
    return new Map(rows.map((r) => [r.id, stripeCustomer(r)]));
  };
}

/** A deleted customer, as Stripe answers its delete and a retrieve afterwards. */
export function stripeDeletedCustomer(id: string): { id: string; object: 'customer'; deleted: true } {
  return { id, object: 'customer', deleted: true };
}

export const STRIPE_CUSTOMER_SCHEMA = {
  type: 'object',
  description: "Stripe's Customer (docs/stripe.md): the fields this API keeps, the others at Stripe's defaults",
  required: ['id', 'object', 'created', 'livemode', 'metadata'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['customer'] },
    created: { type: 'integer', description: 'Unix seconds' },
    description: { type: 'string', nullable: true },
    email: { type: 'string', nullable: true },
    name: { type: 'string', nullable: true },
    livemode: { type: 'boolean' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    deleted: { type: 'boolean', description: 'true on a deleted customer (then only id and object)' },
  },
} as const;
