import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * RFC 6749 §4.4.2 client credentials request, form-encoded (documented only: TokenService
 * reads and checks the form itself, answering RFC 6749 §5.2 errors rather than the platform's).
 */
export class TokenRequestDto {
  @ApiProperty({ enum: ['client_credentials'] }) grant_type!: 'client_credentials';
  @ApiPropertyOptional({ description: 'Unless the client authenticates with HTTP Basic' }) client_id?: string;
  @ApiPropertyOptional({ description: 'Unless the client authenticates with HTTP Basic' }) client_secret?: string;
}
