import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AdminInfoController } from './admin/admin-info.controller';
import { AdminGuard } from './admin/admin.guard';
import { Clock } from './clock';
import { IdempotencyPurgeJob } from './idempotency/idempotency-purge.job';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { IdempotencyService } from './idempotency/idempotency.service';
import { TransactionRunner } from './database/transaction-runner';
import { PlatformConfig } from './config/platform-config';
import { DatabaseInfoRepository } from './database/database-info.repository';
import { PrismaService } from './database/prisma.service';
import { PlatformExceptionFilter } from './errors/exception-filter';
import { HealthController } from './health/health.controller';
import { HealthService } from './health/health.service';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsService } from './metrics/metrics.service';
import { SERVICE_NAME } from './platform.tokens';
import { QueueRegistry } from './queue/queue-registry.service';
import { FixedWindowCounter } from './rate-limit/fixed-window-counter';
import { WindowBudgets } from './rate-limit/window-budgets';
import { CREDENTIAL_KINDS, type CredentialKind, CredentialKinds } from './http/credential-kinds';
import { RedisService } from './queue/redis.service';

export interface PlatformModuleOptions<C extends PlatformConfig> {
  readonly service: string;
  readonly config: C;
  /** The bearer credential kinds the app knows (its own and its neighbours'), so a 401 can say what was sent instead of what the route takes. */
  readonly credentialKinds?: readonly CredentialKind[];
}

/**
 * Everything a service shares: config, database, Redis and queues, health, metrics, the
 * admin guard and the global error filter. Imported once by each app module.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot<C extends PlatformConfig>(options: PlatformModuleOptions<C>): DynamicModule {
    const { config, service } = options;
    const configClass = config.constructor as new () => C;
    return {
      module: PlatformModule,
      controllers: [HealthController, MetricsController, AdminInfoController],
      providers: [
        { provide: SERVICE_NAME, useValue: service },
        { provide: PlatformConfig, useValue: config },
        ...(configClass === (PlatformConfig as unknown) ? [] : [{ provide: configClass, useValue: config }]),
        {
          provide: PrismaService,
          useFactory: () => new PrismaService({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE }),
        },
        { provide: RedisService, useFactory: () => new RedisService(config.redisTopology) },
        { provide: MetricsService, useFactory: () => new MetricsService(service) },
        QueueRegistry,
        Clock,
        IdempotencyRepository,
        IdempotencyService,
        IdempotencyInterceptor,
        IdempotencyPurgeJob,
        TransactionRunner,
        HealthService,
        DatabaseInfoRepository,
        FixedWindowCounter,
        { provide: WindowBudgets, useFactory: (redis: RedisService) => new WindowBudgets(redis), inject: [RedisService] },
        { provide: CREDENTIAL_KINDS, useValue: options.credentialKinds ?? [] },
        CredentialKinds,
        AdminGuard,
        { provide: APP_FILTER, useClass: PlatformExceptionFilter },
      ],
      exports: [
        SERVICE_NAME,
        PlatformConfig,
        configClass,
        PrismaService,
        RedisService,
        MetricsService,
        QueueRegistry,
        FixedWindowCounter,
        WindowBudgets,
        CredentialKinds,
        AdminGuard,
        Clock,
        IdempotencyService,
        IdempotencyInterceptor,
        TransactionRunner,
        HealthService,
      ],
    };
  }
}
