import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageLimit } from '@app/platform';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { INVESTOR_ID } from '../../indications/dto/indication.dto';
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

/** GET /api/v1/allocations (platform contract: Offers, more): newest first, cursor paging. */
export class AllocationPageQueryDto {
  @PageLimit(10)
  limit: number = 10;

  @ApiPropertyOptional({ description: 'An allocation id of yours: the allocations after it in this order (the next page)' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  starting_after?: string;

  @ApiPropertyOptional({ description: 'Only allocations on this offer' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  offer_id?: string;

  @ApiPropertyOptional({ description: 'Only allocations of this investor of yours', pattern: INVESTOR_ID.source })
  @IsOptional()
  @IsString()
  @Matches(INVESTOR_ID, { message: 'investor_id must look like inv_<characters> (A-Z a-z 0-9 . _ -, at most 128 in all)' })
  investor_id?: string;
}

/** A page of allocations across the partner's offers. */
export class AllocationPageDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [AllocationDto], description: 'Newest first (created_at, then id, descending)' }) data!: AllocationDto[];
  @ApiProperty({ description: 'Whether more allocations follow the last one of data' }) has_more!: boolean;
}
