import { Injectable } from '@nestjs/common';
import { DatabaseInfoRepository } from '../database/database-info.repository';
import { DomainError } from '../errors/domain-error';
import { RedisService } from '../queue/redis.service';
import { withTimeout } from '../timeout';

export type CheckState = 'up' | 'down';
export interface ReadinessReport {
  status: 'ok';
  checks: Record<'postgres' | 'redis', CheckState>;
}

const CHECK_TIMEOUT_MS = 2_000;

@Injectable()
export class HealthService {
  constructor(
    private readonly database: DatabaseInfoRepository,
    private readonly redis: RedisService,
  ) {}

  /** 200 when both dependencies answer; otherwise 503 `service_unavailable` naming the failed ones. */
  async ready(): Promise<ReadinessReport> {
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
    if (failed.length > 0) {
      throw new DomainError('service_unavailable', `Readiness check failed: ${failed.join(', ')}`, {
        details: { checks },
        headers: { 'Retry-After': '5' },
      });
    }
    return { status: 'ok', checks };
  }
}
