import { Injectable } from '@nestjs/common';
import { Clock, MetricsService, withTimeout } from '@app/platform';
import { Gauge } from 'prom-client';
import { LifecycleRepository } from './lifecycle.repository';

/** A transition later than this is overdue: jobs fire on time and the sweep runs every 60 s. */
export const OVERDUE_AFTER_MS = 2 * 60_000;

/**
 * `offers_lifecycle_overdue`: offers whose opening or close is more than two minutes past
 * and not applied, read at scrape time. Above 0 for long means no worker is running or
 * the lifecycle is stuck (docs/operations.md, runbook). Absent while PostgreSQL does not answer.
 */
@Injectable()
export class LifecycleMetrics {
  constructor(metrics: MetricsService, repository: LifecycleRepository, clock: Clock) {
    new Gauge({
      name: 'offers_lifecycle_overdue',
      help: 'Offers whose open or close transition is more than 2 minutes overdue',
      registers: [metrics.registry],
      async collect() {
        this.reset();
        const before = new Date(clock.nowMs() - OVERDUE_AFTER_MS);
        const n = await withTimeout(repository.overdueCount(before), 1_000, 'offers_lifecycle_overdue').catch(() => undefined);
        if (n !== undefined) this.set(n);
      },
    });
  }
}
