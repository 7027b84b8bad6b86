import type { TokenResponse } from '../token.service';

/** RFC 6749 §5.1 access token response (documented; the service returns a TokenResponse). */
export class TokenResponseDto implements TokenResponse {
  access_token!: string;
  token_type!: 'Bearer';
  expires_in!: number;
}
