import { ApiProperty } from '@nestjs/swagger';
import type { TokenResponse } from '../token.service';

/** RFC 6749 §5.1 access token response (documented; the service returns a TokenResponse). */
export class TokenResponseDto implements TokenResponse {
  @ApiProperty({ description: 'A JWT; send it as Authorization: Bearer <access_token>' }) access_token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: 'Bearer';
  @ApiProperty({ example: 3600, description: 'Seconds the token is valid for' }) expires_in!: number;
}
