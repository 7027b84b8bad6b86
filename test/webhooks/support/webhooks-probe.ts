/**
 * A small service made of the platform and libs/webhooks only, for the webhooks e2e tests.
 * Its routes are the library's WebhookEndpointsRoutes with a stand-in for '@app/auth': the
 * owner is taken from the `x-test-owner` header, so the tests do not depend on auth.
 */
import { PlatformModule, PrismaService, runTransaction, type ServiceDefinition } from '@app/platform';
import {
  eventKind,
  WebhookEmitter,
  WebhookEndpointsRoutes,
  WebhooksConfig,
  WebhooksModule,
  type WebhookOwner,
} from '@app/webhooks';
import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  type CanActivate,
  Controller,
  type DynamicModule,
  type ExecutionContext,
  Injectable,
  Module,
  UseGuards,
} from '@nestjs/common';
import { Expose, Type } from 'class-transformer';
import { IsInt } from 'class-validator';
import type { FastifyRequest } from 'fastify';

/** The probe's config: the webhook settings scaled down so that retries and sweeps take moments. */
export class ProbeConfig extends WebhooksConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  PROBE_PORT: number = 3998;

  override WEBHOOK_RETRY_SCHEDULE = '100ms,200ms,300ms';
  override WEBHOOK_LOCK_DURATION_MS = 2000;
  override WEBHOOK_TIMEOUT_MS = 1500;
  override WEBHOOK_SWEEP_INTERVAL_MS = 500;

  get port(): number {
    return this.PROBE_PORT;
  }
}

export const PROBE_EVENTS = ['offer.opened', 'offer.closed', 'indication.received'] as const;

/** The probe's events carry any JSON; the catalogue documents one optional field. */
export class ProbeEventData {
  @ApiPropertyOptional({ type: 'integer' }) n?: number;
}

export const PROBE_EVENT_KINDS = PROBE_EVENTS.map((type) =>
  eventKind({ type, description: `probe ${type}`, data: ProbeEventData, example: () => ({ n: 1 }) }),
);
export const PROBE_OWNER_TYPE = 'partner';

/** Stand-in for AuthGuard: the request's principal is the owner id in the `x-test-owner` header. */
@Injectable()
class TestOwnerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const header = request.headers['x-test-owner'];
    Object.assign(request, { principal: typeof header === 'string' ? header : 'nobody' });
    return true;
  }
}

@UseGuards(TestOwnerGuard)
@Controller('test/webhook-endpoints')
export class ProbeEndpointsController extends WebhookEndpointsRoutes<string> {
  protected ownerOf(ownerId: string): WebhookOwner {
    return { ownerType: PROBE_OWNER_TYPE, ownerId };
  }
}

@Module({})
class WebhooksProbeModule {
  static forRoot(config: ProbeConfig): DynamicModule {
    return {
      module: WebhooksProbeModule,
      imports: [
        PlatformModule.forRoot({ service: 'webhooks-probe', config }),
        WebhooksModule.forRoot({
          ownerType: PROBE_OWNER_TYPE,
          events: PROBE_EVENT_KINDS,
          controllers: [ProbeEndpointsController],
        }),
      ],
    };
  }
}

/** The service definition; WEBHOOK_* variables in the env it is started with override ProbeConfig's. */
export const webhooksProbe: ServiceDefinition<ProbeConfig> = {
  name: 'webhooks-probe',
  configClass: ProbeConfig,
  module: (config) => WebhooksProbeModule.forRoot(config),
  openApi: { title: 'webhooks-probe', version: '0', description: 'libs/webhooks test service' },
};

/** Commits one event through the outbox, as an app's service would. */
export async function emitEvent(
  app: { get<T>(token: new (...args: never[]) => T): T },
  owner: WebhookOwner,
  event: (typeof PROBE_EVENTS)[number],
  data: Record<string, unknown>,
): Promise<string> {
  const prisma = app.get(PrismaService);
  const emitter = app.get(WebhookEmitter);
  return runTransaction(prisma, (_tx, closing) => Promise.resolve(emitter.emit(closing, { ...owner, event, data }, undefined)));
}
