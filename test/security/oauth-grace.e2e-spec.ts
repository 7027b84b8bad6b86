/**
 * Issue 31, offers-api: OAuth client secrets in grace, tokens of rotated secrets, and scrypt
 * on the authenticated client routes.
 *
 * 1. A client secret in its grace period, and an access token minted from a secret that has
 *    since been rotated, cannot create, rotate or delete OAuth clients (403
 *    credential_in_grace). The finding: `rotate-secret` with a token of the old secret undid
 *    the owner's rotation. The owner's newest secret survives every such attempt.
 * 2. A rotation without grace ends the old secret's access tokens at once, on every instance
 *    (RevocationBus); with grace they keep working until they expire, but cannot manage.
 * 3. Cheap checks first, then scrypt through the token endpoint's gate: a nonexistent or
 *    foreign id, a partner over its client limit and a token in grace are answered while every
 *    hashing slot is taken (so before any hash); the routes that do hash answer the gate's
 *    refusals (429 rate_limit_exceeded for the caller's share, 503 service_unavailable for the
 *    instance's queue) with Retry-After, changing nothing.
 */
import { PrismaService } from '@app/platform';
import { jest } from '@jest/globals';
import type { LightMyRequestResponse } from 'fastify';
import { ADMIN, type ErrorJson, type OffersApp, OffersContext, type Partner, startOffers, waitFor } from '../offers-api/fixtures';
import { SecretGate } from '../../apps/offers-api/src/oauth/secret-gate';

jest.setTimeout(120_000);

type Auth = { authorization: string };
type Method = 'GET' | 'POST' | 'DELETE';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const call = (app: OffersApp, auth: Auth, method: Method, url: string, payload?: object): Promise<LightMyRequestResponse> =>
  app.app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload }) });

const tokenRequest = (app: OffersApp, clientId: string, secret: string): Promise<LightMyRequestResponse> =>
  app.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: FORM,
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
  });

