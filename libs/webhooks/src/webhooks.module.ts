import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { PlatformConfig, registerErrorCodes } from '@app/platform';
import { WEBHOOKS_ERRORS } from './webhooks.errors';
import { DeliveryQueue } from './delivery/delivery-queue';
import { DeliveryService } from './delivery/delivery.service';
import { DeliveryWorker } from './delivery/delivery.worker';
import { OutboxDispatcher } from './delivery/outbox-dispatcher';
import type { Resolver } from './security/url-guard';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEmitter } from './webhook-emitter';
import { systemResolverProvider, WEBHOOK_RESOLVER, WebhookEndpointsService } from './webhook-endpoints.service';
import { loadWebhooksConfig, WebhooksConfig } from './webhooks.config';
import { WebhooksMetrics } from './webhooks.metrics';
import { WebhooksRepository } from './webhooks.repository';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from './webhooks.tokens';
import type { WebhookOwnerType } from './webhooks.types';

export interface WebhooksModuleOptions {
  /** Whose endpoints and events this service manages. */
  readonly ownerType: WebhookOwnerType;
  /** Every event type the app emits (endpoint filters are validated against it). */
  readonly eventTypes: readonly string[];
  /**
   * The HTTP routes to mount: `PartnerWebhookEndpointsController` (offers-api),
   * `PaymentsWebhookEndpointsController` (payments-api), or one made with
   * `createWebhookEndpointsController`. Omit to mount none.
   */
  readonly controllers?: ReadonlyArray<Type<unknown>>;
  /** Where WEBHOOK_* variables are read from, once at boot (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** DNS resolver of the registration-time SSRF check (tests only). */
  readonly resolver?: Resolver;
  /** Run the dispatcher, sweeps and worker here; default: PlatformConfig.runsWorkers (ROLE≠api). */
  readonly runWorkers?: boolean;
}

/**
 * Signed, at-least-once webhooks for one owner type (docs/webhooks.md). Requires
 * PlatformModule (Prisma, queues, metrics, Clock). Exports WebhookEmitter for the app's
 * services and the endpoint/delivery services for custom controllers.
 */
@Module({})
export class WebhooksModule {
  static forRoot(options: WebhooksModuleOptions): DynamicModule {
    registerErrorCodes(WEBHOOKS_ERRORS);
    const env = options.env ?? process.env;
    return {
      module: WebhooksModule,
      controllers: [...(options.controllers ?? [])],
      providers: [
        {
          provide: WebhooksConfig,
          inject: [PlatformConfig],
          useFactory: (platform: PlatformConfig) => loadWebhooksConfig(env, platform.NODE_ENV),
        },
        {
          provide: WEBHOOKS_OPTIONS,
          inject: [PlatformConfig],
          useFactory: (platform: PlatformConfig): ResolvedWebhooksOptions => ({
            ownerType: options.ownerType,
            eventTypes: [...options.eventTypes],
            runWorkers: options.runWorkers ?? platform.runsWorkers,
          }),
        },
        options.resolver === undefined ? systemResolverProvider : { provide: WEBHOOK_RESOLVER, useValue: options.resolver },
        WebhooksRepository,
        WebhooksMetrics,
        DeliveryQueue,
        DeliveryService,
        DeliveryWorker,
        OutboxDispatcher,
        WebhookEmitter,
        WebhookEndpointsService,
        WebhookDeliveriesService,
      ],
      exports: [WebhookEmitter, WebhookEndpointsService, WebhookDeliveriesService, WebhooksConfig],
    };
  }
}
