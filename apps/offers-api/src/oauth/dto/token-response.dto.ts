import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { TokenResponse } from '../token.service';

/** The form of POST /oauth/token (RFC 6749 §4.4.2); the client may authenticate with HTTP Basic instead of the two client fields. */
export class TokenRequestDto {
  @ApiProperty({ enum: ['client_credentials'] }) grant_type!: 'client_credentials';
  @ApiPropertyOptional({ description: 'With client_secret, unless the client authenticates with HTTP Basic' }) client_id?: string;
  @ApiPropertyOptional({ description: 'With client_id, unless the client authenticates with HTTP Basic' }) client_secret?: string;
}

/** RFC 6749 §5.1 access token response (documented; the service returns a TokenResponse). */
export class TokenResponseDto implements TokenResponse {
  @ApiProperty({ description: 'A signed JWT; send it as Authorization: Bearer' }) access_token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: 'Bearer';
  @ApiProperty({ type: 'integer', example: 3600, description: 'Seconds until the token expires' }) expires_in!: number;
}

/** RFC 6749 §5.2 error response: every error of POST /oauth/token except a 5xx. */
export class OAuthErrorDto {
  @ApiProperty({ enum: ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'slow_down', 'temporarily_unavailable'] })
  error!: string;

  @ApiProperty({ description: 'For people; may change' }) error_description!: string;
}
