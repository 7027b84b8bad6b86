/**
 * payments-api keys (platform contract: Tenants and self-service, "Payments keys"): roll,
 * list, revoke and restricted keys, over HTTP against the real PostgreSQL and Redis. The
 * revocation and expiry cases run on two app instances sharing the database and Redis, each
 * with its own 1 s key cache, so "refused at once on every instance" is what is checked.
 */
import { API_KEY_CACHE_TTL_MS } from '@app/auth';
import { Clock } from '@app/platform';
import { jest } from '@jest/globals';
import type { LightMyRequestResponse } from 'fastify';
import { paymentsService } from '../../apps/payments-api/src/service';
import { fillPath, openApiOperations, opKey } from '../security/support';
import { startTestApp } from '../support/app';
import { waitFor } from '../support/wait';
import { type ErrorJson, newAccount, newCustomer, type PaymentsApp, startPayments } from './payments-context';

type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH';
type Auth = Record<string, string>;

interface CreatedKey {
  id: string;
  object: string;
  mode: string;
  kind: string;
  name: string | null;
  last4: string | null;
  secret: string;
  created: string;
  expires_at: string | null;
  last_used_at: string | null;
  permissions: Record<string, string> | null;
}

const bearer = (secret: string): Auth => ({ authorization: `Bearer ${secret}` });
const HOUR = 3_600_000;

