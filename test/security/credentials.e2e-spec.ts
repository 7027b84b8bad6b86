/**
 * How secrets are compared and stored.
 *
 * Every comparison of a presented secret goes through one constant-time helper,
 * `secretComparison.equal` in libs/platform (`constantTimeEqual` delegates to it):
 *  - the admin key (AdminGuard, all three services);
 *  - OAuth client secrets: scrypt of the presented secret vs the stored hash (verifySecret),
 *    also against a decoy hash when the client does not exist;
 *  - webhook signatures: the platform only signs; `safeEqual` (for receivers/tests) delegates.
 * The other credentials are never compared in process memory:
 *  - vector tokens and payments keys are looked up by their SHA-256 in a unique index (the
 *    presented value is hashed first, so lookup time says nothing about the stored secret);
 *  - access tokens (JWT HS256) are verified by jose with WebCrypto `subtle.verify`, which
 *    compares the MAC in constant time.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { constantTimeEqual, secretComparison } from '@app/platform';
import { jest } from '@jest/globals';
import fc from 'fast-check';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { safeEqual, serviceSignature } from '../../libs/webhooks/src/security/signature';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { sql } from './support';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('secretComparison.equal: the one constant-time comparison', () => {
  it('is true only for equal secrets and never throws, whatever the lengths', () => {
    const key = 'k3y-0123456789abcdef';
    expect(constantTimeEqual(key, key)).toBe(true);
    expect(constantTimeEqual(Buffer.from(key), Buffer.from(key))).toBe(true);
    for (const other of [
      '',
      key.slice(0, -1), // a prefix of the secret
      key.slice(1), // a suffix
      `${key}x`, // the secret as a prefix
      `x${key}`,
      key.toUpperCase(),
      `${key}\u0000`,
      'k3y-0123456789abcdeF',
    ]) {
      expect([other, constantTimeEqual(other, key), constantTimeEqual(key, other)]).toEqual([other, false, false]);
    }
    expect(constantTimeEqual(Buffer.alloc(0), Buffer.alloc(64))).toBe(false);
    expect(constantTimeEqual(Buffer.alloc(32), Buffer.alloc(33))).toBe(false);
    expect(constantTimeEqual('é', 'e\u0301')).toBe(false);
  });

  it('agrees with === on arbitrary strings and byte arrays (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.uint8Array({ maxLength: 80 }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(Buffer.from(a).equals(Buffer.from(b)));
      }),
    );
  });

  it('is what safeEqual (webhook signatures) uses', () => {
    const spy = jest.spyOn(secretComparison, 'equal');
    try {
      const sig = serviceSignature('whsec_test', '{"a":1}');
      expect(safeEqual(sig, sig)).toBe(true);
      expect(safeEqual(sig, sig.slice(0, -2))).toBe(false);
      expect(spy).toHaveBeenCalledWith(sig, sig.slice(0, -2));
    } finally {
      spy.mockRestore();
    }
  });
});

describe('every secret-comparing auth path calls the helper', () => {
  const ADMIN_KEY = 'admin-key-for-the-spy-test-0123456789';
  let t: TestApp<InstanceType<typeof offersService.configClass>>;
  let client: { client_id: string; client_secret: string };
  const spyOnHelper = () => jest.spyOn(secretComparison, 'equal');
  let spy: ReturnType<typeof spyOnHelper>;

  beforeAll(async () => {
    t = await startTestApp(offersService, { ADMIN_API_KEY: ADMIN_KEY, OAUTH_TOKEN_FAILURES_PER_MINUTE: '10000' });
    const p = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/partners',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      payload: { name: 'Spy', tier: 'growth' },
    });
    const c = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/partners/${p.json<{ id: string }>().id}/clients`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    client = c.json<{ client_id: string; client_secret: string }>();
  });
  beforeEach(() => {
    spy = spyOnHelper();
  });
  afterEach(() => {
    spy.mockRestore();
  });
  afterAll(async () => {
    await t.close();
  });

  it('AdminGuard compares the presented key with ADMIN_API_KEY through it (wrong and right key)', async () => {
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/info',
      headers: { authorization: `Bearer ${ADMIN_KEY}x` },
    });
    expect(wrong.statusCode).toBe(401);
    expect(spy).toHaveBeenCalledWith(`${ADMIN_KEY}x`, ADMIN_KEY);
    expect(spy).toHaveLastReturnedWith(false);
    const right = await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(right.statusCode).toBe(200);
    expect(spy).toHaveLastReturnedWith(true);
  });

  it('the guard decides by it: forced to false, even the right key is refused', async () => {
    spy.mockReturnValue(false);
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(res.statusCode).toBe(401);
  });

  it.each([
    ['form, right secret', () => ({ client_id: client.client_id, client_secret: client.client_secret }), undefined, 200],
    ['form, wrong secret', () => ({ client_id: client.client_id, client_secret: `${client.client_secret}x` }), undefined, 401],
    [
      'form, unknown client (decoy hash)',
      () => ({ client_id: 'client_nobody', client_secret: client.client_secret }),
      undefined,
      401,
    ],
    ['Basic, right secret', () => ({}), () => `${client.client_id}:${client.client_secret}`, 200],
    ['Basic, wrong secret', () => ({}), () => `${client.client_id}:${client.client_secret.slice(0, -1)}`, 401],
  ] as const)('OAuth client authentication (%s) verifies the scrypt hash through it', async (_label, fields, basic, status) => {
    const headers: Record<string, string> = { ...FORM };
    if (basic) headers['authorization'] = `Basic ${Buffer.from(basic()).toString('base64')}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers,
      payload: new URLSearchParams({ grant_type: 'client_credentials', ...fields() }).toString(),
    });
    expect(res.statusCode).toBe(status);
    // one call with the two 32-byte scrypt outputs
    const bufferCalls = spy.mock.calls.filter(([a, b]) => a instanceof Uint8Array && b instanceof Uint8Array);
    expect(bufferCalls).toHaveLength(1);
    expect(bufferCalls[0]?.map((x) => (x as Uint8Array).byteLength)).toEqual([32, 32]);
    expect(spy).toHaveLastReturnedWith(status === 200);
  });
});

describe('credentials at rest and across services (one shared database, as in production)', () => {
  let db: TestDatabase;
  const apps: Array<TestApp<never>> = [];
  let offers: TestApp<never>;
  let payments: TestApp<never>;
  let vector: TestApp<never>;
  const issued: Record<string, string> = {};

  beforeAll(async () => {
    db = await createTestDatabase();
    const start = async (def: unknown): Promise<TestApp<never>> => {
      const t = (await startTestApp(
        def as typeof offersService,
        { ROLE: 'api', OAUTH_TOKEN_FAILURES_PER_MINUTE: '10000' },
        { db },
      )) as unknown as TestApp<never>;
      apps.push(t);
      return t;
    };
    offers = await start(offersService);
    payments = await start(paymentsService);
    vector = await start(vectorService);
    const admin = { authorization: 'Bearer dev-admin-key' };
    const p = await offers.app.inject({
      method: 'POST',
      url: '/admin/v1/partners',
      headers: admin,
      payload: { name: 'X', tier: 'growth' },
    });
    const c = await offers.app.inject({
      method: 'POST',
      url: `/admin/v1/partners/${p.json<{ id: string }>().id}/clients`,
      headers: admin,
    });
    const { client_id, client_secret } = c.json<{ client_id: string; client_secret: string }>();
    issued['client_secret'] = client_secret;
    const tok = await offers.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
    });
    issued['access_token'] = tok.json<{ access_token: string }>().access_token;
    const acct = await payments.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: admin, payload: { name: 'X' } });
    issued['test_key'] = acct.json<{ test_key: string }>().test_key;
    issued['live_key'] = acct.json<{ live_key: string }>().live_key;
    const vt = await vector.app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: admin, payload: { name: 'x' } });
    issued['vector_token'] = vt.json<{ token: string }>().token;
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    await db.drop();
  });

  it('stores no issued credential in clear: only SHA-256 (keys, tokens) or a salted scrypt hash (client secrets)', async () => {
    const tables = await sql<{ name: string }>(db.url, `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`);
    let dump = '';
    for (const { name } of tables) dump += JSON.stringify(await sql(db.url, `SELECT * FROM "${name}"`));
    for (const [kind, value] of Object.entries(issued)) {
      expect([kind, dump.includes(value)]).toEqual([kind, false]);
      expect([kind, dump.includes(value.slice(-20))]).toEqual([kind, false]);
    }
    const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
    expect(dump).toContain(sha(issued['vector_token'] ?? ''));
    expect(dump).toContain(sha(issued['test_key'] ?? ''));
    expect(dump).toMatch(/"secret_hash":"scrypt\$16384\$8\$1\$/);
  });

  it("no service accepts another service's credential", async () => {
    const probes: Array<[string, TestApp<never>, string]> = [
      ['offers-api', offers, '/api/v1/offers'],
      ['payments-api', payments, '/v2/customers'],
      ['vector-api', vector, '/v1/tables'],
    ];
    const own: Record<string, string[]> = {
      'offers-api': ['access_token'],
      'payments-api': ['test_key', 'live_key'],
      'vector-api': ['vector_token'],
    };
    for (const [service, t, url] of probes) {
      for (const [kind, value] of Object.entries(issued)) {
        const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${value}` } });
        const accepted = own[service]?.includes(kind) ?? false;
        expect([service, kind, res.statusCode]).toEqual([service, kind, accepted ? 200 : 401]);
      }
    }
  });
});

/**
 * A pragmatic scan of libs/ and apps/ (not specs): no `===`, `!==`, `==`, `!=`,
 * `startsWith`, `endsWith`, `includes` or `Buffer#equals` on something named like a secret.
 * Comparisons with null/undefined/'' or booleans, and `.length`, are presence checks and
 * are ignored. Every remaining hit was reviewed and is listed with the reason.
 */
