import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DatabaseInfoRepository } from '../database/database-info.repository';
import { DomainError } from '../errors/domain-error';
import { MetricsService } from '../metrics/metrics.service';
import { RedisService } from '../queue/redis.service';
import { withTimeout } from '../timeout';

export type CheckState = 'up' | 'down';
export interface ReadinessReport {
  status: 'ok';
  checks: Record<'postgres' | 'redis', CheckState>;
}

/**
 * What an app adds to readiness besides PostgreSQL and Redis: work the instance must finish
 * before it takes traffic (loading its data). While `ready` is false, `GET /health/ready`
 * is 503 `service_unavailable` with `progress` under `error[field]`, so a caller can tell
 * "still working" (the numbers move) from "stuck".
 */
export interface ReadinessContribution {
  readonly ready: boolean;
  /** One line for the 503's message: what is still being done. */
  readonly message: string;
  /** Counters of the work, shown in the 503 body (e.g. items done and in all). */
  readonly progress: Readonly<Record<string, number>>;
  /** Retry-After of the 503, in seconds (default 5). */
  readonly retryAfterSeconds?: number;
}

/** A source of readiness: asked on every `GET /health/ready`, so it answers from memory. */
export interface ReadinessContributor {
  /** The field of the 503's `error` object its progress goes under (`loading`). */
  readonly field: string;
  readiness(): ReadinessContribution;
}

const CHECK_TIMEOUT_MS = 2_000;

@Injectable()
export class HealthService {
  private readonly contributors: ReadinessContributor[] = [];

  constructor(
    private readonly database: DatabaseInfoRepository,
    private readonly redis: RedisService,
    metrics: MetricsService,
  ) {
    // `service_ready` and `service_dependency_up`: what GET /health/ready answers, at scrape
    // time (its two pings, CHECK_TIMEOUT_MS at most), for the "not ready" alert
    let pending: Promise<{ ready: boolean; checks: ReadinessReport['checks'] }> | undefined;
    const once = (): NonNullable<typeof pending> => {
      // the two gauges of one scrape share one evaluation
      pending ??= this.evaluate().finally(() => setTimeout(() => (pending = undefined), 100).unref());
      return pending;
    };
    new Gauge({
      name: 'service_ready',
      help: 'Whether GET /health/ready would answer 200 now (1) or 503 (0): dependencies up and startup work (loading) done',
      registers: [metrics.registry],
      async collect() {
        this.set((await once()).ready ? 1 : 0);
      },
    });
    new Gauge({
      name: 'service_dependency_up',
      help: 'Whether a dependency answered its readiness ping (1) or not (0), by dependency (postgres, redis)',
      labelNames: ['dependency'],
      registers: [metrics.registry],
      async collect() {
        const report = await once();
        for (const [dependency, state] of Object.entries(report.checks)) this.set({ dependency }, state === 'up' ? 1 : 0);
      },
    });
  }

  /** Adds a condition to readiness (an app's provider registers itself once, at construction). */
  contribute(contributor: ReadinessContributor): void {
    if (!this.contributors.includes(contributor)) this.contributors.push(contributor);
  }

  /**
   * 200 when both dependencies answer and every contributor is ready; otherwise 503
   * `service_unavailable` naming the failed checks and the work still in progress.
   */
  async ready(): Promise<ReadinessReport> {
    const { checks, failed, busy } = await this.check();
    if (failed.length > 0 || busy.length > 0) {
      // A dependency down is the news (the work waits for it); the work's progress is in the body either way.
      const message =
        failed.length > 0 ? `Readiness check failed: ${failed.join(', ')}` : busy.map((c) => c.state.message).join('; ');
      const retryAfter = failed.length > 0 ? 5 : Math.max(1, ...busy.map((c) => c.state.retryAfterSeconds ?? 5));
      throw new DomainError('service_unavailable', message, {
        details: { checks, ...Object.fromEntries(busy.map((c) => [c.field, c.state.progress])) },
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    return { status: 'ok', checks };
  }

  private async evaluate(): Promise<{ ready: boolean; checks: ReadinessReport['checks'] }> {
    const { checks, failed, busy } = await this.check();
    return { ready: failed.length === 0 && busy.length === 0, checks };
  }

  private async check(): Promise<{
    checks: ReadinessReport['checks'];
    failed: string[];
    busy: Array<{ field: string; state: ReadinessContribution }>;
  }> {
    const [postgres, redis] = await Promise.allSettled([
      withTimeout(this.database.ping(), CHECK_TIMEOUT_MS, `postgres did not answer within ${CHECK_TIMEOUT_MS} ms`),
      this.redis.ping(CHECK_TIMEOUT_MS),
    ]);
    const checks: ReadinessReport['checks'] = {
      postgres: postgres.status === 'fulfilled' ? 'up' : 'down',
      redis: redis.status === 'fulfilled' ? 'up' : 'down',
    };
    const failed = Object.entries(checks)
      .filter(([, s]) => s === 'down')
      .map(([name]) => name);
    const busy = this.contributors.map((c) => ({ field: c.field, state: c.readiness() })).filter((c) => !c.state.ready);
    return { checks, failed, busy };
  }
}
