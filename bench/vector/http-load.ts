/**
 * A closed-loop HTTP load client with microsecond latencies (autocannon records whole
 * milliseconds, too coarse for a ~1 ms p50 at one connection): `connections` loops, each
 * on its own keep-alive socket, send the next request as soon as the previous answer is
 * read, for `seconds`. Bodies cycle through the given list. Latency is from the request's
 * start to the last byte of its answer, measured in this process.
 */
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';

export interface LoadResult {
  readonly connections: number;
  readonly seconds: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  /** Milliseconds, from microsecond timings. */
  readonly latencyP50: number;
  readonly latencyP99: number;
  readonly latencyMean: number;
  /** Connection errors and non-2xx answers. */
  readonly errors: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export async function httpLoad(options: {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  /** Request bodies (POST), used in turn. */
  readonly bodies?: readonly string[];
  readonly connections: number;
  readonly seconds: number;
}): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, maxFreeSockets: options.connections });
  const bodies = (options.bodies ?? []).map((b) => Buffer.from(b));
  const method = options.method ?? (bodies.length > 0 ? 'POST' : 'GET');
  const baseHeaders: Record<string, string> = { ...options.headers };
  if (bodies.length > 0) baseHeaders['content-type'] ??= 'application/json';
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let errors = 0;
  let next = 0;
  const one = (body: Buffer | undefined): Promise<boolean> =>
    new Promise((resolve) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method,
          headers: body ? { ...baseHeaders, 'content-length': String(body.length) } : baseHeaders,
        },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve((res.statusCode ?? 0) < 300));
          res.on('error', () => resolve(false));
        },
      );
      req.on('error', () => resolve(false));
      req.end(body);
    });
  const deadline = performance.now() + options.seconds * 1000;
  const t0 = performance.now();
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const body = bodies.length > 0 ? bodies[next++ % bodies.length] : undefined;
      const t = performance.now();
      const ok = await one(body);
      const ms = performance.now() - t;
      if (!ok) {
        errors++;
        continue;
      }
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = ms;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  const sorted = latencies.slice(0, count).sort();
  let sum = 0;
  for (let i = 0; i < count; i++) sum += sorted[i];
  return {
    connections: options.connections,
    seconds: elapsed,
    requests: count,
    requestsPerSecond: count / elapsed,
    latencyP50: percentile(sorted, 0.5),
    latencyP99: percentile(sorted, 0.99),
    latencyMean: count ? sum / count : NaN,
    errors,
  };
}

/** What the vector benchmarks read of an autocannon run (whole-millisecond latencies). */
export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** autocannon (CommonJS, untyped here), as the profile and request-path benchmarks call it. */
export const autocannon = createRequire(__filename)('autocannon') as (
  options: Record<string, unknown>,
) => Promise<AutocannonResult>;
