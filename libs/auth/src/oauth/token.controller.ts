import { Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NO_STORE } from './oauth-error';
import { TokenService, type TokenResponse } from './token.service';

class TokenResponseDto implements TokenResponse {
  access_token!: string;
  token_type!: 'Bearer';
  expires_in!: number;
}

/** `POST /oauth/token` (RFC 6749 §4.4 client credentials); errors per §5.2, not the platform body. */
@ApiTags('oauth')
@Controller('oauth')
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  @Post('token')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Client credentials token',
    description:
      'Form fields grant_type=client_credentials, client_id, client_secret — or the client in HTTP Basic. Returns a Bearer JWT valid for 3600 s.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOkResponse({ type: TokenResponseDto, description: 'Cache-Control: no-store' })
  @ApiBadRequestResponse({ description: '{ error: invalid_request | unsupported_grant_type, error_description }' })
  @ApiUnauthorizedResponse({ description: '{ error: invalid_client, error_description } with WWW-Authenticate: Basic' })
  async token(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('content-type') contentType: string | undefined,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<TokenResponse> {
    const body = request.body;
    const form = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const result = await this.tokens.issue({ form, contentType, authorization });
    void reply.headers(NO_STORE);
    return result;
  }
}
