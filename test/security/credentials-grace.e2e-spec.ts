/**
 * payments-api keys in their grace period, and Idempotency-Key on key creation (platform
 * contract, third round, "Credentials and sessions"; issue 31):
 * - a key rolled with a grace period cannot roll, create or revoke keys (403
 *   `credential_in_grace`): a leaked old key cannot undo the roll that replaced it, nor revoke
 *   the new key past the last-secret-key guard; the owner's newest key always survives;
 * - a console session acts as the account's current key of its mode and still manages keys;
 * - `POST /v2/api-keys` and `/v2/api-keys/roll` honour Idempotency-Key, the replay (checked
 *   before the grace rule) returns the same new secret, and the stored answer holds that
 *   secret only encrypted (AES-256-GCM), never in clear.
 */
import { randomUUID } from 'node:crypto';
import { Clock, ConfigError, IdempotencyService, loadConfig } from '@app/platform';
import { jest } from '@jest/globals';
import type { LightMyRequestResponse } from 'fastify';
import { paymentsService } from '../../apps/payments-api/src/service';
import { type Account, type ErrorJson, newAccount, type PaymentsApp, startPayments } from '../payments-api/payments-context';
import { problemsOf } from '../support/config-problems';
import { consoleSession } from '../support/console';
import { leakNeedles, sql } from './support';

type Headers = Record<string, string>;

interface CreatedKey {
  id: string;
  secret: string;
  expires_at: string | null;
}

const bearer = (secret: string): Headers => ({ authorization: `Bearer ${secret}` });
const HOUR = 3_600_000;

