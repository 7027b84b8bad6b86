import { offersService } from '../../apps/offers-api/src/service';
import { startTestApp, type TestApp } from '../support/app';

describe('ADMIN_API_KEY guard on /admin/v1', () => {
  const key = 'a-test-admin-key-0123456789abcdef';
  let t: TestApp<InstanceType<typeof offersService.configClass>>;
  beforeAll(async () => {
    t = await startTestApp(offersService, { ADMIN_API_KEY: key });
  });
  afterAll(async () => {
    await t.close();
  });

  it('rejects a missing key with 401, WWW-Authenticate and the contract body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/info' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="admin"');
    expect(res.json()).toEqual({
      error: {
        type: 'authentication_error',
        code: 'authentication_required',
        message: expect.any(String) as unknown,
        request_id: res.headers['request-id'],
      },
    });
  });

  it.each([
    ['a wrong key', `Bearer ${key}x`],
    ['a prefix of the key', `Bearer ${key.slice(0, -1)}`],
    ['the development default', 'Bearer dev-admin-key'],
  ])('rejects %s with 401 invalid_api_key', async (_label, authorization) => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: { authorization } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="admin", error="invalid_token"');
    expect(res.json<{ error: { code: string; type: string } }>().error).toMatchObject({
      type: 'authentication_error',
      code: 'invalid_api_key',
    });
  });

  it('rejects another auth scheme as missing', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: { authorization: `Basic ${key}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json<{ error: { code: string } }>().error.code).toBe('authentication_required');
  });

  it('accepts the right key and reports applied migrations', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ service: string; role: string; migrations: string[] }>();
    expect(body.service).toBe('offers-api');
    expect(body.role).toBe('all');
    expect(body.migrations).toContain('20261121000000_init');
  });

  it('never logs the presented key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: { authorization: `Bearer ${key}` } });
    // the request itself is logged (so the check below looks at its lines), without the key
    const lines = t.logs.filter((l) => l['reqId'] === res.headers['request-id']);
    expect(JSON.stringify(lines)).toContain('/admin/v1/info');
    expect(JSON.stringify(t.logs)).not.toContain(key);
  });
});
