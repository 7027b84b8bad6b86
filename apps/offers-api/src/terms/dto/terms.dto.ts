import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import type { TermsRecord } from '../terms.types';

/** GET /api/v1/terms (platform contract: Offers service decisions). */
export class TermsDto {
  @ApiProperty({ example: '2026-11-01', description: 'Send this as terms_version with an indication' }) version!: string;
  @ApiProperty({ example: 'Investor terms and conditions' }) title!: string;
  @ApiProperty() body!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-01T09:00:00.000Z' }) published_at!: string;
}

export const termsView = (t: TermsRecord): TermsDto => ({
  version: t.version,
  title: t.title,
  body: t.body,
  published_at: t.publishedAt.toISOString(),
});

/** POST /admin/v1/terms: publishes a new current version. */
export class TermsPublishDto {
  @ApiProperty({ example: '2026-11-01', pattern: '^[A-Za-z0-9._-]{1,64}$' })
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'version must be 1-64 characters of A-Z a-z 0-9 . _ -' })
  version!: string;

  @ApiProperty({ example: 'Investor terms and conditions' })
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiProperty()
  @IsString()
  @Length(1, 100_000)
  body!: string;
}
