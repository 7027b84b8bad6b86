import { ApiProperty } from '@nestjs/swagger';
import type { TokenResponse } from '../token.service';

/** RFC 6749 §5.1 access token response (documented; the service returns a TokenResponse). */
export class TokenResponseDto implements TokenResponse {
  @ApiProperty({ description: 'A signed JWT; send it as Authorization: Bearer <access_token>' }) access_token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: 'Bearer';
  @ApiProperty({ type: 'integer', example: 3600, description: 'Seconds until the token expires' }) expires_in!: number;
}

/** RFC 6749 §5.2 error response: every error of POST /oauth/token except a 5xx. */
export class OAuthErrorDto {
  @ApiProperty({ enum: ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'slow_down', 'temporarily_unavailable'] })
  error!: string;

  @ApiProperty({ description: 'For people; may change' }) error_description!: string;
}
