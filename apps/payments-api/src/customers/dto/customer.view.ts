import { ApiProperty } from '@nestjs/swagger';
import type { Metadata } from '../../common/metadata';
import type { CustomerRow } from '../customers.repository';

/** Response shapes (Stripe-like). Timestamps are ISO 8601 UTC. */
export class CustomerView {
  @ApiProperty({ example: 'cus_Nv0rWm6Qx2...' }) id!: string;
  @ApiProperty({ enum: ['customer'] }) object!: 'customer';
  @ApiProperty({ nullable: true, type: String, format: 'email' }) email!: string | null;
  @ApiProperty({ nullable: true, type: String }) name!: string | null;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ description: 'false for test mode' }) livemode!: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T05:00:00.000Z' }) created!: string;
}

export class DeletedCustomerView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['customer'] }) object!: 'customer';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class CustomerListView {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [CustomerView] }) data!: CustomerView[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ example: '/v2/customers' }) url!: string;
}

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

export function deletedCustomerView(id: string): DeletedCustomerView {
  return { id, object: 'customer', deleted: true };
}
