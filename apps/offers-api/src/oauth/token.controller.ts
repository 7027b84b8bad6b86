import { Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiter, type RateLimitPolicy } from '@app/auth';
import { clientAddressKey, FormBody, RawHttpError, RenderErrorsWith } from '@app/platform';
import { OffersConfig } from '../config';

import { TokenRequestDto } from './dto/token-request.dto';
import { OAuthErrorDto, TokenResponseDto } from './dto/token-response.dto';
import { OAuthMetrics } from './oauth.metrics';
import { NO_STORE, oauthRouteError, oauthTooManyRequests } from './oauth-error';
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
    private readonly metrics: OAuthMetrics,
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
  @FormBody()
  @ApiBody({ type: TokenRequestDto })
  @ApiOkResponse({ type: TokenResponseDto, description: 'Cache-Control: no-store' })
  @ApiResponse({
    status: 400,
    type: OAuthErrorDto,
    description: 'invalid_request (a missing or repeated field, a body that does not parse), unsupported_grant_type',
  })
  @ApiResponse({
    status: 401,
    type: OAuthErrorDto,
    description: 'invalid_client: unknown client, wrong secret or disabled client',
    headers: { 'WWW-Authenticate': { description: 'Basic realm="…"', schema: { type: 'string' } } },
  })
  @ApiResponse({ status: 413, type: OAuthErrorDto, description: 'invalid_request: the body is over the body limit' })
  @ApiResponse({
    status: 415,
    type: OAuthErrorDto,
    description: 'invalid_request: the body is not application/x-www-form-urlencoded',
  })
  @ApiResponse({
    status: 429,
    type: OAuthErrorDto,
    description:
      'slow_down when this address spent its failed client authentications or its share of concurrent secret verifications, temporarily_unavailable when the instance cannot verify a secret in time',
    headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } } },
  })
  async token(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('content-type') contentType: string | undefined,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<TokenResponse> {
    const address = clientAddressKey(request.ip);
    const key = `ratelimit:oauth-token-failures:${this.config.QUEUE_PREFIX}:${address}`;
    const reserved = await this.reserveAttempt(key);
    const body = request.body;
    const form = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    let counts = false;
    try {
      const result = await this.tokens.issue({ form, contentType, authorization, address });
      void reply.headers(NO_STORE);
      return result;
    } catch (err) {
      counts = err instanceof RawHttpError && err.status === 401;
      throw err;
    } finally {
      // Confirm the reservation only for a failed client authentication; give it back otherwise.
      if (reserved && !counts) await this.limiter.refundKey(key);
    }
  }

  private policy(): RateLimitPolicy {
    return { name: 'token_failures', limit: this.perMinute, windowSeconds: 60 };
  }

  /**
   * Failed client authentications per client address (each costs a scrypt verification,
   * and they are what guessing secrets looks like). Reserve, then confirm: every token
   * request counts one attempt against the address's budget (an atomic INCR in Redis)
   * *before* its secret is verified, and gets it back unless it ends in 401 invalid_client;
   * so however many arrive at once, at most the budget's worth of failures are verified per
   * window. Over the budget → 429 with the RFC 6749 body, `error: slow_down` (RFC 8628's
   * registered code for "too fast") and Retry-After, until the window ends. Returns whether
   * an attempt was reserved (false when the limit is off or Redis does not answer: the
   * limit fails open, as every limit does, and the verification gate still bounds the CPU).
   */
  private async reserveAttempt(key: string): Promise<boolean> {
    if (this.perMinute <= 0) return false;
    const decision = await this.limiter.hitKey(key, this.policy());
    if (decision === undefined) return false;
    if (decision.allowed) return true;
    this.metrics.refused('failure_budget');
    throw oauthTooManyRequests(
      'slow_down',
      `Too many failed token requests from this address. Retry after ${decision.retryAfterSeconds} seconds.`,
      decision.retryAfterSeconds,
      decision.headers,
    );
  }
}
