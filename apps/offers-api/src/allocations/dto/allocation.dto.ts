import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { CURRENCIES, type Currency } from '../../common/money';
import { ALLOCATION_POLICIES, type AllocationPolicy } from '../allocation';
import type { AllocationRecord } from '../allocation.types';

/** POST /admin/v1/offers/{id}/allocations (platform contract: Offers service decisions, Allocation). */
export class AllocationRunDto {
  @ApiProperty({ example: 1_000_000, description: 'Whole shares to allocate; at most shares_offered' })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  shares_available!: number;

  @ApiProperty({ enum: ALLOCATION_POLICIES })
  @IsIn(ALLOCATION_POLICIES)
  policy!: AllocationPolicy;

  @ApiPropertyOptional({ description: 'min_then_pro_rata only (required there): shares every applicant gets first' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  minimum_allocation_shares?: number;
}

/** An allocation: the Allocation fields of the interface document plus what was asked and refunded. */
export class AllocationDto {
  @ApiProperty({ example: 'alloc_...' }) id!: string;
  @ApiProperty() indication_id!: string;
  @ApiProperty() investor_id!: string;
  @ApiProperty() offer_id!: string;
  @ApiProperty({ type: 'integer' }) shares_allocated!: number;
  @ApiProperty({ description: 'shares_allocated × price_per_share, decimal, major units' }) amount_allocated!: number;
  @ApiProperty({ enum: CURRENCIES }) currency!: Currency;
  @ApiProperty({ type: 'integer' }) shares_requested!: number;
  @ApiProperty({ type: 'integer', description: 'The indication amount, minor units' }) amount_requested!: number;
  @ApiProperty({ type: 'integer', description: 'amount_requested − amount_allocated, minor units' }) amount_refunded!: number;
  @ApiProperty({ description: 'shares_allocated / shares_requested (1 = filled in full)' }) scaling_factor!: number;
  @ApiProperty({ enum: ALLOCATION_POLICIES, description: 'The allocation method' }) method!: AllocationPolicy;
  @ApiProperty({ enum: ['confirmed', 'scaled'] }) outcome!: 'confirmed' | 'scaled';
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export const allocationView = (a: AllocationRecord): AllocationDto => ({
  id: a.id,
  indication_id: a.indicationId,
  investor_id: a.investorId,
  offer_id: a.offerId,
  shares_allocated: a.sharesAllocated,
  amount_allocated: Number(a.amountAllocated),
  currency: a.currency,
  shares_requested: a.sharesRequested,
  amount_requested: a.amountRequested,
  amount_refunded: a.amountRefunded,
  scaling_factor: Number(a.scalingFactor),
  method: a.method,
  outcome: a.sharesAllocated === a.sharesRequested ? 'confirmed' : 'scaled',
  created_at: a.createdAt.toISOString(),
});

/** The data of allocation.confirmed / allocation.scaled: the Allocation fields of the interface document, plus amount_requested and scaling_factor. */
export class AllocationEventData {
  @ApiProperty() investor_id!: string;
  @ApiProperty() offer_id!: string;
  @ApiProperty({ type: 'integer' }) shares_allocated!: number;
  @ApiProperty({ description: 'shares_allocated × price_per_share, decimal, major units' }) amount_allocated!: number;
  @ApiProperty({ enum: CURRENCIES }) currency!: Currency;
  @ApiProperty({ type: 'integer', description: 'The indication amount, minor units' }) amount_requested!: number;
  @ApiProperty({ description: 'shares_allocated / shares_requested (1 = filled in full)' }) scaling_factor!: number;
  @ApiProperty() indication_id!: string;
  @ApiProperty() allocation_id!: string;
}

export const allocationEventData = (a: AllocationRecord): AllocationEventData => ({
  investor_id: a.investorId,
  offer_id: a.offerId,
  shares_allocated: a.sharesAllocated,
  amount_allocated: Number(a.amountAllocated),
  currency: a.currency,
  amount_requested: a.amountRequested,
  scaling_factor: Number(a.scalingFactor),
  indication_id: a.indicationId,
  allocation_id: a.id,
});

export class AllocationListDto {
  @ApiProperty({ type: [AllocationDto] }) allocations!: AllocationDto[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class AllocationRunResultDto {
  @ApiProperty() offer_id!: string;
  @ApiProperty({ enum: ALLOCATION_POLICIES }) policy!: AllocationPolicy;
  @ApiProperty({ type: 'integer' }) shares_available!: number;
  @ApiProperty({ type: 'integer' }) shares_requested!: number;
  @ApiProperty({ type: 'integer' }) shares_allocated!: number;
  @ApiProperty({ type: [AllocationDto] }) allocations!: AllocationDto[];
}
