import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import { type ExposedMetrics, familyOf, metricNames, parseAlertRules, parseExposition } from '../support/prometheus-rules';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';

/**
 * Every metric an alert rule (deploy/prometheus/alerts.yml) or a dashboard panel
 * (deploy/grafana/<service>.json) reads is exported by GET /metrics of the service(s) it is
 * about, and no label of any exported series can carry an id or a tenant's name.
 */
const root = process.cwd();
type ServiceName = 'offers-api' | 'vector-api' | 'payments-api';
const ALL: ServiceName[] = ['offers-api', 'vector-api', 'payments-api'];
const definitions: Record<ServiceName, ServiceDefinition<PlatformConfig>> = {
  'offers-api': offersService as unknown as ServiceDefinition<PlatformConfig>,
  'vector-api': vectorService as unknown as ServiceDefinition<PlatformConfig>,
  'payments-api': paymentsService as unknown as ServiceDefinition<PlatformConfig>,
};

/** Which services a rule group is about (alerts.yml's groups). */
const GROUP_SERVICES: Record<string, ServiceName[]> = {
  availability: ALL,
  http: ALL,
  idempotency: ALL,
  oauth: ['offers-api'],
  webhooks: ['offers-api', 'payments-api'],
  queues: ALL,
  offers: ['offers-api'],
  vector: ['vector-api'],
};

/** Series Prometheus makes itself at scrape time, not exported by a service. */
const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);

/**
 * Every label name a service may export. None holds an id or a tenant-chosen name: routes
 * are templates, queues and job names are the code's, the rest are fixed sets.
 */
const ALLOWED_LABELS = new Set([
  'service',
  // HTTP (semantic-convention names, and the deprecated alias's)
  'http_route',
  'http_request_method',
  'http_response_status_code',
  'route',
  'method',
  'status_code',
  'le',
  // queues, webhooks, limits, readiness
  'queue',
  'state',
  'job_name',
  'outcome',
  'result',
  'limit',
  'reason',
  'dependency',
  // prom-client's process and Node.js metrics
  'kind',
  'space',
  'type',
  'version',
  'major',
  'minor',
  'patch',
  'quantile',
]);

/** Values that look like an id (a uuid, a prefixed opaque id, a request id). */
const ID_LIKE = /[0-9a-f]{8}-[0-9a-f]{4}-|^[a-z]{2,8}_[0-9A-Za-z]{12,}$/;

const expected = new Map<ServiceName, Map<string, string[]>>(ALL.map((s) => [s, new Map<string, string[]>()]));
function expect_(service: ServiceName, metric: string, source: string): void {
  const sources = expected.get(service)!;
  sources.set(metric, [...(sources.get(metric) ?? []), source]);
}

const rules = parseAlertRules(readFileSync(join(root, 'deploy/prometheus/alerts.yml'), 'utf8'));
for (const rule of rules) {
  const services = GROUP_SERVICES[rule.group];
  if (services === undefined) throw new Error(`alerts.yml group ${rule.group} is not mapped to its services in this test`);
  for (const metric of metricNames(rule.expr)) {
    if (!SCRAPE_SERIES.has(metric)) for (const s of services) expect_(s, metric, `alert ${rule.alert}`);
  }
}

interface Panel {
  readonly title?: string;
  readonly targets?: Array<{ readonly expr?: string }>;
  readonly panels?: Panel[];
}
for (const service of ALL) {
  const dashboard = JSON.parse(readFileSync(join(root, `deploy/grafana/${service}.json`), 'utf8')) as { panels: Panel[] };
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  for (const panel of panels) {
    for (const target of panel.targets ?? []) {
      for (const metric of metricNames(target.expr ?? '')) expect_(service, metric, `panel "${panel.title ?? ''}"`);
    }
  }
}

describe.each(ALL)('%s /metrics', (service) => {
  let t: TestApp<PlatformConfig>;
  let exposed: ExposedMetrics;
  beforeAll(async () => {
    t = await startTestApp(definitions[service]);
    await t.app.inject({ method: 'GET', url: '/health/ready' });
    await t.app.inject({ method: 'GET', url: '/no/such/route' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    exposed = parseExposition(res.body);
  });
  afterAll(async () => {
    await t.close();
  });

  it('exports every metric its alert rules and its dashboard read', () => {
    const wanted = expected.get(service)!;
    expect(wanted.size).toBeGreaterThan(10);
    const missing = [...wanted.entries()]
      .filter(([metric]) => !exposed.families.has(familyOf(metric, exposed.families)))
      .map(([metric, sources]) => `${metric} (${sources.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('exports no label outside the allow-list and no id-like label value', () => {
    expect(exposed.samples.length).toBeGreaterThan(100);
    const labels = new Set(exposed.samples.flatMap((s) => Object.keys(s.labels)));
    expect([...labels].filter((l) => !ALLOWED_LABELS.has(l))).toEqual([]);
    const idLike = exposed.samples.flatMap((s) =>
      Object.entries(s.labels)
        .filter(([name, value]) => name !== 'version' && ID_LIKE.test(value))
        .map(([name, value]) => `${s.name}{${name}="${value}"}`),
    );
    expect(idLike).toEqual([]);
  });

  it('observes requests in the semantic-convention histogram and its deprecated alias alike', () => {
    const count = (name: string, labels: Record<string, string>): number =>
      exposed.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).length;
    expect(
      count('http_server_request_duration_seconds_count', {
        http_route: 'unmatched',
        http_request_method: 'GET',
        http_response_status_code: '404',
      }),
    ).toBe(1);
    expect(count('http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status_code: '404' })).toBe(1);
    expect(exposed.samples.some((s) => Object.values(s.labels).includes('/no/such/route'))).toBe(false);
  });
});