async function tokenFor(app: OffersApp, clientId: string, secret: string): Promise<Auth> {
  const res = await tokenRequest(app, clientId, secret);
  expect([res.statusCode, res.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
  return { authorization: `Bearer ${res.json<{ access_token: string }>().access_token}` };
}

/** Status and code of a platform error answer (the body when it is not one). */
function outcome(res: LightMyRequestResponse): { status: number; code: string | undefined } {
  const code = res.statusCode >= 400 ? res.json<Partial<ErrorJson>>().error?.code : undefined;
  return { status: res.statusCode, code };
}

async function createClient(app: OffersApp, auth: Auth, name: string): Promise<{ client_id: string; client_secret: string }> {
  const res = await call(app, auth, 'POST', '/api/v1/clients', { name });
  expect([res.statusCode, name]).toEqual([201, name]);
  return res.json();
}

interface ClientRow {
  secretHash: string;
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
  active: boolean;
}
const clientRow = (app: OffersApp, id: string): Promise<ClientRow> =>
  app.app.get(PrismaService).oAuthClient.findUniqueOrThrow({
    where: { id },
    select: { secretHash: true, previousSecretHash: true, previousSecretExpiresAt: true, active: true },
  });
const countClients = (app: OffersApp, partnerId: string): Promise<number> =>
  app.app.get(PrismaService).oAuthClient.count({ where: { partnerId, active: true } });

describe('credentials in grace cannot manage OAuth clients (403 credential_in_grace)', () => {
  let ctx: OffersContext;
  let owner: Partner;
  beforeAll(async () => {
    ctx = new OffersContext(await startOffers());
    owner = await ctx.newPartner('Grace Owner');
  });
  afterAll(async () => {
    await ctx?.t.close();
  });

  it('a token of the old secret (minted before or during the grace) cannot rotate, create or delete; the owner keeps the newest secret', async () => {
    const app = ctx.t;
    const leaked = await createClient(app, owner.auth, 'leaked');
    const spare = await createClient(app, owner.auth, 'spare');
    const before = await tokenFor(app, leaked.client_id, leaked.client_secret); // the attacker's token, pre-rotation

    // The owner rotates with a 24 h grace (its partners' deployments still hold the old secret).
    const rotated = await call(app, owner.auth, 'POST', `/api/v1/clients/${leaked.client_id}/rotate-secret`, {
      expires_in_hours: 24,
    });
    expect(rotated.statusCode).toBe(200);
    const newest = rotated.json<{ client_secret: string }>().client_secret;
    const during = await tokenFor(app, leaked.client_id, leaked.client_secret); // the old secret still mints, in grace
    const rowAfterOwner = await clientRow(app, leaked.client_id);
    const clientsAfterOwner = await countClients(app, owner.id);

    for (const [label, auth] of [
      ['token minted before the rotation', before],
      ['token minted from the secret in grace', during],
    ] as const) {
      const attempts: Array<[string, Method, string, object | undefined]> = [
        ['rotate the leaked client without grace', 'POST', `/api/v1/clients/${leaked.client_id}/rotate-secret`, {}],
        [
          'rotate the leaked client with grace',
          'POST',
          `/api/v1/clients/${leaked.client_id}/rotate-secret`,
          { expires_in_hours: 1 },
        ],
        ["rotate the owner's other client", 'POST', `/api/v1/clients/${owner.clientId}/rotate-secret`, {}],
        ['create a client', 'POST', '/api/v1/clients', { name: 'attacker' }],
        ["delete the owner's other client", 'DELETE', `/api/v1/clients/${spare.client_id}`, undefined],
        ["delete the owner's own client", 'DELETE', `/api/v1/clients/${owner.clientId}`, undefined],
        ['rotate an id that does not exist', 'POST', '/api/v1/clients/client_ghost000000000000000000/rotate-secret', {}],
      ];
      for (const [what, method, url, payload] of attempts) {
        const res = await call(app, auth, method, url, payload);
        expect({ label, what, ...outcome(res) }).toEqual({ label, what, status: 403, code: 'credential_in_grace' });
        expect(res.json<ErrorJson>().error.type).toBe('permission_error');
      }
      // It still works on the service's other routes until it expires (grace means grace).
      expect((await call(app, auth, 'GET', '/api/v1/offers')).statusCode).toBe(200);
      expect((await call(app, auth, 'GET', '/api/v1/clients')).statusCode).toBe(200);
    }

    // Nothing changed: the owner's rotation stands, its newest secret mints, no client came or went.
    expect(await clientRow(app, leaked.client_id)).toEqual(rowAfterOwner);
    expect(await countClients(app, owner.id)).toBe(clientsAfterOwner);
    const newestAuth = await tokenFor(app, leaked.client_id, newest);
    // The newest credential may manage: end the grace now (the remedy once the leak is known).
    const remedy = await call(app, newestAuth, 'POST', `/api/v1/clients/${leaked.client_id}/rotate-secret`, {});
    expect(remedy.statusCode).toBe(200);
    expect((await tokenRequest(app, leaked.client_id, leaked.client_secret)).statusCode).toBe(401);
    expect((await tokenRequest(app, leaked.client_id, newest)).statusCode).toBe(401); // replaced by the remedy, no grace
    const final = remedy.json<{ client_secret: string }>().client_secret;
    expect((await tokenRequest(app, leaked.client_id, final)).statusCode).toBe(200);
  });

  it('a token of a secret replaced twice is in grace too, and the current one of another client may manage', async () => {
    const app = ctx.t;
    const c = await createClient(app, owner.auth, 'twice');
    const first = await tokenFor(app, c.client_id, c.client_secret);
    const r1 = (
      await call(app, owner.auth, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`, { expires_in_hours: 2 })
    ).json<{ client_secret: string }>();
    const second = await tokenFor(app, c.client_id, r1.client_secret);
    expect((await call(app, second, 'POST', '/api/v1/clients', { name: 'by-current' })).statusCode).toBe(201);
    const r2 = await call(app, owner.auth, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`, { expires_in_hours: 2 });
    expect(r2.statusCode).toBe(200);
    // The second rotation ended the first secret's grace, and with it that secret's tokens;
    // the second secret is in grace now: its token works but cannot manage.
    expect(outcome(await call(app, first, 'POST', '/api/v1/clients', { name: 'late' }))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
    expect(outcome(await call(app, second, 'POST', '/api/v1/clients', { name: 'late' }))).toEqual({
      status: 403,
      code: 'credential_in_grace',
    });
    expect((await call(app, second, 'GET', '/api/v1/offers')).statusCode).toBe(200);
    // The owner's token (another client's current secret) is untouched by all this.
    expect((await call(app, owner.auth, 'POST', '/api/v1/clients', { name: 'owner-still' })).statusCode).toBe(201);
  });
});

describe('a rotation without grace ends the old secret’s tokens at once, on every instance', () => {
  let ctx: OffersContext;
  let owner: Partner;
  let second: OffersApp;
  beforeAll(async () => {
    ctx = new OffersContext(await startOffers());
    owner = await ctx.newPartner('Leak Owner');
    // Another instance whose cache would trust a client's status for a minute: only the broadcast can be faster.
    second = await startOffers({ OAUTH_CLIENT_CACHE_TTL_MS: '60000' }, { db: ctx.t.db });
  });
  afterAll(async () => {
    await second?.close();
    await ctx?.t.close();
  });

  it('refuses the old tokens with invalid_token here at once and on the other instance within its broadcast; the new secret works', async () => {
    const c = await createClient(ctx.t, owner.auth, 'rotated-at-once');
    const old = await tokenFor(ctx.t, c.client_id, c.client_secret);
    expect((await call(ctx.t, old, 'GET', '/api/v1/offers')).statusCode).toBe(200);
    expect((await call(second, old, 'GET', '/api/v1/offers')).statusCode).toBe(200); // cached there as fine

    const res = await call(ctx.t, owner.auth, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    const fresh = res.json<{ client_secret: string }>().client_secret;

    const here = await call(ctx.t, old, 'GET', '/api/v1/offers');
    expect(outcome(here)).toEqual({ status: 401, code: 'invalid_token' });
    expect(here.headers['www-authenticate']).toContain('error="invalid_token"');
    const there = await waitFor(
      'the other instance to refuse the token of the rotated secret',
      async () => {
        const r = await call(second, old, 'GET', '/api/v1/offers');
        return r.statusCode === 200 ? undefined : r;
      },
      { timeoutMs: 5_000, everyMs: 50 },
    );
    expect(outcome(there)).toEqual({ status: 401, code: 'invalid_token' });

    const now = await tokenFor(second, c.client_id, fresh);
    expect((await call(ctx.t, now, 'GET', '/api/v1/offers')).statusCode).toBe(200);
    expect((await call(second, now, 'GET', '/api/v1/offers')).statusCode).toBe(200);
  });

  it('ends the caller’s own token when it rotates its own client without grace (the response carries the newest secret)', async () => {
    const c = await createClient(ctx.t, owner.auth, 'self-rotation');
    const own = await tokenFor(ctx.t, c.client_id, c.client_secret);
    const res = await call(ctx.t, own, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    expect(outcome(await call(ctx.t, own, 'GET', '/api/v1/offers'))).toEqual({ status: 401, code: 'invalid_token' });
    const next = await tokenFor(ctx.t, c.client_id, res.json<{ client_secret: string }>().client_secret);
    expect((await call(ctx.t, next, 'GET', '/api/v1/clients')).statusCode).toBe(200);
  });

  it('with grace, the old secret’s tokens keep working on both instances until they expire, and cannot manage', async () => {
    const c = await createClient(ctx.t, owner.auth, 'rotated-with-grace');
    const old = await tokenFor(ctx.t, c.client_id, c.client_secret);
    expect((await call(second, old, 'GET', '/api/v1/offers')).statusCode).toBe(200);
    const res = await call(ctx.t, owner.auth, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`, { expires_in_hours: 1 });
    expect(res.statusCode).toBe(200);
    for (const app of [ctx.t, second]) {
      expect((await call(app, old, 'GET', '/api/v1/offers')).statusCode).toBe(200);
      expect(outcome(await call(app, old, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`, {}))).toEqual({
        status: 403,
        code: 'credential_in_grace',
      });
    }
  });
});

/** `oauth_secret_hashes_total` and `oauth_secret_hash_refusals_total{reason}` from GET /metrics (0 when absent). */
async function hashMetrics(app: OffersApp): Promise<{ hashes: number; refused: Record<string, number> }> {
  const text = (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
  const hashes = Number(/^oauth_secret_hashes_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
  const refused: Record<string, number> = {};
  for (const m of text.matchAll(/^oauth_secret_hash_refusals_total\{[^}]*reason="(\w+)"[^}]*\} (\d+)/gm))
    refused[m[1] ?? ''] = Number(m[2]);
  return { hashes, refused };
}

describe('client secrets are hashed after the cheap checks, through the token endpoint’s gate', () => {
  let ctx: OffersContext;
  let a: Partner;
  let b: Partner;
  let gate: SecretGate;
  /** Slots of `on` (the app's gate by default) taken by work that runs until released. */
  let releases: Array<() => void> = [];
  const hold = (key: string, on: SecretGate = gate): Promise<unknown> => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    releases.push(release);
    return on.run(key, () => held).catch((err: unknown) => err);
  };
  const releaseAll = (): void => {
    for (const r of releases) r();
    releases = [];
  };

  beforeAll(async () => {
    ctx = new OffersContext(
      // Two slots (one per key), no waiting place, one place per key: held slots make every refusal certain.
      await startOffers({ OAUTH_HASH_CONCURRENCY: '2', OAUTH_HASH_QUEUE: '0', OAUTH_HASH_PER_ADDRESS: '1' }),
    );
    a = await ctx.newPartner('Alpha');
    b = await ctx.newPartner('Beta');
    gate = ctx.t.app.get(SecretGate);
  });
  afterEach(() => releaseAll());
  afterAll(async () => {
    releaseAll();
    await ctx?.t.close();
  });

  const expectGateRefusal = (res: LightMyRequestResponse, status: 429 | 503): void => {
    expect(outcome(res)).toEqual({ status, code: status === 429 ? 'rate_limit_exceeded' : 'service_unavailable' });
    expect(res.headers['retry-after']).toBe('1');
  };

  it('answers 404 for an unknown or foreign id while every hashing slot is taken (no hash), and 503 for an existing one', async () => {
    const own = await createClient(ctx.t, a.auth, 'own');
    const rowBefore = await clientRow(ctx.t, own.client_id);
    const before = await hashMetrics(ctx.t);
    void hold('someone-1');
    void hold('someone-2');
    expect(gate.load).toEqual({ running: 2, waiting: 0 });

    for (const id of ['client_ghost000000000000000000', b.clientId]) {
      for (const payload of [{}, { expires_in_hours: 5 }]) {
        const res = await call(ctx.t, a.auth, 'POST', `/api/v1/clients/${id}/rotate-secret`, payload);
        expect({ id, ...outcome(res), param: res.json<ErrorJson>().error.param }).toEqual({
          id,
          status: 404,
          code: 'resource_missing',
          param: 'id',
        });
      }
      expect(outcome(await call(ctx.t, a.auth, 'DELETE', `/api/v1/clients/${id}`))).toEqual({
        status: 404,
        code: 'resource_missing',
      });
    }
    expect(outcome(await ctx.inject({ method: 'POST', url: '/admin/v1/partners/ptn_ghost/clients', headers: ADMIN }))).toEqual({
      status: 404,
      code: 'resource_missing',
    });

    // The same routes with work to do go through the gate, which has no room: 503, nothing changed.
    expectGateRefusal(await call(ctx.t, a.auth, 'POST', `/api/v1/clients/${own.client_id}/rotate-secret`, {}), 503);
    expectGateRefusal(await call(ctx.t, a.auth, 'POST', '/api/v1/clients', { name: 'no-room' }), 503);
    expectGateRefusal(await ctx.inject({ method: 'POST', url: `/admin/v1/partners/${a.id}/clients`, headers: ADMIN }), 503);
    expect(await clientRow(ctx.t, own.client_id)).toEqual(rowBefore);

    const after = await hashMetrics(ctx.t);
    expect(after.hashes).toBe(before.hashes);
    expect((after.refused['queue_full'] ?? 0) - (before.refused['queue_full'] ?? 0)).toBe(3);
    releaseAll();
    expect((await tokenRequest(ctx.t, own.client_id, own.client_secret)).statusCode).toBe(200); // not replaced
    // and with room again, the rotation hashes once
    expect((await call(ctx.t, a.auth, 'POST', `/api/v1/clients/${own.client_id}/rotate-secret`, {})).statusCode).toBe(200);
    expect((await hashMetrics(ctx.t)).hashes).toBe(before.hashes + 1);
  });

  it('answers 409 client_limit_reached and 403 credential_in_grace before hashing', async () => {
    const p = await ctx.newPartner('Gamma'); // one client, the operator's
    const made: Array<{ client_id: string; client_secret: string }> = [];
    for (let i = 0; i < 19; i++) made.push(await createClient(ctx.t, p.auth, `c${i}`));
    const graceful = made[0];
    if (!graceful) throw new Error('no client made');
    const oldToken = await tokenFor(ctx.t, graceful.client_id, graceful.client_secret);
    expect(
      (await call(ctx.t, p.auth, 'POST', `/api/v1/clients/${graceful.client_id}/rotate-secret`, { expires_in_hours: 1 }))
        .statusCode,
    ).toBe(200);

    const before = await hashMetrics(ctx.t);
    void hold('someone-1');
    void hold('someone-2');
    const full = await call(ctx.t, p.auth, 'POST', '/api/v1/clients', { name: 'twenty-first' });
    expect(outcome(full)).toEqual({ status: 409, code: 'client_limit_reached' });
    for (const [method, url, payload] of [
      ['POST', '/api/v1/clients', { name: 'x' }],
      ['POST', `/api/v1/clients/${p.clientId}/rotate-secret`, {}],
      ['DELETE', `/api/v1/clients/${made[1]?.client_id ?? ''}`, undefined],
    ] as const) {
      expect(outcome(await call(ctx.t, oldToken, method, url, payload))).toEqual({ status: 403, code: 'credential_in_grace' });
    }
    expect((await hashMetrics(ctx.t)).hashes).toBe(before.hashes);
  });

  it('gives a partner at most its share: 429 rate_limit_exceeded at once while another partner and the token endpoint are served', async () => {
    const mine = await createClient(ctx.t, a.auth, 'busy');
    void hold(`partner:${a.id}`); // a's one place (OAUTH_HASH_PER_ADDRESS=1) is taken
    const before = await hashMetrics(ctx.t);
    expectGateRefusal(await call(ctx.t, a.auth, 'POST', `/api/v1/clients/${mine.client_id}/rotate-secret`, {}), 429);
    expectGateRefusal(await call(ctx.t, a.auth, 'POST', '/api/v1/clients', { name: 'more' }), 429);
    // b's rotation and a token request run in the slot a cannot take
    expect(
      (await call(ctx.t, b.auth, 'POST', `/api/v1/clients/${b.clientId}/rotate-secret`, { expires_in_hours: 1 })).statusCode,
    ).toBe(200);
    expect((await tokenRequest(ctx.t, mine.client_id, mine.client_secret)).statusCode).toBe(200);
    const after = await hashMetrics(ctx.t);
    expect((after.refused['address_busy'] ?? 0) - (before.refused['address_busy'] ?? 0)).toBe(2);
    expect(after.hashes).toBe(before.hashes + 1);

    void hold('admin');
    expectGateRefusal(await ctx.inject({ method: 'POST', url: `/admin/v1/partners/${a.id}/clients`, headers: ADMIN }), 429);
  });

  it('waits at most OAUTH_HASH_QUEUE_TIMEOUT_MS for a slot, then 503, changing nothing', async () => {
    const queued = await startOffers(
      { OAUTH_HASH_CONCURRENCY: '2', OAUTH_HASH_QUEUE: '4', OAUTH_HASH_PER_ADDRESS: '2', OAUTH_HASH_QUEUE_TIMEOUT_MS: '300' },
      { db: ctx.t.db },
    );
    try {
      const mine = await createClient(queued, a.auth, 'slow');
      const rowBefore = await clientRow(queued, mine.client_id);
      const queuedGate = queued.app.get(SecretGate);
      void hold('someone-1', queuedGate);
      void hold('someone-2', queuedGate);
      const before = await hashMetrics(queued);
      expectGateRefusal(await call(queued, a.auth, 'POST', `/api/v1/clients/${mine.client_id}/rotate-secret`, {}), 503);
      expect(((await hashMetrics(queued)).refused['timeout'] ?? 0) - (before.refused['timeout'] ?? 0)).toBe(1);
      expect(await clientRow(queued, mine.client_id)).toEqual(rowBefore);
    } finally {
      releaseAll();
      await queued.close();
    }
  });
});
