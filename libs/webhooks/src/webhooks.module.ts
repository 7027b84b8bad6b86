import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { PlatformConfig, registerErrorCodes } from '@app/platform';
import { WEBHOOKS_ERRORS } from './webhooks.errors';
import { DeliveryQueue } from './delivery/delivery-queue';
import { DeliveryService } from './delivery/delivery.service';
import { DeliveryWorker } from './delivery/delivery.worker';
import { OutboxDispatcher } from './delivery/outbox-dispatcher';
import type { WebhookEndpointsRoutes } from './http/webhook-endpoints.routes';
import type { WebhookEventsRoutes } from './http/webhook-events.routes';
import { WebhookEventsRepository } from './webhook-events.repository';
import { WebhookEventsService } from './webhook-events.service';
import type { Resolver } from './security/url-guard';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEmitter } from './webhook-emitter';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { systemResolverProvider, WEBHOOK_RESOLVER, WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import { WebhooksConfig } from './webhooks.config';
import { WebhooksMetrics } from './webhooks.metrics';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from './webhooks.tokens';
import type { WebhookDialect, WebhookOwnerType } from './webhooks.types';
import type { WebhookEventKind } from './event-types';

/** An owner type is stored in a VARCHAR(32) column and names the app's BullMQ queue. */
const OWNER_TYPE = /^[a-z][a-z0-9_]{0,31}$/;

export interface WebhooksModuleOptions {
  /** Whose endpoints and events this service manages: a name the app chooses (e.g. its tenant kind). */
  readonly ownerType: WebhookOwnerType;
  /**
   * Every kind of event the app emits, with its description, data class and example: the
   * emitter refuses other types, endpoint filters are validated against them, and they are
   * the catalogue (`GET …/webhook-endpoints/event-types`).
   */
  readonly events: readonly WebhookEventKind[];
  /**
   * The app's HTTP routes, mounted in this module (they use its services): classes that
   * extend `WebhookEndpointsRoutes`. Omit to mount none.
   */
  readonly controllers?: ReadonlyArray<Type<WebhookEndpointsRoutes<never> | WebhookEventsRoutes<never>>>;
  /** DNS resolver of the registration-time SSRF check (tests only). */
  readonly resolver?: Resolver;
  /** Run the dispatcher, sweeps and worker here; default: PlatformConfig.runsWorkers (ROLE≠api). */
  readonly runWorkers?: boolean;
  /** A second wire dialect the app's events and endpoints also come in (WebhookDialect). */
  readonly dialect?: WebhookDialect;
}

/**
 * The app's config object as WebhooksConfig: the app's config class extends it, so the
 * WEBHOOK_* settings come from the same environment, read once by `loadConfig`.
 */
function webhooksConfigOf(config: PlatformConfig): WebhooksConfig {
  if (config instanceof WebhooksConfig) return config;
  throw new Error(
    `WebhooksModule needs the app's config class (${config.constructor.name}) to extend WebhooksConfig from '@app/webhooks'`,
  );
}

/**
 * Signed, at-least-once webhooks for one owner type (docs/webhooks.md). Requires
 * PlatformModule (Prisma, transactions, queues, metrics, Clock) with a config class that
 * extends WebhooksConfig. Exports WebhookEmitter for the app's services and the
 * endpoint/delivery services for custom controllers.
 */
@Module({})
export class WebhooksModule {
  static forRoot(options: WebhooksModuleOptions): DynamicModule {
    if (!OWNER_TYPE.test(options.ownerType)) {
      throw new Error(`WebhooksModule ownerType must match ${String(OWNER_TYPE)} (got ${JSON.stringify(options.ownerType)})`);
    }
    if (options.dialect !== undefined && !/^[a-z][a-z0-9_]{0,15}$/.test(options.dialect.name)) {
      throw new Error(
        `WebhooksModule dialect name must match /^[a-z][a-z0-9_]{0,15}$/ (got ${JSON.stringify(options.dialect.name)})`,
      );
    }
    registerErrorCodes(WEBHOOKS_ERRORS);
    return {
      module: WebhooksModule,
      controllers: [...(options.controllers ?? [])],
      providers: [
        { provide: WebhooksConfig, inject: [PlatformConfig], useFactory: webhooksConfigOf },
        {
          provide: WEBHOOKS_OPTIONS,
          inject: [PlatformConfig],
          useFactory: (platform: PlatformConfig): ResolvedWebhooksOptions => ({
            ownerType: options.ownerType,
            eventTypes: options.events.map((k) => k.type),
            eventKinds: [...options.events],
            runWorkers: options.runWorkers ?? platform.runsWorkers,
            dialect: options.dialect,
          }),
        },
        options.resolver === undefined ? systemResolverProvider : { provide: WEBHOOK_RESOLVER, useValue: options.resolver },
        WebhookEndpointsRepository,
        WebhookOutboxRepository,
        WebhookDeliveriesRepository,
        WebhooksMetrics,
        DeliveryQueue,
        DeliveryService,
        DeliveryWorker,
        OutboxDispatcher,
        WebhookEmitter,
        WebhookEndpointsService,
        WebhookDeliveriesService,
        WebhookEventsRepository,
        WebhookEventsService,
      ],
      exports: [WebhookEmitter, WebhookEndpointsService, WebhookDeliveriesService, WebhookEventsService, WebhooksConfig],
    };
  }
}
