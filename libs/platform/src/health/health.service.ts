import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { DomainError } from '../errors/domain-error';
import { RedisService } from '../queue/redis.service';

export type CheckState = 'up' | 'down';
export interface ReadinessReport {
  status: 'ok';
  checks: Record<'postgres' | 'redis', CheckState>;
}

const CHECK_TIMEOUT_MS = 2_000;

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

@Injectable()
export class HealthService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly redis: RedisService,
  ) {}

  /** 200 when both dependencies answer; otherwise 503 `service_unavailable` naming the failed ones. */
  async ready(): Promise<ReadinessReport> {
    const [postgres, redis] = await Promise.allSettled([
      withTimeout(this.prisma.$queryRaw`SELECT 1`, CHECK_TIMEOUT_MS, 'postgres'),
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
