import { startTestApp, type TestApp } from '../support/app';
import { ADMIN, offersProbe, vectorProbe } from './auth-probe';

type Offers = TestApp<InstanceType<typeof offersProbe.configClass>>;

async function partnerToken(t: Offers, tier: string): Promise<string> {
  const partner = await t.app.inject({ method: 'POST', url: '/admin/v1/partners', headers: ADMIN, payload: { name: 'P', tier } });
  const client = await t.app.inject({
    method: 'POST',
    url: `/admin/v1/partners/${partner.json<{ id: string }>().id}/clients`,
    headers: ADMIN,
  });
  const { client_id, client_secret } = client.json<{ client_id: string; client_secret: string }>();
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
  });
  return res.json<{ access_token: string }>().access_token;
}

describe('rate limits in Redis', () => {
  it('share one limit across two instances and answer 429 with Retry-After and the contract body', async () => {
    const env = { RATE_LIMIT_STARTER: '5', RATE_LIMIT_GROWTH: '50' };
    const a = await startTestApp(offersProbe, env);
    const b = await startTestApp(offersProbe, env, { db: a.db });
    try {
      const token = await partnerToken(a, 'starter');
      const headers = { authorization: `Bearer ${token}` };
      const statuses: number[] = [];
      const limits: string[] = [];
      for (const app of [a, b, a, b, a]) {
        const res = await app.app.inject({ method: 'GET', url: '/api/v1/whoami', headers });
        statuses.push(res.statusCode);
        expect(res.headers['ratelimit-policy']).toBe('"starter";q=5;w=60');
        limits.push(String(res.headers['ratelimit']));
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      expect(limits.map((l) => /;r=(\d+);/.exec(l)?.[1])).toEqual(['4', '3', '2', '1', '0']);

      const limited = await b.app.inject({ method: 'GET', url: '/api/v1/whoami', headers });
      expect(limited.statusCode).toBe(429);
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers['ratelimit']).toMatch(/^"starter";r=0;t=\d+$/);
      expect(limited.json()).toEqual({
        error: {
          type: 'rate_limit_error',
          code: 'rate_limit_exceeded',
          message: expect.stringMatching(/^Too many requests/) as unknown,
          request_id: limited.headers['request-id'],
        },
      });

      // a partner of another tier has its own counter and policy
      const growth = await partnerToken(a, 'growth');
      const other = await a.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${growth}` } });
      expect(other.statusCode).toBe(200);
      expect(other.headers['ratelimit-policy']).toBe('"growth";q=50;w=60');
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('fails open when Redis is unreachable: requests succeed without RateLimit headers', async () => {
    const t = await startTestApp(vectorProbe, { REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const created = await t.app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: ADMIN, payload: { name: 'x' } });
      const token = created.json<{ token: string }>().token;
      for (let i = 0; i < 3; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/v1/whoami', headers: { authorization: `Bearer ${token}` } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit']).toBeUndefined();
      }
      expect(t.logs.some((l) => String(l['msg']).includes('failing open'))).toBe(true);
    } finally {
      await t.close();
    }
  });
});