const SECRET_NAME =
  /(secret|signature|adminkey|admin_api_key|apikey|api_key|password|passwd|credential|presented|accesstoken|access_token|bearer|hmac|^token$|^digest$|^mac$)/i;
const NOT_A_SECRET = /(Id|Ids|At|Length|Count|Type|Kind|Name|Names|Prefix|Header|Scheme|Version)$/;
const BENIGN = /^(null|undefined|true|false|''|""|``|\d+|typeof\b.*)$/;

const REVIEWED: ReadonlyArray<readonly [string, string, string]> = [
  [
    'apps/payments-api/src/compat/stripe/search/stripe-search-page.ts',
    't.q !== digest(resource, query)',
    "a /v1 search page cursor names the query it belongs to by a public hash of the query's text (no secret)",
  ],
  [
    'libs/platform/src/bootstrap.ts',
    'config.ADMIN_API_KEY === DEV_ADMIN_API_KEY',
    'boot-time warning: compares with the public development default',
  ],
  [
    'libs/platform/src/config/platform-config.ts',
    'this.ADMIN_API_KEY === DEV_ADMIN_API_KEY',
    'boot-time check against the public development default',
  ],
  [
    'libs/webhooks/src/security/signature.ts',
    "secret.startsWith('whsec_')",
    'strips the public prefix to derive the Standard Webhooks key; not a comparison with a secret',
  ],
  [
    'libs/auth/src/console/console-sessions.ts',
    "typeof presented === 'string' && constantTimeEqual(",
    'a type check of the presented CSRF token; the comparison itself is constantTimeEqual',
  ],
  [
    'apps/offers-api/src/oauth/token.service.ts',
    'clientSecret.includes(',
    'rejects a NUL character in the presented secret; no comparison with the stored one',
  ],
];

