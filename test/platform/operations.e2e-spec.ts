import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';

const services: Array<ServiceDefinition<PlatformConfig>> = [offersService, vectorService, paymentsService].map(
  (s) => s as unknown as ServiceDefinition<PlatformConfig>,
);

describe.each(services)('$name operations endpoints', (definition) => {
  let t: TestApp<PlatformConfig>;
  beforeAll(async () => {
    t = await startTestApp(definition);
  });
  afterAll(async () => {
    await t.close();
  });

  it('GET /health/live is 200', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health/live' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /health/ready is 200 with PostgreSQL and Redis up', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', checks: { postgres: 'up', redis: 'up' } });
  });

  it('GET /metrics has process metrics and the HTTP histogram by route template', async () => {
    await t.app.inject({ method: 'GET', url: '/health/live' });
    await t.app.inject({ method: 'GET', url: '/definitely/not/here' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('process_cpu_user_seconds_total');
    expect(res.body).toMatch(
      new RegExp(
        `http_server_request_duration_seconds_count\\{service="${definition.name}",http_request_method="GET",http_route="/health/live",http_response_status_code="200"\\} \\d+`,
      ),
    );
    // the deprecated alias, one more release: the same observations under the old names
    expect(res.body).toMatch(
      new RegExp(
        `http_request_duration_seconds_count\\{service="${definition.name}",method="GET",route="/health/live",status_code="200"\\} \\d+`,
      ),
    );
    expect(res.body).toContain('# HELP http_request_duration_seconds DEPRECATED');
    // unknown URLs are one label value, not one per URL
    expect(res.body).toContain('http_route="unmatched",http_response_status_code="404"');
    expect(res.body).toContain('route="unmatched",status_code="404"');
    expect(res.body).not.toContain('/definitely/not/here');
    // every BullMQ queue of the process, by state (what a stuck-queue alert watches)
    expect(res.body).toMatch(new RegExp(`queue_jobs\\{queue="[a-z-]+",state="waiting",service="${definition.name}"\\} \\d+`));
    expect(res.body).toMatch(new RegExp(`queue_jobs\\{queue="[a-z-]+",state="failed",service="${definition.name}"\\} \\d+`));
  });

  it('GET /openapi.json and /docs describe the service', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(doc.statusCode).toBe(200);
    const json = doc.json<{ openapi: string; info: { title: string }; paths: Record<string, unknown> }>();
    expect(json.openapi).toMatch(/^3\./);
    expect(json.info.title).toBe(definition.name);
    expect(Object.keys(json.paths)).toEqual(expect.arrayContaining(['/health/live', '/health/ready', '/admin/v1/info']));
    const ui = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('readiness when a dependency is down', () => {
  it('answers 503 naming redis when Redis is unreachable, in the contract error body', async () => {
    const t = await startTestApp(offersService, { REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const live = await t.app.inject({ method: 'GET', url: '/health/live' });
      expect(live.statusCode).toBe(200);
      const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({
        error: {
          type: 'api_error',
          code: 'service_unavailable',
          message: 'Readiness check failed: redis',
          checks: { postgres: 'up', redis: 'down' },
          request_id: res.headers['request-id'],
        },
      });
    } finally {
      await t.close();
    }
  });

  it('answers 503 naming postgres when PostgreSQL is unreachable', async () => {
    const t = await startTestApp(vectorService, { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none' });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      const body = res.json<{ error: { message: string; checks: Record<string, string> } }>();
      expect(body.error.message).toBe('Readiness check failed: postgres');
      expect(body.error.checks).toEqual({ postgres: 'down', redis: 'up' });
    } finally {
      await t.close();
    }
  });
});

describe('ROLE=worker', () => {
  it('serves health and metrics only', async () => {
    const t = await startTestApp(paymentsService, { ROLE: 'worker' });
    try {
      expect((await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
      const res = await t.app.inject({
        method: 'GET',
        url: '/admin/v1/info',
        headers: { authorization: 'Bearer dev-admin-key' },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json<{ error: { code: string } }>().error.code).toBe('route_not_found');
    } finally {
      await t.close();
    }
  });
});
