/**
 * One load scenario through autocannon (in this process): a warm-up, then the measured run
 * at a fixed number of connections with pipelining 1. Latencies are taken from every
 * response's own timing (autocannon's histogram has 1 ms resolution), so p50 and p99 are
 * exact to the microsecond; requests/s is completed 2xx responses ÷ measured seconds.
 */
import { createRequire } from 'node:module';
import { machineCpuMs } from './cpu-usage';

export interface RequestSpec {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  /** A static body, or a fresh one per request (with its own extra headers). */
  readonly body?: string;
  readonly next?: () => { body: string; headers?: Record<string, string> };
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly base: string;
  readonly request: RequestSpec;
}

/** Cumulative CPU milliseconds per process (pid → ms) of the serving process and of its PostgreSQL backends. */
export interface CpuProbe {
  service(): Map<number, number>;
  postgres(): Promise<Map<number, number>>;
}

export interface CpuPerRequest {
  /** CPU ms of the process serving the route, per completed request. */
  readonly serviceMs: number;
  /** CPU ms of the PostgreSQL backends of the benchmark's database, per request (NaN if unknown). */
  readonly postgresMs: number;
  /** Busy share of all cores of the machine during the measurement (everyone's work, not only ours). */
  readonly machineBusy: number;
}

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly requests: number;
  readonly seconds: number;
  readonly latencyMs: {
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
    readonly mean: number;
  };
  /** non-2xx responses + connection errors + timeouts, in warm-up and measurement alike. */
  readonly failures: number;
  readonly statusCodes: Record<string, number>;
  readonly errors: number;
  readonly timeouts: number;
  readonly warmup: { readonly seconds: number; readonly requests: number; readonly failures: number };
  readonly cpu: CpuPerRequest;
}

export interface LoadOptions {
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;
const autocannon = createRequire(__filename)('autocannon') as Autocannon;

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

async function once(
  scenario: Scenario,
  connections: number,
  seconds: number,
): Promise<{ result: AutocannonResult; latencies: Float64Array; ok: number }> {
  const spec = scenario.request;
  const request: Record<string, unknown> = { method: spec.method, path: spec.path };
  if (spec.body !== undefined) request.body = spec.body;
  if (spec.next) {
    const next = spec.next;
    request.setupRequest = (req: Record<string, unknown>) => {
      const { body, headers } = next();
      return { ...req, body, headers: { ...(req.headers as Record<string, string>), ...headers } };
    };
  }
  const headers = { ...(spec.body !== undefined || spec.next ? { 'content-type': 'application/json' } : {}), ...spec.headers };
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  let ok = 0;
  const instance = autocannon({
    url: scenario.base,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    headers,
    requests: [request],
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status < 200 || status >= 300) return;
    ok++;
    if (n === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[n++] = ms;
  });
  const result = await instance;
  return { result, latencies: latencies.slice(0, n).sort(), ok };
}

const failuresOf = (r: AutocannonResult): number => r.non2xx + r.errors + r.timeouts;

function delta(after: Map<number, number>, before: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

export async function runLoad(scenario: Scenario, options: LoadOptions, probe?: CpuProbe): Promise<LoadResult> {
  const warm = await once(scenario, options.connections, options.warmupSeconds);
  const before = { service: probe?.service(), postgres: await probe?.postgres(), machine: machineCpuMs() };
  const measured = await once(scenario, options.connections, options.seconds);
  const after = { service: probe?.service(), postgres: await probe?.postgres(), machine: machineCpuMs() };
  const { result, latencies, ok } = measured;
  const perRequest = (a: Map<number, number> | undefined, b: Map<number, number> | undefined): number =>
    a && b && a.size > 0 && ok > 0 ? delta(a, b) / ok : Number.NaN;
  const cpu: CpuPerRequest = {
    serviceMs: perRequest(after.service, before.service),
    postgresMs: perRequest(after.postgres, before.postgres),
    machineBusy: (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total),
  };
  let sum = 0;
  for (const v of latencies) sum += v;
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
  return {
    requestsPerSecond: ok / result.duration,
    requests: ok,
    seconds: result.duration,
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p90: percentile(latencies, 0.9),
      p99: percentile(latencies, 0.99),
      max: latencies.length > 0 ? (latencies[latencies.length - 1] ?? Number.NaN) : Number.NaN,
      mean: latencies.length > 0 ? sum / latencies.length : Number.NaN,
    },
    failures: failuresOf(result) + failuresOf(warm.result),
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    warmup: { seconds: warm.result.duration, requests: warm.ok, failures: failuresOf(warm.result) },
    cpu,
  };
}
