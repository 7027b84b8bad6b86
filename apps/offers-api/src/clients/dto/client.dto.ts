import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EmptyBodyAllowed, IsDisplayName } from '@app/platform';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import type { ClientRecord } from '../../partners/partners.repository';

/** Longest client name. */
export const CLIENT_NAME_MAX = 100;
/** Longest grace period of a rotated-out secret (a week, as payments' key roll). */
export const ROTATION_GRACE_MAX_HOURS = 168;

/** The body of POST /api/v1/clients. */
export class OAuthClientCreateDto {
  @ApiProperty({ example: 'reporting-backend', minLength: 1, maxLength: CLIENT_NAME_MAX })
  @IsString()
  @Length(1, CLIENT_NAME_MAX)
  @IsDisplayName()
  name!: string;
}

/** The body of POST /api/v1/clients/{id}/rotate-secret (optional). */
@EmptyBodyAllowed()
export class OAuthClientRotateSecretDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: ROTATION_GRACE_MAX_HOURS,
    default: 0,
    description: 'How long the old secret keeps working, in hours; 0 (the default): it stops at once',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ROTATION_GRACE_MAX_HOURS)
  expires_in_hours?: number;
}

/** One of the partner's OAuth clients: never its secret. */
export class OAuthClientDto {
  @ApiProperty({ example: 'client_7Tq2mZx9Lc4Vb1nRt8pKw3Yd' }) client_id!: string;
  @ApiProperty({ example: 'reporting-backend', description: 'Clients created by the operator are named `default`' })
  name!: string;
  @ApiProperty({ description: 'Always true in the list: a deleted client is gone from it' }) active!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Until when the secret replaced by the last rotation still works; null when it does not',
  })
  previous_secret_expires_at!: string | null;
}

export class OAuthClientListDto {
  @ApiProperty({ type: [OAuthClientDto], description: "The partner's clients that work, oldest first" }) data!: OAuthClientDto[];
}

/** POST /api/v1/clients: the new client with its secret, shown this once. */
export class OAuthClientCreatedDto {
  @ApiProperty({ example: 'client_7Tq2mZx9Lc4Vb1nRt8pKw3Yd' }) client_id!: string;
  @ApiProperty({ description: 'cs_…; shown once, stored only as a slow salted hash' }) client_secret!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

/** POST /api/v1/clients/{id}/rotate-secret: the new secret, shown this once. */
export class OAuthClientSecretRotatedDto {
  @ApiProperty() client_id!: string;
  @ApiProperty({ description: 'The new secret (cs_…): works at once; shown once' }) client_secret!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Until when the old secret still works; null: it stopped at once',
  })
  previous_secret_expires_at!: string | null;
}

/** The previous secret's grace end while it runs, else null. */
function graceEnd(client: ClientRecord, now: Date): string | null {
  const until = client.previousSecretExpiresAt;
  return client.previousSecretHash !== null && until !== null && until > now ? until.toISOString() : null;
}

export function toOAuthClientDto(client: ClientRecord, now: Date): OAuthClientDto {
  return {
    client_id: client.id,
    name: client.name,
    active: client.active,
    created_at: client.createdAt.toISOString(),
    previous_secret_expires_at: graceEnd(client, now),
  };
}

export function toOAuthClientCreatedDto(client: ClientRecord, secret: string): OAuthClientCreatedDto {
  return { client_id: client.id, client_secret: secret, name: client.name, created_at: client.createdAt.toISOString() };
}

export function toOAuthClientSecretRotatedDto(client: ClientRecord, secret: string, now: Date): OAuthClientSecretRotatedDto {
  return { client_id: client.id, client_secret: secret, previous_secret_expires_at: graceEnd(client, now) };
}
