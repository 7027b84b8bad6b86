/**
 * Factories for the offers-api e2e specs: partners with an OAuth client and a token,
 * offers, agreements, terms. Everything goes through the public admin and partner HTTP API.
 */
import { PrismaService } from '@app/platform';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { offersService } from '../../apps/offers-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import type { TestDatabase } from '../support/database';

export type OffersApp = TestApp<InstanceType<typeof offersService.configClass>>;

export const ADMIN = { authorization: 'Bearer dev-admin-key' };

export interface Partner {
  readonly id: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly token: string;
  readonly auth: { authorization: string };
}

export interface OfferJson {
  id: string;
  company: string;
  ticker: string;
  type: string;
  status: string;
  price_per_share: number;
  currency: string;
  minimum_investment: number;
  maximum_investment: number | null;
  opens_at: string;
  closes_at: string;
  shares_offered: number;
  documents: Array<{ type: string; title: string; url: string }>;
  updated_at: string;
}

export interface ErrorJson {
  error: { type: string; code: string; message: string; param?: string; request_id: string; [k: string]: unknown };
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const HOUR = 3_600_000;

export function startOffers(env: Record<string, string> = {}, options: { db?: TestDatabase } = {}): Promise<OffersApp> {
  return startTestApp(offersService, { WEBHOOK_SWEEP_INTERVAL_MS: '200', ...env }, options);
}

export class OffersContext {
  constructor(readonly t: OffersApp) {}

  inject(options: InjectOptions): Promise<LightMyRequestResponse> {
    return this.t.app.inject(options);
  }

  expectStatus(res: LightMyRequestResponse, status: number): void {
    if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  }

  async newPartner(name = 'Acme Wealth', tier = 'growth'): Promise<Partner> {
    const p = await this.inject({ method: 'POST', url: '/admin/v1/partners', headers: ADMIN, payload: { name, tier } });
    this.expectStatus(p, 201);
    const id = p.json<{ id: string }>().id;
    const c = await this.inject({ method: 'POST', url: `/admin/v1/partners/${id}/clients`, headers: ADMIN });
    this.expectStatus(c, 201);
    const { client_id, client_secret } = c.json<{ client_id: string; client_secret: string }>();
    const tok = await this.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
    });
    this.expectStatus(tok, 200);
    const token = tok.json<{ access_token: string }>().access_token;
    return { id, clientId: client_id, clientSecret: client_secret, token, auth: { authorization: `Bearer ${token}` } };
  }

  /** An offer; by default live now (opened an hour ago) and closing in a day. */
  async newOffer(overrides: Record<string, unknown> = {}): Promise<OfferJson> {
    const now = Date.now();
    const res = await this.inject({
      method: 'POST',
      url: '/admin/v1/offers',
      headers: ADMIN,
      payload: {
        company: 'Acme Robotics plc',
        ticker: 'ACME',
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        opens_at: iso(now - HOUR),
        closes_at: iso(now + 24 * HOUR),
        shares_offered: 1_000_000,
        ...overrides,
      },
    });
    this.expectStatus(res, 201);
    return res.json<OfferJson>();
  }

  async share(partner: Partner | string, offerId: string): Promise<void> {
    const partnerId = typeof partner === 'string' ? partner : partner.id;
    const res = await this.inject({ method: 'PUT', url: `/admin/v1/partners/${partnerId}/offers/${offerId}`, headers: ADMIN });
    this.expectStatus(res, 200);
  }

  async publishTerms(version: string, title = 'Investor terms', body = 'You may lose money.'): Promise<void> {
    const res = await this.inject({ method: 'POST', url: '/admin/v1/terms', headers: ADMIN, payload: { version, title, body } });
    this.expectStatus(res, 201);
  }

  indicate(partner: Partner, offerId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return this.inject({
      method: 'POST',
      url: `/api/v1/offers/${offerId}/indications`,
      headers: { ...partner.auth, ...headers },
      payload: body,
    });
  }

  /** Outbox rows (webhook_events) for one partner, oldest first. */
  async events(
    partnerId: string,
    event?: string,
  ): Promise<Array<{ event: string; data: Record<string, unknown>; createdAt: Date }>> {
    const prisma = this.t.app.get(PrismaService);
    const rows = await prisma.webhookEvent.findMany({
      where: { ownerType: 'partner', ownerId: partnerId, ...(event === undefined ? {} : { event }) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.flatMap((r) =>
      r.event === null ? [] : [{ event: r.event, data: r.data as Record<string, unknown>, createdAt: r.createdAt }],
    );
  }
}

export { waitFor } from '../support/wait';