describe('payments-api: API keys', () => {
  let a: PaymentsApp;
  let b: PaymentsApp; // a second instance: same database, same Redis, its own key cache

  const call = (t: PaymentsApp, auth: Auth, method: Method, url: string, payload?: object): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload }) });

  const expectError = (res: LightMyRequestResponse, status: number, code: string, param?: string): ErrorJson['error'] => {
    const error = res.json<ErrorJson>().error;
    expect({ status: res.statusCode, code: error.code, param: error.param }).toEqual({ status, code, param });
    return error;
  };

  const roll = async (auth: Auth, body: object): Promise<CreatedKey> => {
    const res = await call(a, auth, 'POST', '/v2/api-keys/roll', body);
    expect([res.statusCode, res.body]).toEqual([201, res.body]);
    return res.json<CreatedKey>();
  };

  const restricted = async (auth: Auth, permissions: object, mode = 'test'): Promise<CreatedKey> => {
    const res = await call(a, auth, 'POST', '/v2/api-keys', { mode, name: 'reporting', permissions });
    expect([res.statusCode, res.body]).toEqual([201, res.body]);
    return res.json<CreatedKey>();
  };

  const listKeys = async (auth: Auth, query = ''): Promise<CreatedKey[]> => {
    const res = await call(a, auth, 'GET', `/v2/api-keys${query}`);
    expect(res.statusCode).toBe(200);
    return res.json<{ data: CreatedKey[] }>().data;
  };

  const status = async (t: PaymentsApp, auth: Auth): Promise<number> => (await call(t, auth, 'GET', '/v2/customers')).statusCode;

  /**
   * The other instance refuses `auth` before the entry it cached at `cachedAt` could have
   * expired on its own (API_KEY_CACHE_TTL_MS): the eviction came through Redis, within the
   * time pub/sub takes to arrive.
   */
  const refusedOn = (t: PaymentsApp, auth: Auth, cachedAt: number): Promise<boolean> =>
    waitFor('the other instance to refuse the key', async () => (await status(t, auth)) === 401, {
      timeoutMs: Math.max(0, cachedAt + API_KEY_CACHE_TTL_MS - Date.now()),
      everyMs: 5,
    });

  /** Runs `fn` with the instance's Clock at `at`. */
  async function at<T>(t: PaymentsApp, when: number, fn: () => Promise<T>): Promise<T> {
    const spy = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(when));
    try {
      return await fn();
    } finally {
      spy.mockRestore();
    }
  }

  beforeAll(async () => {
    a = await startPayments();
    b = await startTestApp(paymentsService, {}, { db: a.db });
  });

  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('roll at once: the new secret key works, the old one answers 401 at once on both instances', async () => {
    const acct = await newAccount(a);
    const cachedAt = Date.now();
    expect(await status(b, acct.test)).toBe(200); // b has the old key cached
    const key = await roll(acct.test, { mode: 'test' });
    await refusedOn(b, acct.test, cachedAt);
    const { id, secret, created, ...rest } = key;
    expect([id, secret, Number.isNaN(Date.parse(created))]).toEqual([
      id.startsWith('key_') ? id : 'key_…',
      /^sk_test_[A-Za-z0-9]{40,}$/.test(secret) ? secret : 'sk_test_…',
      false,
    ]);
    expect(rest).toEqual({
      object: 'api_key',
      mode: 'test',
      kind: 'secret',
      name: null,
      last4: secret.slice(-4),
      expires_at: null,
      last_used_at: null,
      permissions: null,
    });
    for (const t of [a, b]) {
      const res = await call(t, acct.test, 'GET', '/v2/customers');
      expectError(res, 401, 'invalid_api_key');
      expect(res.headers['www-authenticate']).toContain('invalid_token');
      expect(await status(t, bearer(key.secret))).toBe(200);
    }
    expect(await status(a, acct.live)).toBe(200); // the other mode is untouched
  });

  it('roll with expires_in_hours: the old key works until then and answers 401 from the first request after', async () => {
    const acct = await newAccount(a);
    expect(await status(b, acct.test)).toBe(200);
    const before = Date.now();
    const key = await roll(acct.test, { mode: 'test', expires_in_hours: 2 });
    const keys = await listKeys(bearer(key.secret));
    const old = keys.find((k) => k.id !== key.id);
    const expiresAt = Date.parse(old?.expires_at ?? '');
    expect(expiresAt).toBeGreaterThanOrEqual(before + 2 * HOUR);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 2 * HOUR);
    for (const t of [a, b]) {
      expect(await status(t, acct.test)).toBe(200); // cached now, with its expiry
      expect(await at(t, expiresAt - 1, () => status(t, acct.test))).toBe(200);
      // the cached principal carries the expiry: refused on the first request after it
      expect(await at(t, expiresAt, () => status(t, acct.test))).toBe(401);
      expect(await at(t, expiresAt, () => status(t, bearer(key.secret)))).toBe(200);
    }
    // a later roll never extends the earlier expiry, and can shorten it
    const again = await roll(bearer(key.secret), { mode: 'test', expires_in_hours: 100 });
    const after = await listKeys(bearer(again.secret));
    expect(after.find((k) => k.id === old?.id)?.expires_at).toBe(old?.expires_at);
    expect(Date.parse(after.find((k) => k.id === key.id)?.expires_at ?? '')).toBeGreaterThan(Date.now() + 99 * HOUR);
    const cachedAt = Date.now();
    expect(await status(b, bearer(again.secret))).toBe(200);
    await roll(bearer(again.secret), { mode: 'test', expires_in_hours: 0 });
    await refusedOn(b, bearer(again.secret), cachedAt);
    for (const auth of [acct.test, bearer(key.secret)]) expect(await status(b, auth)).toBe(401);
  });

  it('lists the working keys of the account (never a secret or hash), newest first, paged', async () => {
    const acct = await newAccount(a);
    const secrets = [acct.test['authorization'], acct.live['authorization']].map((h) => h?.replace('Bearer ', '') ?? '');
    const rk = await restricted(acct.test, { customers: 'read' });
    const rolled = await roll(acct.test, { mode: 'test', expires_in_hours: 1 });
    secrets.push(rk.secret, rolled.secret);
    const testAuth = bearer(rolled.secret);
    await call(a, testAuth, 'GET', '/v2/customers');

    const res = await call(a, testAuth, 'GET', '/v2/api-keys');
    expect(res.statusCode).toBe(200);
    for (const s of secrets) {
      expect(res.body).not.toContain(s);
      expect(res.body).not.toContain(s.slice(8));
    }
    expect(res.body).not.toMatch(/[0-9a-f]{64}/); // no SHA-256
    const list = res.json<{ object: string; url: string; has_more: boolean; data: Array<Record<string, unknown>> }>();
    expect([list.object, list.url, list.has_more]).toEqual(['list', '/v2/api-keys', false]);
    // a test key sees the test keys only: the rolled one, the restricted one, the original (expiring)
    expect(list.data.map((k) => [k['id'], k['kind'], k['mode']])).toEqual([
      [rolled.id, 'secret', 'test'],
      [rk.id, 'restricted', 'test'],
      [expect.stringMatching(/^key_/), 'secret', 'test'],
    ]);
    for (const k of list.data)
      expect(Object.keys(k).sort()).toEqual(
        ['created', 'expires_at', 'id', 'kind', 'last4', 'last_used_at', 'mode', 'name', 'object', 'permissions'].sort(),
      );
    expect(list.data[1]).toMatchObject({
      name: 'reporting',
      last4: rk.secret.slice(-4),
      permissions: { customers: 'read', payments: 'none', refunds: 'none', webhooks: 'none', events: 'none' },
    });
    // last_used_at: written off the hot path, at most once a minute
    await waitFor('last_used_at of the rolled key', async () => (await listKeys(testAuth))[0]?.last_used_at ?? undefined);

    // a live key sees both modes
    const all = await listKeys(acct.live, '?limit=100');
    expect(all.map((k) => k.mode).sort()).toEqual(['live', 'test', 'test', 'test']);
    // pages
    const first = await call(a, testAuth, 'GET', '/v2/api-keys?limit=2');
    expect(first.json<{ has_more: boolean }>().has_more).toBe(true);
    const next = await listKeys(testAuth, `?limit=2&starting_after=${rk.id}`);
    expect(next.map((k) => k.id)).toEqual([list.data[2]?.['id']]);
    // once expired, a key leaves the list
    const later = await at(a, Date.now() + 2 * HOUR, () => listKeys(testAuth));
    expect(later.map((k) => k.id)).toEqual([rolled.id, rk.id]);
  });

  it('revoke: refused at once on the other instance; a key cannot revoke itself while the only secret key of its mode that manages keys', async () => {
    const acct = await newAccount(a);
    const rk = await restricted(acct.test, { customers: 'write' });
    let cachedAt = Date.now();
    expect(await status(b, bearer(rk.secret))).toBe(200); // cached on b
    const res = await call(a, acct.test, 'DELETE', `/v2/api-keys/${rk.id}`);
    expect([res.statusCode, res.json()]).toEqual([200, { id: rk.id, object: 'api_key', deleted: true }]);
    expectError(await call(a, bearer(rk.secret), 'GET', '/v2/customers'), 401, 'invalid_api_key');
    await refusedOn(b, bearer(rk.secret), cachedAt);
    expectError(await call(a, acct.test, 'DELETE', `/v2/api-keys/${rk.id}`), 404, 'resource_missing', 'id');

    const own = (await listKeys(acct.test)).find((k) => k.kind === 'secret');
    const self = expectError(await call(a, acct.test, 'DELETE', `/v2/api-keys/${own?.id}`), 409, 'last_secret_key', 'id');
    expect(self.message).toContain('POST /v2/api-keys/roll');
    expect(await status(a, acct.test)).toBe(200);
    // rolled with an expiry, the key is in its grace period: it can no longer revoke anything,
    // itself included (credential_in_grace, third round), and the new key cannot revoke itself
    // either (the old one cannot manage keys); the new key revokes the old one
    const next = await roll(acct.test, { mode: 'test', expires_in_hours: 24 });
    expectError(await call(a, acct.test, 'DELETE', `/v2/api-keys/${own?.id}`), 403, 'credential_in_grace');
    expectError(await call(a, bearer(next.secret), 'DELETE', `/v2/api-keys/${next.id}`), 409, 'last_secret_key', 'id');
    cachedAt = Date.now();
    expect(await status(b, acct.test)).toBe(200);
    expect((await call(a, bearer(next.secret), 'DELETE', `/v2/api-keys/${own?.id}`)).statusCode).toBe(200);
    await refusedOn(b, acct.test, cachedAt);
    expect(await status(b, bearer(next.secret))).toBe(200);
  });

  it('a test-mode key cannot obtain, see or revoke live keys; a live secret key manages both modes', async () => {
    const acct = await newAccount(a);
    const liveKeyId = (await listKeys(acct.live)).find((k) => k.mode === 'live')?.id ?? '';
    const cases: Array<[Method, string, object | undefined]> = [
      ['POST', '/v2/api-keys/roll', { mode: 'live' }],
      ['POST', '/v2/api-keys', { mode: 'live', name: 'x', permissions: {} }],
      ['DELETE', `/v2/api-keys/${liveKeyId}`, undefined],
    ];
    for (const [method, url, body] of cases) {
      const error = expectError(await call(a, acct.test, method, url, body), 403, 'permission_denied');
      expect(error.type).toBe('permission_error');
    }
    expect(await status(a, acct.live)).toBe(200); // nothing happened to the live key
    expect((await listKeys(acct.test)).map((k) => k.mode)).toEqual(['test']);
    // the live key rolls the test keys
    const testKey = await roll(acct.live, { mode: 'test' });
    expect(testKey.secret).toMatch(/^sk_test_/);
    expect(await status(a, acct.test)).toBe(401);
    const rk = await restricted(acct.live, { payments: 'read' }, 'live');
    expect(rk.secret).toMatch(/^rk_live_/);
  });

  it('restricted keys: reads and writes per resource, 403 permission_denied naming what is needed', async () => {
    const acct = await newAccount(a);
    const customer = await newCustomer(a, acct.test);
    const pay = await call(a, acct.test, 'POST', '/v2/payments', { amount: 500, currency: 'gbp', customer_id: customer });
    const payment = pay.json<{ id: string }>().id;
    const writes: Record<string, [string, object]> = {
      customers: ['/v2/customers', { email: 'x@example.com' }],
      payments: ['/v2/payments', { amount: 100, currency: 'gbp', customer_id: customer }],
      refunds: ['/v2/refunds', { payment_id: payment, amount: 1 }],
      webhooks: ['/v2/webhook-endpoints', { url: 'http://127.0.0.1:9/rk' }],
    };
    const reads: Record<string, string> = {
      customers: '/v2/customers',
      payments: '/v2/payments',
      refunds: '/v2/refunds',
      webhooks: '/v2/webhook-endpoints',
      events: '/v2/events',
    };
    for (const resource of Object.keys(reads)) {
      const rk = bearer((await restricted(acct.test, { [resource]: 'read' })).secret);
      for (const [other, url] of Object.entries(reads)) {
        const res = await call(a, rk, 'GET', url);
        if (other === resource) expect([resource, url, res.statusCode]).toEqual([resource, url, 200]);
        else {
          const error = expectError(res, 403, 'permission_denied');
          expect(error.message).toContain(`${other} "read"`);
        }
      }
      const write = writes[resource];
      if (write) {
        const error = expectError(await call(a, rk, 'POST', write[0], write[1]), 403, 'permission_denied');
        expect(error.type).toBe('permission_error');
        expect(error.message).toContain(`${resource} "write"`);
        expect(error.message).toContain(`(it has ${resource} "read")`);
        // "write" allows the write and implies "read"
        const writer = bearer((await restricted(acct.test, { [resource]: 'write' })).secret);
        const res = await call(a, writer, 'POST', write[0], write[1]);
        expect([resource, res.statusCode]).toEqual([resource, 201]);
        expect((await call(a, writer, 'GET', reads[resource] ?? '')).statusCode).toBe(200);
      }
    }
    // a key with every resource "none" (all left out) reads nothing
    const none = await restricted(acct.test, {});
    expect(none.permissions).toEqual({ customers: 'none', payments: 'none', refunds: 'none', webhooks: 'none', events: 'none' });
    expectError(await call(a, bearer(none.secret), 'GET', `/v2/payments/${payment}`), 403, 'permission_denied');
  });

  it('restricted keys cannot manage keys, and are refused on a route of no declared resource only', async () => {
    const acct = await newAccount(a);
    const rk = bearer(
      (
        await restricted(acct.test, {
          customers: 'write',
          payments: 'write',
          refunds: 'write',
          webhooks: 'write',
          events: 'write',
        })
      ).secret,
    );
    const ownId = (await listKeys(acct.test)).find((k) => k.kind === 'restricted')?.id ?? '';
    // every payments-key operation: a key with "write" everywhere passes, except /v2/api-keys
    const ops = (await openApiOperations(a.app)).filter((op) => op.security.includes('payments_key'));
    expect(ops.length).toBeGreaterThan(20);
    for (const op of ops) {
      const url = fillPath(op.path, { id: ownId });
      const res = await call(a, rk, op.method as Method, url, op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
      const code = res.statusCode === 403 ? res.json<ErrorJson>().error.code : res.statusCode;
      if (op.path.startsWith('/v2/api-keys')) {
        expect([opKey(op), code]).toEqual([opKey(op), 'permission_denied']);
        expect(res.json<ErrorJson>().error.message).toContain('cannot manage API keys');
      } else expect([opKey(op), code]).not.toEqual([opKey(op), 'permission_denied']);
    }
    expect(await status(a, rk)).toBe(200); // it revoked nothing, not even itself
  });

  it('validates the bodies: expires_in_hours 0–168, known modes, permission levels and resources', async () => {
    const acct = await newAccount(a);
    const bad: Array<[string, object, string, string]> = [
      ['/v2/api-keys/roll', { mode: 'test', expires_in_hours: 169 }, 'parameter_invalid', 'expires_in_hours'],
      ['/v2/api-keys/roll', { mode: 'test', expires_in_hours: -1 }, 'parameter_invalid', 'expires_in_hours'],
      ['/v2/api-keys/roll', { mode: 'test', expires_in_hours: 1.5 }, 'parameter_invalid', 'expires_in_hours'],
      ['/v2/api-keys/roll', { mode: 'prod' }, 'parameter_invalid', 'mode'],
      ['/v2/api-keys/roll', { mode: 'test', name: 'x' }, 'parameter_unknown', 'name'],
      [
        '/v2/api-keys',
        { mode: 'test', name: 'x', permissions: { payments: 'admin' } },
        'parameter_invalid',
        'permissions.payments',
      ],
      ['/v2/api-keys', { mode: 'test', name: 'x', permissions: { balance: 'read' } }, 'parameter_unknown', 'permissions.balance'],
      ['/v2/api-keys', { mode: 'test', name: 'x' }, 'parameter_missing', 'permissions'],
      ['/v2/api-keys', { mode: 'test', permissions: {} }, 'parameter_missing', 'name'],
      ['/v2/api-keys', { mode: 'test', name: 'x', permissions: 'write' }, 'parameter_invalid', 'permissions'],
      ['/v2/api-keys', { mode: 'test', name: 'x', permissions: null }, 'parameter_missing', 'permissions'],
    ];
    for (const [url, body, code, param] of bad) {
      const res = await call(a, acct.test, 'POST', url, body);
      const error = res.json<ErrorJson>().error;
      expect([url, body, res.statusCode, error.code, error.param]).toEqual([url, body, 400, code, param]);
    }
    expect(await status(a, acct.test)).toBe(200); // no roll happened
  });
});
