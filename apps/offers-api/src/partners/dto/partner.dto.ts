import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { TIERS, type Tier } from '../partner-tier';
import type { ClientRecord, PartnerRecord } from '../partners.repository';
import { IsDisplayName } from '@app/platform';

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
