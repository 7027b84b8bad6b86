import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { TIERS, type Tier } from '../principal';

export class PartnerCreateDto {
  @ApiProperty({ example: 'Acme Wealth', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiProperty({ enum: TIERS, example: 'growth' })
  @IsIn(TIERS)
  tier!: Tier;
}

export class PartnerDto {
  @ApiProperty({ example: 'ptn_3kTMd9Yc2VvR7x1QeL0sZbNa' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: TIERS }) tier!: Tier;
  @ApiProperty({ example: '2026-11-21T05:00:00.000Z' }) created_at!: string;
}

export class ClientCreatedDto {
  @ApiProperty({ example: 'client_Q2w8...' }) client_id!: string;
  @ApiProperty({ description: 'Shown once; stored only as a slow hash.' }) client_secret!: string;
  @ApiProperty() partner_id!: string;
  @ApiProperty() created_at!: string;
}

export class ClientDto {
  @ApiProperty() client_id!: string;
  @ApiProperty() partner_id!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty() created_at!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) disabled_at!: string | null;
}

export class NameDto {
  @ApiProperty({ example: 'search-backend', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name!: string;
}

export class VectorTokenDto {
  @ApiProperty({ example: 'tok_8GfK...' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() created_at!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) revoked_at!: string | null;
}

export class VectorTokenCreatedDto extends VectorTokenDto {
  @ApiProperty({ description: 'The bearer token. Shown once; stored only as SHA-256.' }) token!: string;
}

export class VectorTokenListDto {
  @ApiProperty({ type: [VectorTokenDto] }) data!: VectorTokenDto[];
}

export class PaymentAccountCreatedDto {
  @ApiProperty({ example: 'acct_1Nv0...' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'sk_test_...', description: 'Shown once; stored only as SHA-256.' }) test_key!: string;
  @ApiProperty({ example: 'sk_live_...', description: 'Shown once; stored only as SHA-256.' }) live_key!: string;
  @ApiProperty() created_at!: string;
}
