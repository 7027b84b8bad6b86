import { Body, Controller, Get, HttpCode, Inject, type OnModuleInit, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ConsoleError,
  type ConsoleSession,
  ConsoleSessions,
  consoleSessionInvalid,
  CONSOLE_IDLE_MS,
  RateLimiter,
  type RateLimitPolicy,
} from '@app/auth';
import { AnyQuery, ApiErrors, clientAddressKey, noteRateLimit, PlatformConfig, SERVICE_NAME } from '@app/platform';
import { CONSOLE_TENANTS, type ConsoleTenants } from '../console-tenants';
import { type ConsoleAsset, CONSOLE_SECURITY_HEADERS, loadConsoleAssets } from './console-assets';
import { ConsoleSessionDto, ConsoleSignedOutDto, ConsoleSignInDto } from './console.dto';

const NOT_BUILT = Buffer.from(
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>' +
    '<body><h1>The console is not built</h1><p>Run <code>npm run build</code>, then restart the service.</p></body></html>',
);

/**
 * The console at `/console`: its pages and files (the built front end, from this origin only,
 * under a strict CSP), and its session routes: sign in with a one-time link's token, read
 * the session (tenant and CSRF token), sign out. Everything else the console does goes
 * through the service's public routes, with the session cookie as the tenant's credential.
 */
