import { Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiter, type RateLimitPolicy } from '@app/auth';
import { RawHttpError, RenderErrorsWith } from '@app/platform';
import { OffersConfig } from '../config';
import { addressKey } from './address-key';
import { TokenResponseDto } from './dto/token-response.dto';
import { NO_STORE, oauthRouteError } from './oauth-error';
import { TokenService, type TokenResponse } from './token.service';

/** `POST /oauth/token` (RFC 6749 §4.4 client credentials); errors per §5.2, not the platform body. */
@ApiTags('oauth')
@Controller('oauth')
export class TokenController {
  private readonly perMinute: number;

  constructor(
    private readonly tokens: TokenService,
    private readonly limiter: RateLimiter,
    private readonly config: OffersConfig,
  ) {
    this.perMinute = config.OAUTH_TOKEN_FAILURES_PER_MINUTE;
  }

  @Post('token')
  @HttpCode(200)
  @RenderErrorsWith(oauthRouteError)
  @ApiOperation({
    summary: 'Client credentials token',
    description:
      'Form fields grant_type=client_credentials, client_id, client_secret — or the client in HTTP Basic. Returns a Bearer JWT valid for 3600 s.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOkResponse({ type: TokenResponseDto, description: 'Cache-Control: no-store' })
  @ApiBadRequestResponse({ description: '{ error: invalid_request | unsupported_grant_type, error_description }' })
  @ApiUnauthorizedResponse({ description: '{ error: invalid_client, error_description } with WWW-Authenticate: Basic' })
  @ApiTooManyRequestsResponse({
    description:
      '{ error: slow_down, error_description } with Retry-After: too many failed client authentications from this address',
  })
  async token(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('content-type') contentType: string | undefined,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<TokenResponse> {
    const key = `ratelimit:oauth-token-failures:${this.config.QUEUE_PREFIX}:${addressKey(request.ip)}`;
    await this.refuseWhenExhausted(key);
    const body = request.body;
    const form = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    try {
      const result = await this.tokens.issue({ form, contentType, authorization });
      void reply.headers(NO_STORE);
      return result;
    } catch (err) {
      if (this.perMinute > 0 && err instanceof RawHttpError && err.status === 401) await this.limiter.hitKey(key, this.policy());
      throw err;
    }
  }

  private policy(): RateLimitPolicy {
    return { name: 'token_failures', limit: this.perMinute, windowSeconds: 60 };
  }

  /**
   * Failed client authentications per client address (each costs a scrypt verification,
   * and they are what guessing secrets looks like): once the window's budget is spent, every
   * token request from that address → 429 with the RFC 6749 body, `error: slow_down`
   * (RFC 8628's registered code for "too fast") and Retry-After, until the window ends.
   * Successful requests are not counted. Fails open without Redis, as every limit does.
   */
  private async refuseWhenExhausted(key: string): Promise<void> {
    if (this.perMinute <= 0) return;
    const decision = await this.limiter.peekKey(key, this.policy());
    if (decision === undefined || decision.allowed) return;
    throw new RawHttpError(
      429,
      {
        error: 'slow_down',
        error_description: `Too many failed token requests from this address. Retry after ${decision.retryAfterSeconds} seconds.`,
      },
      { ...NO_STORE, ...decision.headers, 'Retry-After': String(decision.retryAfterSeconds) },
    );
  }
}
