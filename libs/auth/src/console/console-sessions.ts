import { createHmac } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  Clock,
  constantTimeEqual,
  newId,
  PlatformConfig,
  registerErrorCodes,
  SERVICE_NAME,
  TransactionRunner,
} from '@app/platform';
import { LastUsedThrottle } from '../last-used';
import { apiKeyHash, newOpaqueSecret } from '../secrets';
import { CONSOLE_ERRORS, ConsoleError, consoleSessionInvalid } from './console.errors';
import { ConsoleSessionsRepository } from './console-sessions.repository';

/**
 * The session cookie's name in a service: `console_session_offers`, `…_vector`, `…_payments`.
 * HttpOnly, SameSite=Strict, Path=/, Secure unless NODE_ENV=development. One name per service,
 * because cookies ignore ports: with the three services on one host (npm start), one console's
 * sign-in would otherwise replace the others' sessions.
 */
export function consoleCookieName(service: string): string {
  return `console_session_${service.replace(/-api$/, '').replace(/[^A-Za-z0-9_]/g, '_')}`;
}
/** The header a console request carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** A session unused this long is over (the contract's 12 h idle expiry). */
export const CONSOLE_IDLE_MS = 12 * 60 * 60 * 1000;
/** Longest and default life of a sign-in link. */
export const CONSOLE_LINK_MAX_TTL_SECONDS = 900;
export const CONSOLE_LINK_DEFAULT_TTL_SECONDS = 900;
/** Ended sessions and expired links are kept this long before the prune job deletes them. */
export const CONSOLE_PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;

/** A live console session: the tenant it acts as, in the service that opened it. */
export interface ConsoleSession {
  readonly id: string;
  readonly tenantId: string;
  /** When it ends whatever its activity: its sign-in + CONSOLE_SESSION_MAX_AGE_HOURS. */
  readonly endsAt: Date;
}

export type SignInResult =
  | { readonly ok: true; readonly cookie: string; readonly session: ConsoleSession }
  | { readonly ok: false; readonly reason: 'used' | 'expired' | 'unknown' };

/** The cookie `name` of a Cookie header, undefined when absent or malformed. */
export function consoleCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^cs_[A-Za-z0-9]{43}$/.test(value) ? value : undefined;
  }
  return undefined;
}

export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/**
 * One-time sign-in links and the server-side sessions they open. A session is a principal
 * of one tenant of this service (the app's authenticator turns it into its own principal
 * type); every request re-reads it, so a sign-out or revocation holds at once on every
 * instance. The CSRF token is derived from the cookie (HMAC), so it needs no storage and a
 * page of another origin, which cannot read the cookie, cannot know it.
 */
@Injectable()
export class ConsoleSessions {
  /** Each session's last_seen_at, written at most every LAST_USED_EVERY_MS per instance (the idle expiry is accurate to it). */
  private readonly lastSeen: LastUsedThrottle;
  /** This service's session cookie name (consoleCookieName). */
  readonly cookieName: string;
  /** A session's absolute lifetime (CONSOLE_SESSION_MAX_AGE_HOURS), from its sign-in. */
  readonly maxAgeMs: number;

  constructor(
    private readonly repository: ConsoleSessionsRepository,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    @Inject(SERVICE_NAME) private readonly service: string,
    config: PlatformConfig,
  ) {
    registerErrorCodes(CONSOLE_ERRORS);
    this.lastSeen = new LastUsedThrottle((id, at) => repository.touch(id, at), new Logger('ConsoleSessions'), 'a session use');
    this.cookieName = consoleCookieName(service);
    this.maxAgeMs = config.CONSOLE_SESSION_MAX_AGE_HOURS * 60 * 60 * 1000;
  }

  /** This service's session cookie in a Cookie header. */
  cookieOf(header: string | undefined): string | undefined {
    return consoleCookie(header, this.cookieName);
  }

  /** A new link token for `tenantId` (the caller checked that the tenant exists). Shown once; only its hash is stored. */
  async issueLink(tenantId: string, ttlSeconds: number): Promise<{ token: string; expiresAt: Date }> {
    const token = newOpaqueSecret('cl_');
    const expiresAt = new Date(this.clock.nowMs() + ttlSeconds * 1000);
    await this.repository.createLink({
      id: newId('clink'),
      service: this.service,
      tenantId,
      tokenHash: apiKeyHash(token),
      expiresAt,
    });
    return { token, expiresAt };
  }

