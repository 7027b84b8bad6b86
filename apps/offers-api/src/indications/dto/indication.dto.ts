import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { CURRENCIES, type Currency } from '../../common/money';
import { INDICATION_STATUSES, type IndicationRecord, type IndicationStatus } from '../indication.types';

/** The partner's own investor id: `inv_` + 1-124 of A-Z a-z 0-9 . _ - (offers-distribution.md). */
export const INVESTOR_ID = /^inv_[A-Za-z0-9._-]{1,124}$/;

/** POST /api/v1/offers/{offer_id}/indications (offers-distribution.md "Indication (request)"). */
export class IndicationCreateDto {
  @ApiProperty({ example: 'inv_8842', pattern: INVESTOR_ID.source })
  @IsString()
  @Matches(INVESTOR_ID, { message: 'investor_id must look like inv_<characters> (A-Z a-z 0-9 . _ -, at most 128 in all)' })
  investor_id!: string;

  @ApiProperty({ example: 100_000, description: 'Gross amount in minor units (pence, cents); at least minimum_investment × 100' })
  @IsInt({ message: 'amount must be an integer number of minor currency units' })
  @Min(1)
  @Max(2_147_483_647)
  amount!: number;

  @ApiProperty({ enum: CURRENCIES, description: "Lowercase; must be the offer's currency" })
  @IsIn(CURRENCIES, { message: 'currency must be one of: gbp, eur (lowercase)' })
  currency!: Currency;

  @ApiProperty({ example: true, description: 'Must be true' })
  @IsBoolean()
  terms_accepted!: boolean;

  @ApiProperty({ example: '2026-11-01', description: 'The version from GET /api/v1/terms' })
  @IsString()
  @Length(1, 64)
  terms_version!: string;
}

/** PATCH /api/v1/offers/{offer_id}/indications/{id} (platform contract: Offers, more): the new amount. */
export class IndicationUpdateDto {
  @ApiProperty({
    example: 150_000,
    description: 'The new gross amount in minor units; the same rules as on submit (minimum and maximum investment)',
  })
  @IsInt({ message: 'amount must be an integer number of minor currency units' })
  @Min(1)
  @Max(2_147_483_647)
  amount!: number;
}

/** The stored indication (platform contract: Offers service decisions). */
export class IndicationDto {
  @ApiProperty({ example: 'ind_Zq81...' }) id!: string;
  @ApiProperty() offer_id!: string;
  @ApiProperty() investor_id!: string;
  @ApiProperty({ type: 'integer', description: 'Minor units' }) amount!: number;
  @ApiProperty({ enum: CURRENCIES }) currency!: Currency;
  @ApiProperty() terms_version!: string;
  @ApiProperty({ enum: INDICATION_STATUSES }) status!: IndicationStatus;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

/** An indication as the API answers it (and as indication.received carries it). */
export const indicationView = (i: IndicationRecord): IndicationDto => ({
  id: i.id,
  offer_id: i.offerId,
  investor_id: i.investorId,
  amount: i.amount,
  currency: i.currency,
  terms_version: i.termsVersion,
  status: i.status,
  created_at: i.createdAt.toISOString(),
});

export class IndicationListDto {
  @ApiProperty({ type: [IndicationDto] }) indications!: IndicationDto[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

/** The data of indication.updated: the indication after the change, and the amount before it. */
export class IndicationUpdatedEventData extends IndicationDto {
  @ApiProperty({ type: 'integer', description: 'The amount before this change, minor units' }) previous_amount!: number;
}

export const indicationUpdatedEventData = (i: IndicationRecord, previousAmount: number): IndicationUpdatedEventData => ({
  ...indicationView(i),
  previous_amount: previousAmount,
});
