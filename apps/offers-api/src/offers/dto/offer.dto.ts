import { IsTimestamp, PageLimit } from '@app/platform';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { CURRENCIES, type Currency } from '../../common/money';
import {
  OFFER_DOCUMENT_TYPES,
  OFFER_STATUSES,
  OFFER_TYPES,
  type OfferDocumentType,
  type OfferRecord,
  type OfferStatus,
  type OfferType,
} from '../offer.types';

/** ISO 8601 with an explicit UTC offset (`Z` or `±hh:mm`): a bare local time is ambiguous. */
/** opens_at / closes_at: a time with Z or an offset, so `new Date(value)` reads it the same on any server. */
const WITH_OFFSET = { requireOffset: true } as const;
const TICKER = /^[A-Z0-9][A-Z0-9.-]{0,15}$/;
const INT32_MAX = 2_147_483_647;
/**
 * An https URL: a dotted host name, an optional port, then any path without spaces. Written so
 * no input can make it backtrack (labels are split by a literal dot), whatever its length.
 */
const HTTPS_URL = /^https:\/\/[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::\d{1,5})?(?:[/?#]\S*)?$/;
/** At most this many documents per offer: a page of links, not a data room. */
export const MAX_OFFER_DOCUMENTS = 20;

/** Decimal places of a finite number, exponent notation included (5e-324 has 324). */
export function decimalPlaces(value: number): number {
  const [mantissa = '', exponent = '0'] = value.toString().toLowerCase().split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}

/**
 * At most `places` decimal places. class-validator's `IsNumber({ maxDecimalPlaces })` throws
 * a TypeError (a 500) on a number JavaScript prints in exponent notation, e.g. 5e-324.
 */
function MaxDecimalPlaces(places: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxDecimalPlaces',
      constraints: [places],
      validator: {
        validate: (value: unknown) => typeof value === 'number' && Number.isFinite(value) && decimalPlaces(value) <= places,
        defaultMessage: (args) => `${args?.property ?? 'value'} must be a number with at most ${places} decimal places`,
      },
    },
    options,
  );
}

/** One document of an offer (platform contract: Offers, more). */
export class OfferDocumentDto {
  @ApiProperty({ enum: OFFER_DOCUMENT_TYPES }) type!: OfferDocumentType;
  @ApiProperty({ example: 'Prospectus' }) title!: string;
  @ApiProperty({ example: 'https://example.com/acme/prospectus.pdf', description: 'An https URL' }) url!: string;
}

/** A document as an admin sends it: https only, so a partner can link it from a secure page. */
export class OfferDocumentInputDto {
  @ApiProperty({ enum: OFFER_DOCUMENT_TYPES })
  @IsIn(OFFER_DOCUMENT_TYPES)
  type!: OfferDocumentType;

  @ApiProperty({ example: 'Prospectus', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiProperty({
    example: 'https://example.com/acme/prospectus.pdf',
    format: 'uri',
    maxLength: 2048,
    pattern: HTTPS_URL.source,
  })
  @IsString()
  @MaxLength(2048)
  @Matches(HTTPS_URL, { message: 'url must be an https URL (https://host/path)' })
  url!: string;
}

/** The Offer JSON (offers-distribution.md "Offer"), plus opens_at, shares_offered and "Offers, more". */
export class OfferDto {
  @ApiProperty({ example: 'offer_4fZk2QmT8xWb1nLp7yRc3sDv' }) id!: string;
  @ApiProperty({ example: 'Acme Robotics plc' }) company!: string;
  @ApiProperty({ example: 'ACME' }) ticker!: string;
  @ApiProperty({ enum: OFFER_TYPES }) type!: OfferType;
  @ApiProperty({ enum: OFFER_STATUSES }) status!: OfferStatus;
  @ApiProperty({ example: 2.5, description: 'Decimal, major units of the offer currency' }) price_per_share!: number;
  @ApiProperty({ enum: CURRENCIES }) currency!: Currency;
  @ApiProperty({
    example: 250,
    description: 'Decimal, major units; an indication amount must be at least this × 100 minor units',
  })
  minimum_investment!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 50_000,
    description: 'Decimal, major units, or null (no maximum); an indication amount must be at most this × 100 minor units',
  })
  maximum_investment!: number | null;
  @ApiProperty({ format: 'date-time', example: '2026-12-01T08:00:00.000Z' }) opens_at!: string;
  @ApiProperty({ format: 'date-time', example: '2026-12-08T16:30:00.000Z' }) closes_at!: string;
  @ApiProperty({ type: 'integer', example: 40_000_000 }) shares_offered!: number;
  @ApiProperty({ type: [OfferDocumentDto] }) documents!: OfferDocumentDto[];
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-20T10:00:00.000Z',
    description: 'When the offer last changed (any field, status included): the key of modified_after',
  })
  updated_at!: string;
}

/** An offer as the API answers it (and as offer.* events carry it). */
export function offerView(o: OfferRecord): OfferDto {
  return {
    id: o.id,
    company: o.company,
    ticker: o.ticker,
    type: o.type,
    status: o.status,
    price_per_share: Number(o.pricePerShare),
    currency: o.currency,
    minimum_investment: Number(o.minimumInvestment),
    maximum_investment: o.maximumInvestment === null ? null : Number(o.maximumInvestment),
    opens_at: o.opensAt.toISOString(),
    closes_at: o.closesAt.toISOString(),
    shares_offered: o.sharesOffered,
    documents: o.documents.map((d) => ({ type: d.type, title: d.title, url: d.url })),
    updated_at: o.updatedAt.toISOString(),
  };
}

