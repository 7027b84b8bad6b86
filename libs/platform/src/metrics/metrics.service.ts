import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The route label of a request no route matched: one value, never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Which limit answered a 429 (`rate_limit_refusals_total{limit}`): a fixed set, so a
 * tenant's tier or key never becomes a label. `principal`: the authenticated caller's
 * request rate (its tier); `admin_auth`: failed admin authentications per address;
 * `sign_in`: failed console sign-ins per address; `token_endpoint`: the OAuth token
 * endpoint's failure budget or its share of secret verifications; `secret_hashing`: the
 * caller's share of the secret hashing slots; `other`: a 429 whose code named no limit.
 */
export const RATE_LIMITS = ['principal', 'admin_auth', 'sign_in', 'token_endpoint', 'secret_hashing', 'other'] as const;
export type RateLimitName = (typeof RATE_LIMITS)[number];

/** Why an Idempotency-Key was refused (`idempotency_conflicts_total{reason}`). */
export type IdempotencyConflict = 'in_flight' | 'body_mismatch';

/** Methods kept as they are in `http_request_method`; any other is `_OTHER` (OpenTelemetry's HTTP semantic conventions). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/** Seconds; from 1 ms (a cached read) to 10 s (the longest a request may take). */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * One prom-client registry per service: process metrics, the HTTP server histogram (OpenTelemetry
 * semantic-convention names in Prometheus form, decision 359) and its deprecated alias, and the
 * platform's counters of refusals (rate limits, idempotency conflicts).
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpServerDuration: Histogram<'http_request_method' | 'http_route' | 'http_response_status_code'>;
  /** @deprecated `http_request_duration_seconds`, kept one release beside httpServerDuration (decision 360). */
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly rateLimitRefusals: Counter<'limit'>;
  readonly idempotencyConflicts: Counter<'reason'>;

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.httpServerDuration = new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Duration of HTTP server requests by route template (http_route; "unmatched" when no route matched), method and status code',
      labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'DEPRECATED: use http_server_request_duration_seconds (same observations); removed in the next release',
      labelNames: ['method', 'route', 'status_code'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.rateLimitRefusals = new Counter({
      name: 'rate_limit_refusals_total',
      help: `Requests answered 429 by a limit, by which limit (${RATE_LIMITS.join(', ')})`,
      labelNames: ['limit'],
      registers,
    });
    this.idempotencyConflicts = new Counter({
      name: 'idempotency_conflicts_total',
      help: 'Idempotency-Key refusals by reason: in_flight (409, the first request still holds the lease), body_mismatch (the key was used with other parameters)',
      labelNames: ['reason'],
      registers,
    });
    // every label value of a fixed set is exported from the start (rate() sees the first one)
    for (const limit of RATE_LIMITS) this.rateLimitRefusals.inc({ limit }, 0);
    for (const reason of ['in_flight', 'body_mismatch'] as const) this.idempotencyConflicts.inc({ reason }, 0);
  }

  /** `route` is the route template (`/v1/tables/:table`), never the raw URL, to bound cardinality. */
  observeHttp(method: string, route: string, statusCode: number, seconds: number): void {
    const status = String(statusCode);
    const known = KNOWN_METHODS.has(method) ? method : '_OTHER';
    this.httpServerDuration.observe(
      { http_request_method: known, http_route: route, http_response_status_code: status },
      seconds,
    );
    this.httpDuration.observe({ method, route, status_code: status }, seconds);
  }

  rateLimited(limit: RateLimitName): void {
    this.rateLimitRefusals.inc({ limit });
  }

  idempotencyConflict(reason: IdempotencyConflict): void {
    this.idempotencyConflicts.inc({ reason });
  }

  async render(): Promise<string> {
    return this.registry.metrics();
  }
}
