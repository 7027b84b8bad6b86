import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { IsDisplayName, NamePrefix, PageLimit } from '@app/platform';
import type { PaymentAccountListRecord } from '../payment-accounts.repository';

/** The body of POST /admin/v1/accounts. */
export class NameDto {
  @ApiProperty({ example: 'search-backend', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsDisplayName()
  name!: string;
}

export class PaymentAccountCreatedDto {
  @ApiProperty({ example: 'acct_1Nv0...' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'sk_test_...', description: 'Shown once; stored only as SHA-256.' }) test_key!: string;
  @ApiProperty({ example: 'sk_live_...', description: 'Shown once; stored only as SHA-256.' }) live_key!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

/** GET /admin/v1/accounts: newest first, cursor paging both ways (as every payments list), an optional name prefix. */
export class PaymentAccountListQueryDto {
  @PageLimit(10)
  limit: number = 10;

  @ApiPropertyOptional({
    description: 'An account id: the accounts after it in this order (the next page)',
    example: 'acct_7bWq2mZx9Lc4Vd1NpT8kRs3Y',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  starting_after?: string;

  @ApiPropertyOptional({
    description: 'An account id: the accounts before it in this order (the previous page)',
    example: 'acct_7bWq2mZx9Lc4Vd1NpT8kRs3Y',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  ending_before?: string;

  @NamePrefix('demo')
  name_prefix?: string;
}

export class PaymentAccountCountsDto {
  @ApiProperty({
    type: 'integer',
    example: 1,
    description: 'Test-mode API keys (secret and restricted) that still work: not revoked, not past their expiry',
  })
  test_api_keys!: number;

  @ApiProperty({ type: 'integer', example: 2, description: 'Live-mode API keys that still work, the same way' })
  live_api_keys!: number;
}

export class PaymentAccountDto {
  @ApiProperty({ example: 'acct_7bWq2mZx9Lc4Vd1NpT8kRs3Y' }) id!: string;
  @ApiProperty({ example: 'Demo Shop' }) name!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T05:00:00.000Z' }) created_at!: string;
  @ApiProperty({ type: PaymentAccountCountsDto, description: 'Counted when the page is read' })
  counts!: PaymentAccountCountsDto;
}

export class PaymentAccountListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [PaymentAccountDto], description: 'Newest first (created_at, then id, descending)' })
  data!: PaymentAccountDto[];
  @ApiProperty({
    description:
      'More accounts follow in the direction read: pass the last id as `starting_after` (or, paging back with `ending_before`, the first id as `ending_before`)',
  })
  has_more!: boolean;
  @ApiProperty({ example: '/admin/v1/accounts' }) url!: string;
}

export function toPaymentAccountDto(a: PaymentAccountListRecord): PaymentAccountDto {
  return {
    id: a.id,
    name: a.name,
    created_at: a.createdAt.toISOString(),
    counts: { test_api_keys: a.testApiKeys, live_api_keys: a.liveApiKeys },
  };
}
