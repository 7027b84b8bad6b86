/**
 * Each service's /openapi.json, compared with the reviewed copy in test/platform/openapi/.
 * A change of the public contract (a route, a field, a status) must be deliberate: rerun with
 * OPENAPI_SNAPSHOT=update to rewrite the copies, and review their diff like code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp } from '../support/app';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';

const services: Array<ServiceDefinition<PlatformConfig>> = [offersService, vectorService, paymentsService].map(
  (s) => s as unknown as ServiceDefinition<PlatformConfig>,
);
const update = process.env.OPENAPI_SNAPSHOT === 'update';

/** Keys sorted at every level, two-space indented: a stable text to diff. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

describe.each(services)('$name /openapi.json', (definition) => {
  it('matches the reviewed copy', async () => {
    const t = await startTestApp(definition);
    try {
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      // `servers` is the configured public URL or the request's origin (tested below): masked here
      const document = { ...res.json<Record<string, unknown>>(), servers: [{ url: '(masked)' }] };
      const text = `${JSON.stringify(canonical(document), null, 2)}\n`;
      const file = join(process.cwd(), 'test', 'platform', 'openapi', `${definition.name}.json`);
      if (update) writeFileSync(file, text);
      expect(text).toBe(readFileSync(file, 'utf8'));
    } finally {
      await t.close();
    }
  });
});