@ApiTags('console')
@Controller('console')
export class ConsoleController implements OnModuleInit {
  private assets = new Map<string, ConsoleAsset>();

  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly limiter: RateLimiter,
    private readonly config: PlatformConfig,
    @Inject(CONSOLE_TENANTS) private readonly tenants: ConsoleTenants,
    @Inject(SERVICE_NAME) private readonly service: string,
  ) {}

  onModuleInit(): void {
    this.assets = loadConsoleAssets();
  }

  @Post('sign-in')
  @HttpCode(200)
  @ApiOperation({ summary: 'Open a console session with a sign-in link token (once); sets the session cookie' })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiErrors('console_link_invalid', {
    code: 'rate_limit_exceeded',
    when: 'too many failed sign-ins from this address (CONSOLE_SIGN_IN_FAILURES_PER_MINUTE; Retry-After)',
  })
  async signIn(
    @Body() body: ConsoleSignInDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleSessionDto> {
    const key = `ratelimit:console-sign-in-failures:${this.config.QUEUE_PREFIX}:${this.service}:${clientAddressKey(request.ip)}`;
    const reserved = await this.reserveAttempt(key);
    const result = await this.sessions.signIn(body.token).catch(async (err: unknown) => {
      if (reserved) await this.limiter.refundKey(key);
      throw err;
    });
    // Confirm the reservation only for a failed sign-in; give it back otherwise.
    if (reserved && result.ok) await this.limiter.refundKey(key);
    if (!result.ok) {
      const why = {
        used: 'This sign-in link has already been used: a link opens one session, once.',
        expired: 'This sign-in link has expired.',
        unknown: 'This sign-in link is not valid.',
      }[result.reason];
      throw new ConsoleError('console_link_invalid', `${why} Ask your operator for a new link.`, { param: 'token' });
    }
    void reply.header('Set-Cookie', this.sessions.setCookie(result.cookie, this.secure));
    void reply.header('Cache-Control', 'no-store');
    return this.describe(result.cookie, result.session);
  }

  /**
   * Failed sign-ins per client address (`request.ip`, which honours TRUST_PROXY; IPv6 per
   * /64), as POST /oauth/token counts failed client authentications: every sign-in reserves
   * one attempt of the address's CONSOLE_SIGN_IN_FAILURES_PER_MINUTE before its token is
   * looked up, and gets it back unless the token opened no session; so however many arrive
   * at once, at most the budget's worth fail per window. Over it → 429 rate_limit_exceeded
   * with Retry-After for every sign-in from the address, a right token too (or guessing
   * could go on), until the window ends. Returns whether an attempt was reserved (false when
   * the limit is off, or Redis does not answer: it fails open, as every limit does).
   */
  private async reserveAttempt(key: string): Promise<boolean> {
    const limit = this.config.CONSOLE_SIGN_IN_FAILURES_PER_MINUTE;
    if (limit <= 0) return false;
    const policy: RateLimitPolicy = { name: 'console_sign_in_failures', limit, windowSeconds: 60 };
    const decision = await this.limiter.hitKey(key, policy);
    if (decision === undefined) return false;
    if (decision.allowed) return true;
    noteRateLimit('sign_in');
    throw new ConsoleError(
      'rate_limit_exceeded',
      `Too many failed console sign-ins from this address (CONSOLE_SIGN_IN_FAILURES_PER_MINUTE is ${limit}). Retry after ${decision.retryAfterSeconds} seconds.`,
      { headers: { ...decision.headers, 'Retry-After': String(decision.retryAfterSeconds) } },
    );
  }

  @Get('session')
  @ApiOperation({ summary: "The console session of this request's cookie: its tenant and CSRF token" })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiErrors('console_session_invalid')
  async session(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<ConsoleSessionDto> {
    const cookie = this.cookieOf(request);
    const session = await this.sessions.authenticate(cookie);
    void reply.header('Cache-Control', 'no-store');
    return this.describe(cookie, session);
  }

  @Post('sign-out')
  @HttpCode(200)
  @ApiOperation({ summary: 'End the console session server-side and clear its cookie (needs X-CSRF-Token)' })
  @ApiOkResponse({ type: ConsoleSignedOutDto })
  @ApiErrors('console_session_invalid', 'csrf_token_invalid')
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<ConsoleSignedOutDto> {
    const cookie = this.cookieOf(request);
    await this.sessions.signOut(await this.sessions.authenticateRequest(cookie, request));
    void reply.header('Set-Cookie', this.sessions.setCookie(null, this.secure));
    return { object: 'console_session', signed_out: true };
  }

  @Get()
  @ApiExcludeEndpoint()
  @AnyQuery("a page of the console: the query string is the single-page app's own state (filters, pages)")
  index(@Res() reply: FastifyReply): void {
    this.page(reply);
  }

  @Get('assets/:file')
  @ApiExcludeEndpoint()
  @AnyQuery('a static file of the console: a query string (a cache buster) does not change it')
  asset(@Req() request: FastifyRequest<{ Params: { file: string } }>, @Res() reply: FastifyReply): void {
    const asset = this.assets.get(`assets/${request.params.file}`);
    if (!asset) return this.page(reply, 404);
    // file names carry a content hash: they never change
    void reply
      .headers({ ...CONSOLE_SECURITY_HEADERS, 'Cache-Control': 'public, max-age=31536000, immutable' })
      .type(asset.type)
      .send(asset.body);
  }

  /** Every other path under /console is a page of the single-page app (its router shows it). */
  @Get('*')
  @ApiExcludeEndpoint()
  @AnyQuery("a page of the console: the query string is the single-page app's own state (filters, pages)")
  spa(@Res() reply: FastifyReply): void {
    this.page(reply);
  }

  private page(reply: FastifyReply, status = 200): void {
    const index = this.assets.get('index.html');
    void reply
      .code(index ? status : 503)
      .headers({ ...CONSOLE_SECURITY_HEADERS, 'Cache-Control': 'no-cache' })
      .type('text/html; charset=utf-8')
      .send(index?.body ?? NOT_BUILT);
  }

  private get secure(): boolean {
    return this.config.NODE_ENV !== 'development';
  }

  private cookieOf(request: FastifyRequest): string {
    const cookie = this.sessions.cookieOf(request.headers.cookie);
    if (cookie === undefined) {
      throw consoleSessionInvalid('No console session: open a sign-in link first.', this.service);
    }
    return cookie;
  }

  private async describe(cookie: string, session: ConsoleSession): Promise<ConsoleSessionDto> {
    const tenant = await this.tenants.describe(session.tenantId);
    if (!tenant) throw consoleSessionInvalid('The tenant of this console session no longer exists.', this.service);
    return {
      object: 'console_session',
      service: this.service,
      tenant: { id: tenant.id, name: tenant.name },
      csrf_token: this.sessions.csrfToken(cookie),
      idle_timeout_seconds: CONSOLE_IDLE_MS / 1000,
      ends_at: session.endsAt.toISOString(),
    };
  }
}
