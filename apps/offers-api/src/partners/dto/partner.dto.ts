import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { TIERS, type Tier } from '../partner-tier';
import type { ClientRecord, PartnerListRecord, PartnerRecord } from '../partners.repository';
import { IsDisplayName, NamePrefix, PageLimit } from '@app/platform';

export class PartnerCreateDto {
  @ApiProperty({ example: 'Acme Wealth', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsDisplayName()
  name!: string;

  @ApiProperty({ enum: TIERS, example: 'growth' })
  @IsIn(TIERS)
  tier!: Tier;
}

export class PartnerDto {
  @ApiProperty({ example: 'ptn_3kTMd9Yc2VvR7x1QeL0sZbNa' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: TIERS }) tier!: Tier;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T05:00:00.000Z' }) created_at!: string;
}

/** GET /admin/v1/partners: newest first, cursor paging, an optional name prefix. */
export class PartnerListQueryDto {
  @PageLimit(10)
  limit: number = 10;

  @ApiPropertyOptional({
    description: 'A partner id: the partners after it in this order (the next page)',
    example: 'ptn_3kTMd9Yc2VvR7x1QeL0sZbNa',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  starting_after?: string;

  @NamePrefix('demo')
  name_prefix?: string;
}

export class PartnerCountsDto {
  @ApiProperty({
    type: 'integer',
    example: 12,
    description: "Offers in the partner's distribution agreement, whatever their status (the offers it may list and indicate on)",
  })
  offers_in_agreement!: number;

  @ApiProperty({ type: 'integer', example: 2, description: 'OAuth clients that work (not disabled or deleted)' })
  active_clients!: number;
}

export class PartnerListItemDto extends PartnerDto {
  @ApiProperty({ type: PartnerCountsDto, description: 'Counted when the page is read' }) counts!: PartnerCountsDto;
}

export class PartnerListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [PartnerListItemDto], description: 'Newest first (created_at, then id, descending)' })
  data!: PartnerListItemDto[];
  @ApiProperty({ description: 'More partners follow: pass the last id as `starting_after`' }) has_more!: boolean;
}

export class ClientCreatedDto {
  @ApiProperty({ example: 'client_Q2w8...' }) client_id!: string;
  @ApiProperty({ description: 'Shown once; stored only as a slow hash.' }) client_secret!: string;
  @ApiProperty() partner_id!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ClientDto {
  @ApiProperty() client_id!: string;
  @ApiProperty() partner_id!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) disabled_at!: string | null;
}

export function toPartnerDto(p: PartnerRecord): PartnerDto {
  return { id: p.id, name: p.name, tier: p.tier, created_at: p.createdAt.toISOString() };
}

export function toPartnerListItemDto(p: PartnerListRecord): PartnerListItemDto {
  return {
    ...toPartnerDto(p),
    counts: { offers_in_agreement: p.offersInAgreement, active_clients: p.activeClients },
  };
}

/** The new client with its secret: the only time the secret is ever returned. */
export function toClientCreatedDto(client: ClientRecord, secret: string): ClientCreatedDto {
  return {
    client_id: client.id,
    client_secret: secret,
    partner_id: client.partnerId,
    created_at: client.createdAt.toISOString(),
  };
}

export function toClientDto(client: ClientRecord): ClientDto {
  return {
    client_id: client.id,
    partner_id: client.partnerId,
    active: client.active,
    created_at: client.createdAt.toISOString(),
    disabled_at: client.disabledAt?.toISOString() ?? null,
  };
}
