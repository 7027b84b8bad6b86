import type { Server } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { CONSOLE_LINK_DEFAULT_TTL_SECONDS, ConsoleSessions } from '@app/auth';
import { DomainError, parsePublicUrl, PlatformConfig } from '@app/platform';
import { CONSOLE_TENANTS, type ConsoleTenant, type ConsoleTenants } from '../console-tenants';
import type { ConsoleLinkDto, ConsoleSessionsRevokedDto } from './console.dto';

/**
 * Issues one-time sign-in links for the apps' `POST /admin/v1/console-links`. The link's token
 * travels in the URL fragment (`/console/sign-in#token=…`): browsers never send a fragment to
 * a server, so it is in no access log, proxy or Referer, and a link scanner that fetches the
 * URL does not use it up (the page posts it to POST /console/sign-in).
 *
 * The link's origin is the service's `*_PUBLIC_URL` (required in production), else its own
 * loopback address (the port it listens on, else its configured port): never the request's
 * Host header, which whoever calls the admin route (or a proxy in front of it) writes, so a link
 * could otherwise send the token to another host.
 */
@Injectable()
export class ConsoleLinks {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly config: PlatformConfig,
    @Inject(CONSOLE_TENANTS) private readonly tenants: ConsoleTenants,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** Revokes the tenant's console sessions (400 resource_missing for an unknown tenant). */
  async revokeSessions(tenantId: string): Promise<ConsoleSessionsRevokedDto> {
    const tenant = await this.existing(tenantId);
    return { object: 'console_sessions', revoked: await this.sessions.revokeTenant(tenant.id) };
  }

  async issue(tenantId: string, ttlSeconds: number | undefined): Promise<ConsoleLinkDto> {
    const tenant = await this.existing(tenantId);
    const link = await this.sessions.issueLink(tenant.id, ttlSeconds ?? CONSOLE_LINK_DEFAULT_TTL_SECONDS);
    const configured = this.config.publicUrl === undefined ? undefined : parsePublicUrl(this.config.publicUrl);
    const base = configured ?? this.loopbackUrl();
    return { url: `${base}/console/sign-in#token=${link.token}`, expires_at: link.expiresAt.toISOString() };
  }

  /** `http://127.0.0.1:<port>` of the server this process listens with (a test's ephemeral port too), else of its configured port. */
  private loopbackUrl(): string {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    const address = server?.address();
    const port = typeof address === 'object' && address !== null ? address.port : undefined;
    return port === undefined ? this.config.loopbackUrl : `http://127.0.0.1:${port}`;
  }

  /** The tenant the admin route's body names, or 400 resource_missing naming its field. */
  private async existing(tenantId: string): Promise<ConsoleTenant> {
    const tenant = await this.tenants.describe(tenantId);
    if (!tenant) {
      throw new DomainError('resource_missing', `No such tenant: '${tenantId}'.`, { param: this.tenants.idField, status: 400 });
    }
    return tenant;
  }
}