export class OfferListDto {
  @ApiProperty({ type: [OfferDto] }) offers!: OfferDto[];
  @ApiProperty({ type: 'integer', description: 'Offers matching the filter, over all pages' }) total!: number;
  @ApiProperty({ type: 'integer', description: 'The page returned, 1-based' }) page!: number;
}

/** GET /api/v1/offers query (platform contract: page 1-based, limit default 20, max 100). */
export class OfferListQueryDto {
  @ApiPropertyOptional({ enum: OFFER_STATUSES, description: 'Default: live and upcoming' })
  @IsOptional()
  @IsIn(OFFER_STATUSES)
  status?: OfferStatus;

  @ApiPropertyOptional({ enum: OFFER_TYPES })
  @IsOptional()
  @IsIn(OFFER_TYPES)
  type?: OfferType;

  @ApiPropertyOptional({
    example: '2026-12-01T08:00:00Z',
    description:
      'Incremental sync: offers of any status (unless status is given) whose updated_at is later than this, oldest change first',
  })
  @IsOptional()
  @IsString()
  @IsTimestamp(WITH_OFFSET)
  modified_after?: string;

  @PageLimit(20)
  limit: number = 20;

  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;
}

/** POST /admin/v1/offers. Status is derived from opens_at / closes_at and the clock. */
export class OfferCreateDto {
  @ApiProperty({ example: 'Acme Robotics plc' })
  @IsString()
  @Length(1, 200)
  company!: string;

  @ApiProperty({ example: 'ACME', pattern: TICKER.source })
  @IsString()
  @Matches(TICKER, { message: 'ticker must be 1-16 characters of A-Z, 0-9, "." and "-"' })
  ticker!: string;

  @ApiProperty({ enum: OFFER_TYPES })
  @IsIn(OFFER_TYPES)
  type!: OfferType;

  @ApiProperty({ example: 2.5, description: 'Major units, at most 4 decimal places' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @MaxDecimalPlaces(4)
  @IsPositive()
  @Max(1_000_000)
  price_per_share!: number;

  @ApiProperty({ enum: CURRENCIES })
  @IsIn(CURRENCIES)
  currency!: Currency;

  @ApiProperty({ example: 250, description: 'Major units, at most 2 decimal places, at least price_per_share' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @MaxDecimalPlaces(2)
  @IsPositive()
  @Max(10_000_000)
  minimum_investment!: number;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 50_000,
    description: 'Major units, at most 2 decimal places, at least minimum_investment; null or absent: no maximum',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @MaxDecimalPlaces(2)
  @IsPositive()
  @Max(10_000_000)
  maximum_investment?: number | null;

  @ApiPropertyOptional({ type: [OfferDocumentInputDto], maxItems: MAX_OFFER_DOCUMENTS, description: 'Replaces the whole list' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_OFFER_DOCUMENTS)
  @ValidateNested({ each: true })
  @Type(() => OfferDocumentInputDto)
  documents?: OfferDocumentInputDto[];

  @ApiProperty({ example: '2026-12-01T08:00:00Z' })
  @IsString()
  @IsTimestamp(WITH_OFFSET)
  opens_at!: string;

  @ApiProperty({ example: '2026-12-08T16:30:00Z' })
  @IsString()
  @IsTimestamp(WITH_OFFSET)
  closes_at!: string;

  @ApiProperty({ example: 40_000_000 })
  @IsInt()
  @Min(1)
  @Max(INT32_MAX)
  shares_offered!: number;
}

/** PATCH /admin/v1/offers/{id}: any subset; closed offers cannot change. */
export class OfferUpdateDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 200)
  company?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Matches(TICKER, { message: 'ticker must be 1-16 characters of A-Z, 0-9, "." and "-"' })
  ticker?: string;

  @ApiPropertyOptional({ enum: OFFER_TYPES })
  @IsOptional()
  @IsIn(OFFER_TYPES)
  type?: OfferType;

  @ApiPropertyOptional()
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @MaxDecimalPlaces(4)
  @IsPositive()
  @Max(1_000_000)
  price_per_share?: number;

  @ApiPropertyOptional({ enum: CURRENCIES })
  @IsOptional()
  @IsIn(CURRENCIES)
  currency?: Currency;

  @ApiPropertyOptional()
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @MaxDecimalPlaces(2)
  @IsPositive()
  @Max(10_000_000)
  minimum_investment?: number;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 50_000,
    description: 'Major units, at most 2 decimal places, at least minimum_investment; null removes the maximum',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @MaxDecimalPlaces(2)
  @IsPositive()
  @Max(10_000_000)
  maximum_investment?: number | null;

  @ApiPropertyOptional({ type: [OfferDocumentInputDto], maxItems: MAX_OFFER_DOCUMENTS, description: 'Replaces the whole list' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_OFFER_DOCUMENTS)
  @ValidateNested({ each: true })
  @Type(() => OfferDocumentInputDto)
  documents?: OfferDocumentInputDto[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsTimestamp(WITH_OFFSET)
  opens_at?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsTimestamp(WITH_OFFSET)
  closes_at?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(INT32_MAX)
  shares_offered?: number;
}

export class AgreementDto {
  @ApiProperty() partner_id!: string;
  @ApiProperty() offer_id!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}
