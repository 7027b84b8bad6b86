/**
 * A small service made of the platform and libs/webhooks only, for the webhooks e2e tests.
 * Its routes are the library's own controller with a stand-in for '@app/auth': the
 * owner is taken from the `x-test-owner` header, so the tests do not depend on auth.
 */
import { PlatformConfig, PlatformModule, PrismaService, type ServiceDefinition } from '@app/platform';
import { createWebhookEndpointsController, WebhookEmitter, WebhooksModule, type WebhookOwner } from '@app/webhooks';
import { createParamDecorator, type DynamicModule, type ExecutionContext, Module } from '@nestjs/common';
import { Expose, Type } from 'class-transformer';
import { IsInt } from 'class-validator';
import type { FastifyRequest } from 'fastify';

export class ProbeConfig extends PlatformConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  PROBE_PORT: number = 3998;

  get port(): number {
    return this.PROBE_PORT;
  }
}

export const PROBE_EVENTS = ['offer.opened', 'offer.closed', 'indication.received'] as const;

const TestOwner = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  const header = ctx.switchToHttp().getRequest<FastifyRequest>().headers['x-test-owner'];
  return typeof header === 'string' ? header : 'nobody';
});

export const ProbeEndpointsController = createWebhookEndpointsController<string>({
  path: 'test/webhook-endpoints',
  auth: () => undefined,
  principal: () => TestOwner(),
  ownerOf: (ownerId) => ({ ownerType: 'partner', ownerId }),
});

/** The service definition; `webhookEnv` holds the WEBHOOK_* variables of this instance. */
export function webhooksProbe(webhookEnv: Record<string, string> = {}): ServiceDefinition<ProbeConfig> {
  @Module({})
  class WebhooksProbeModule {
    static forRoot(config: ProbeConfig): DynamicModule {
      return {
        module: WebhooksProbeModule,
        imports: [
          PlatformModule.forRoot({ service: 'webhooks-probe', config }),
          WebhooksModule.forRoot({
            ownerType: 'partner',
            eventTypes: PROBE_EVENTS,
            controllers: [ProbeEndpointsController],
            env: {
              WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,300ms',
              WEBHOOK_LOCK_DURATION_MS: '2000',
              WEBHOOK_TIMEOUT_MS: '1500',
              WEBHOOK_SWEEP_INTERVAL_MS: '500',
              ...webhookEnv,
            },
          }),
        ],
      };
    }
  }
  return {
    name: 'webhooks-probe',
    configClass: ProbeConfig,
    module: (config) => WebhooksProbeModule.forRoot(config),
    openApi: { title: 'webhooks-probe', version: '0', description: 'libs/webhooks test service' },
  };
}

/** Commits one event through the outbox, as an app's service would. */
export async function emitEvent(
  app: { get<T>(token: new (...args: never[]) => T): T },
  owner: WebhookOwner,
  event: (typeof PROBE_EVENTS)[number],
  data: Record<string, unknown>,
): Promise<string> {
  const prisma = app.get(PrismaService);
  const emitter = app.get(WebhookEmitter);
  return prisma.$transaction((tx) => emitter.emit(tx, { ...owner, event, data }));
}