function findSecretComparisons(file: string, text: string): Array<{ file: string; line: number; code: string; source: string }> {
  const hits: Array<{ file: string; line: number; code: string; source: string }> = [];
  const lastName = (operand: string): string => /([A-Za-z_$][\w$]*)\W*$/.exec(operand.replace(/\(\)$/, ''))?.[1] ?? '';
  const secretish = (operand: string): boolean => {
    const name = lastName(operand);
    if (/^['"`]/.test(operand)) return false; // a literal is public
    return SECRET_NAME.test(name) && !NOT_A_SECRET.test(name) && !/\.length$/.test(operand);
  };
  text.split('\n').forEach((raw, i) => {
    const code = raw.replace(/\/\/.*$/, '').trim();
    if (code.startsWith('*') || code.startsWith('/*') || code === '') return;
    const operand = String.raw`[\w$.?!\[\]'"]+`;
    for (const m of code.matchAll(new RegExp(String.raw`(${operand})\s*(===|!==|==|!=)\s*(${operand})`, 'g'))) {
      const [left, right] = [m[1] ?? '', m[3] ?? ''];
      if (BENIGN.test(left) || BENIGN.test(right)) continue;
      if (secretish(left) || secretish(right)) hits.push({ file, line: i + 1, code: m[0], source: code });
    }
    for (const m of code.matchAll(/([\w$.]+)\.(startsWith|endsWith|includes|equals|localeCompare)\(/g)) {
      if (secretish(m[1] ?? '')) hits.push({ file, line: i + 1, code: m[0], source: code });
    }
    for (const m of code.matchAll(/\b(?:Buffer\.compare|\.equals)\(([^,)]+)/g)) {
      if (secretish(m[1] ?? '')) hits.push({ file, line: i + 1, code: m[0], source: code });
    }
  });
  return hits;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(entry) && !/\.spec\.ts$/.test(entry) ? [path] : [];
  });
}

describe('source scan: no secret compared with === / startsWith', () => {
  it('finds the patterns it looks for (the scanner can fail)', () => {
    const sample = [
      'if (presented === this.config.ADMIN_API_KEY) return true;',
      'return signature !== expected;',
      'if (clientSecret.startsWith(given)) ok();',
      'if (apiKey == key) ok();',
      'return Buffer.compare(secret, other) === 0;',
      'if (formSecret !== undefined) return;', // presence check: ignored
      'if (p.tokenId === tokenId) return;', // an id: ignored
    ].join('\n');
    expect(findSecretComparisons('sample.ts', sample).map((h) => h.line)).toEqual([1, 2, 3, 4, 5]);
  });

  it('finds none in libs/ and apps/ beyond the reviewed lines', () => {
    const root = process.cwd();
    const hits = [...sources(join(root, 'libs')), ...sources(join(root, 'apps'))].flatMap((path) =>
      findSecretComparisons(relative(root, path), readFileSync(path, 'utf8')),
    );
    expect(hits.length).toBeGreaterThan(0); // the reviewed lines are found, so the scan runs over real code
    const unreviewed = hits.filter((h) => !REVIEWED.some(([file, code]) => h.file === file && h.source.includes(code)));
    expect(unreviewed).toEqual([]);
  });
});