  /** Redeems a link once: a new session and its cookie value, or why not. */
  async signIn(linkToken: string): Promise<SignInResult> {
    if (!/^cl_[A-Za-z0-9]{43}$/.test(linkToken)) return { ok: false, reason: 'unknown' };
    const hash = apiKeyHash(linkToken);
    const cookie = newOpaqueSecret('cs_');
    const id = newId('csess');
    const now = this.clock.now();
    const redeemed = await this.transactions.run((tx) =>
      this.repository.redeemLink(tx, hash, this.service, now, { id, tokenHash: apiKeyHash(cookie) }),
    );
    if (redeemed) {
      return { ok: true, cookie, session: { id, tenantId: redeemed.tenantId, endsAt: new Date(now.getTime() + this.maxAgeMs) } };
    }
    const link = await this.repository.findLink(hash, this.service);
    if (!link) return { ok: false, reason: 'unknown' };
    return { ok: false, reason: link.usedAt ? 'used' : 'expired' };
  }

  /**
   * The live session of a cookie value, or null (unknown, revoked, another service's, idle
   * too long, or signed in more than CONSOLE_SESSION_MAX_AGE_HOURS ago: activity never
   * extends a session past that).
   */
  async find(cookie: string): Promise<ConsoleSession | null> {
    const row = await this.repository.findSession(apiKeyHash(cookie));
    const now = this.clock.nowMs();
    if (!row || row.service !== this.service || row.revokedAt !== null) return null;
    if (now - row.lastSeenAt.getTime() >= CONSOLE_IDLE_MS) return null;
    const endsAt = row.createdAt.getTime() + this.maxAgeMs;
    if (now >= endsAt) return null;
    this.lastSeen.record(row.id, now);
    return { id: row.id, tenantId: row.tenantId, endsAt: new Date(endsAt) };
  }

  /** find(), or the 401 the API answers for a cookie without a live session. */
  async authenticate(cookie: string): Promise<ConsoleSession> {
    const session = await this.find(cookie);
    if (!session) {
      throw consoleSessionInvalid(
        `The console session has ended (signed out, revoked, idle for 12 hours, or signed in more than ${this.maxAgeMs / 3_600_000} hours ago: CONSOLE_SESSION_MAX_AGE_HOURS). Open a new sign-in link.`,
        this.service,
      );
    }
    return session;
  }

  /**
   * The session of a request's cookie (401 without one); a state-changing request (any
   * method but GET, HEAD, OPTIONS) must also carry the session's CSRF token (403 otherwise).
   */
  async authenticateRequest(
    cookie: string,
    request: { readonly method: string; readonly headers: Readonly<Record<string, string | string[] | undefined>> },
  ): Promise<ConsoleSession> {
    const session = await this.authenticate(cookie);
    if (!isSafeMethod(request.method)) this.checkCsrf(cookie, request.headers[CSRF_HEADER]);
    return session;
  }

  /** Ends the session server-side (sign-out). */
  async signOut(session: ConsoleSession): Promise<void> {
    await this.repository.revoke(session.id, this.clock.now());
  }

  /** Ends every session of the tenant in this service at once (the operator's revocation); how many. */
  revokeTenant(tenantId: string): Promise<number> {
    return this.repository.revokeTenant(this.service, tenantId, this.clock.now());
  }

  /**
   * Housekeeping (the daily ConsoleSessionsPruneJob): deletes links expired and sessions idle,
   * revoked or past their absolute lifetime more than CONSOLE_PRUNE_AFTER_MS ago. A session
   * last used a day ago has been over (12 h idle) for half a day; nothing live is touched.
   */
  prune(): Promise<{ links: number; sessions: number }> {
    const before = this.clock.nowMs() - CONSOLE_PRUNE_AFTER_MS;
    return this.repository.prune(new Date(before), new Date(before - this.maxAgeMs));
  }

  /** The session's CSRF token: an HMAC of the cookie value (never the cookie itself). */
  csrfToken(cookie: string): string {
    return createHmac('sha256', cookie).update('console-csrf-v1').digest('base64url');
  }

  /** Throws 403 csrf_token_invalid unless `presented` is the cookie's CSRF token. */
  checkCsrf(cookie: string, presented: string | string[] | undefined): void {
    if (typeof presented === 'string' && constantTimeEqual(presented, this.csrfToken(cookie))) return;
    throw new ConsoleError(
      'csrf_token_invalid',
      "This request changes state and is authenticated by a console session: it needs the session's X-CSRF-Token header.",
    );
  }

  /**
   * The cookie's Set-Cookie value (or one that clears it, for `null`). Set at sign-in, for the
   * shorter of the idle expiry and the absolute lifetime; the server checks both anyway.
   */
  setCookie(value: string | null, secure: boolean): string {
    const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
    if (value === null) return [`${this.cookieName}=`, 'Max-Age=0', ...attributes].join('; ');
    const maxAge = Math.min(CONSOLE_IDLE_MS, this.maxAgeMs) / 1000;
    return [`${this.cookieName}=${value}`, `Max-Age=${maxAge}`, ...attributes].join('; ');
  }
}