describe('payments-api: keys in grace, and Idempotency-Key on key creation', () => {
  let t: PaymentsApp;

  beforeAll(async () => {
    t = await startPayments();
  });
  afterAll(async () => {
    await t.close();
  });

  const call = (headers: Headers, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

  const created = (res: LightMyRequestResponse): CreatedKey => {
    expect([res.statusCode, res.body]).toEqual([201, res.body]);
    return res.json<CreatedKey>();
  };

  const errorOf = (res: LightMyRequestResponse): [number, string] => [res.statusCode, res.json<ErrorJson>().error?.code];

  const status = async (headers: Headers): Promise<number> => (await call(headers, 'GET', '/v2/customers')).statusCode;

  const workingSecretKeys = async (accountId: string): Promise<number> => {
    const rows = await sql<{ n: number }>(
      t.db.url,
      `SELECT count(*)::int AS n FROM payment_api_keys
        WHERE account_id = $1 AND mode = 'test' AND kind = 'secret' AND revoked_at IS NULL
          AND (expires_at IS NULL OR expires_at > now())`,
      [accountId],
    );
    return rows[0]?.n ?? -1;
  };

  describe('grace', () => {
    let acct: Account;
    let owner: Headers; // the key the owner's roll returned
    let leaked: Headers; // the old key, rolled with 24 h of grace (what an attacker holds)

    beforeEach(async () => {
      acct = await newAccount(t, 'Grace');
      leaked = acct.test;
      owner = bearer(created(await call(leaked, 'POST', '/v2/api-keys/roll', { mode: 'test', expires_in_hours: 24 })).secret);
    });

    it('the old key rolls again without grace → 403 credential_in_grace; the owner keeps the account (the finding)', async () => {
      const res = await call(leaked, 'POST', '/v2/api-keys/roll', { mode: 'test' });
      expect(errorOf(res)).toEqual([403, 'credential_in_grace']);
      expect(res.json<ErrorJson>().error.type).toBe('permission_error');
      expect(await status(owner)).toBe(200);
      // the old key still serves the other routes until its expiry
      expect(await status(leaked)).toBe(200);
    });

    it('the old key cannot revoke the non-expiring key (nor itself, nor create one) → 403; the newest key survives', async () => {
      const keys = (await call(owner, 'GET', '/v2/api-keys')).json<{ data: Array<{ id: string; expires_at: string | null }> }>();
      const newest = keys.data.find((k) => k.expires_at === null)?.id ?? '';
      const old = keys.data.find((k) => k.expires_at !== null)?.id ?? '';
      expect(errorOf(await call(leaked, 'DELETE', `/v2/api-keys/${newest}`))).toEqual([403, 'credential_in_grace']);
      expect(errorOf(await call(leaked, 'DELETE', `/v2/api-keys/${old}`))).toEqual([403, 'credential_in_grace']);
      const restricted = { mode: 'test', name: 'backdoor', permissions: { customers: 'write' } };
      expect(errorOf(await call(leaked, 'POST', '/v2/api-keys', restricted))).toEqual([403, 'credential_in_grace']);
      expect(await status(owner)).toBe(200);
      expect(await workingSecretKeys(acct.id)).toBe(2);
      // the owner's key does manage keys, so the refusals above are the grace rule's
      expect((await call(owner, 'DELETE', `/v2/api-keys/${old}`)).statusCode).toBe(200);
      expect(await status(leaked)).toBe(401);
    });

    it('a live key in grace cannot manage the test keys either', async () => {
      const liveOwner = created(await call(acct.live, 'POST', '/v2/api-keys/roll', { mode: 'live', expires_in_hours: 1 }));
      expect(errorOf(await call(acct.live, 'POST', '/v2/api-keys/roll', { mode: 'test' }))).toEqual([403, 'credential_in_grace']);
      expect((await call(bearer(liveOwner.secret), 'POST', '/v2/api-keys/roll', { mode: 'test' })).statusCode).toBe(201);
    });

    it('a console session acts as the current key of its mode: it still rolls, creates and revokes keys', async () => {
      const session = (await consoleSession(t.app, 'payments', acct.id)).headers;
      const rk = created(
        await call(session, 'POST', '/v2/api-keys', { mode: 'test', name: 'console', permissions: { payments: 'read' } }),
      );
      expect((await call(session, 'DELETE', `/v2/api-keys/${rk.id}`)).statusCode).toBe(200);
      const rolled = created(await call(session, 'POST', '/v2/api-keys/roll', { mode: 'test' }));
      expect(await status(bearer(rolled.secret))).toBe(200);
      expect([await status(owner), await status(leaked)]).toEqual([401, 401]);
      const live = { ...session, 'console-mode': 'live' };
      expect((await call(live, 'POST', '/v2/api-keys/roll', { mode: 'live' })).statusCode).toBe(201);
    });
  });

  describe('Idempotency-Key on POST /v2/api-keys and /v2/api-keys/roll', () => {
    const withKey = (headers: Headers, key: string): Headers => ({ ...headers, 'idempotency-key': key });

    it('a repeated create returns the same key and secret, and makes one key (the finding: it made two)', async () => {
      const acct = await newAccount(t, 'Idem create');
      const key = randomUUID();
      const body = { mode: 'test', name: 'reporting', permissions: { payments: 'read' } };
      const first = await call(withKey(acct.test, key), 'POST', '/v2/api-keys', body);
      const again = await call(withKey(acct.test, key), 'POST', '/v2/api-keys', body);
      expect(created(first).secret).toMatch(/^rk_test_/);
      expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
      const rows = await sql<{ n: number }>(
        t.db.url,
        `SELECT count(*)::int AS n FROM payment_api_keys WHERE account_id = $1 AND kind = 'restricted'`,
        [acct.id],
      );
      expect(rows[0]?.n).toBe(1);
      // another body under the same key is 422, as on every idempotent route
      const other = await call(withKey(acct.test, key), 'POST', '/v2/api-keys', { ...body, name: 'other' });
      expect(errorOf(other)).toEqual([422, 'idempotency_key_reused']);
    });

    it('a roll retried after a lost answer, from the key now in grace, replays the new secret (no lock-out, one new key)', async () => {
      const acct = await newAccount(t, 'Idem roll');
      const key = randomUUID();
      const body = { mode: 'test', expires_in_hours: 24 };
      const first = created(await call(withKey(acct.test, key), 'POST', '/v2/api-keys/roll', body));
      // the caller never saw `first`: it retries with the key it has, now in its grace period
      const retry = await call(withKey(acct.test, key), 'POST', '/v2/api-keys/roll', body);
      expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([201, 'true']);
      expect(retry.json<CreatedKey>()).toEqual(first);
      expect(await status(bearer(first.secret))).toBe(200);
      expect(await workingSecretKeys(acct.id)).toBe(2); // the original (in grace) and the one new key
      // without the Idempotency-Key the same call is the grace rule's 403, so the replay above can fail
      expect(errorOf(await call(acct.test, 'POST', '/v2/api-keys/roll', body))).toEqual([403, 'credential_in_grace']);
    });

    it('stores the answer encrypted (AES-GCM envelope), never the secret in clear', async () => {
      const acct = await newAccount(t, 'Idem sealed');
      const key = randomUUID();
      const rolled = created(
        await call(withKey(acct.live, key), 'POST', '/v2/api-keys/roll', { mode: 'live', expires_in_hours: 1 }),
      );
      const rows = await sql<{ response_body: string; scope: string }>(
        t.db.url,
        'SELECT response_body, scope FROM idempotency_keys WHERE key = $1',
        [key],
      );
      expect(rows).toHaveLength(1);
      const stored = rows[0]?.response_body ?? '';
      expect(stored).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      for (const needle of leakNeedles(rolled.secret)) expect(stored).not.toContain(needle);
      expect(stored).not.toContain(rolled.id);
      expect(rows[0]?.scope).toBe(`payments:${acct.id}:live`);
      // the routes without secrets still store plain JSON
      const plain = randomUUID();
      expect((await call(withKey(bearer(rolled.secret), plain), 'POST', '/v2/customers', {})).statusCode).toBe(201);
      const customer = await sql<{ response_body: string }>(
        t.db.url,
        'SELECT response_body FROM idempotency_keys WHERE key = $1',
        [plain],
      );
      expect(JSON.parse(customer[0]?.response_body ?? 'null')).toMatchObject({ object: 'customer' });
    });

    it('replays for the same tenant and mode only, within the retention window', async () => {
      const acct = await newAccount(t, 'Idem scope');
      const other = await newAccount(t, 'Idem other');
      const key = randomUUID();
      const body = { mode: 'test', name: 'scoped', permissions: {} };
      const first = created(await call(withKey(acct.test, key), 'POST', '/v2/api-keys', body));
      // another account, and the live mode of the same account: new keys, never the first secret
      for (const headers of [other.test, acct.live]) {
        const res = await call(withKey(headers, key), 'POST', '/v2/api-keys', body);
        expect([res.statusCode, res.headers['idempotent-replayed']]).toEqual([201, undefined]);
        expect(res.json<CreatedKey>().secret).not.toBe(first.secret);
      }
      // past the retention window the record is not replayed (and the purge deletes it)
      const later = new Date(Date.now() + (t.config.IDEMPOTENCY_RETENTION_HOURS + 1) * HOUR);
      const spy = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(later);
      try {
        const expired = await call(withKey(acct.test, key), 'POST', '/v2/api-keys', body);
        expect([expired.statusCode, expired.headers['idempotent-replayed']]).toEqual([201, undefined]);
        expect(expired.json<CreatedKey>().secret).not.toBe(first.secret);
      } finally {
        spy.mockRestore();
      }
      const spyPurge = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(later.getTime() + 2 * 24 * HOUR));
      try {
        await t.app.get(IdempotencyService).purgeExpired();
      } finally {
        spyPurge.mockRestore();
      }
      expect(await sql(t.db.url, 'SELECT id FROM idempotency_keys WHERE key = $1', [key])).toEqual([]);
    });
  });

  it('production requires PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY (32+ characters); development generates one', () => {
    const base = { DATABASE_URL: 'postgresql://x@127.0.0.1:1/x', ADMIN_API_KEY: 'a'.repeat(40), NODE_ENV: 'production' };
    expect(problemsOf(() => loadConfig(paymentsService.configClass, base))).toContain('PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY');
    expect(
      problemsOf(() => loadConfig(paymentsService.configClass, { ...base, PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY: 'short' })),
    ).toContain('PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY');
    // with a good value, this variable is not among the problems (others may be, in production)
    let problems: string[] = [];
    try {
      loadConfig(paymentsService.configClass, { ...base, PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY: 'k'.repeat(32) });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems.map(([name]) => name);
    }
    expect(problems).not.toContain('PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY');
    expect(
      loadConfig(paymentsService.configClass, { ...base, NODE_ENV: 'development' }).PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY,
    ).toBeUndefined();
  });
});
