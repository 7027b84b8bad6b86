import { CurrentPrincipal } from '@app/auth';
import { ApiErrors, parseTimestamp } from '@app/platform';
import { Body, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type DeletedView, WebhookEndpointsService } from '../webhook-endpoints.service';
import { WebhooksError } from '../webhooks.errors';
import { type EndpointStatsView, type RecoveryView, WebhookDeliveriesService } from '../webhook-deliveries.service';
import type { ListView, WebhookDeliveryView, WebhookEndpointView, WebhookOwner } from '../webhooks.types';
import {
  WebhookDeliveryDto,
  WebhookDeliveryListDto,
  WebhookEndpointDeletedDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookEndpointStatsDto,
  WebhookEndpointWithSecretDto,
  WebhookEventTypeListDto,
  WebhookRecoveryDto,
} from './webhook-views.dto';
import {
  CreateWebhookEndpointDto,
  ListWebhookDeliveriesQuery,
  RecoverWebhookDeliveriesDto,
  SendTestEventDto,
  UpdateWebhookEndpointDto,
  WebhookEndpointStatsQuery,
} from './webhooks.dto';
import { WebhookEventsService } from '../webhook-events.service';
import type { WebhookEventTypeView } from '../event-types';

const NO_ENDPOINT = { code: 'resource_missing', when: 'no such webhook endpoint of yours' } as const;
const DISABLED = { code: 'webhook_endpoint_disabled', when: 'the endpoint is disabled: enable it first' } as const;

/**
 * The webhook-endpoint routes, for an app to mount under its own path and authentication.
 * Thin: take the authenticated principal, map it to its owner, call the service. The app
 * declares a class that extends this one, with its route and auth decorators, and says
 * which owner a principal is:
 *
 *     @Authenticated('tenant')
 *     @Controller('v1/webhook-endpoints')
 *     export class WebhookEndpointsController extends WebhookEndpointsRoutes<TenantPrincipal> {
 *       protected ownerOf(p: TenantPrincipal): WebhookOwner {
 *         return { ownerType: 'tenant', ownerId: p.tenantId };
 *       }
 *     }
 *
 * and passes it to `WebhooksModule.forRoot({ controllers: [WebhookEndpointsController] })`.
 * The OpenAPI operation ids are `<the app class's name>_<method name>`.
 */
@ApiTags('webhooks')
export abstract class WebhookEndpointsRoutes<P> {
  constructor(
    @Inject(WebhookEndpointsService) protected readonly endpoints: WebhookEndpointsService,
    @Inject(WebhookDeliveriesService) protected readonly deliveries: WebhookDeliveriesService,
    @Inject(WebhookEventsService) protected readonly events: WebhookEventsService,
  ) {}

  /** The endpoint owner of an authenticated principal (set by the app's guard, read by `@CurrentPrincipal()`). */
  protected abstract ownerOf(principal: P): WebhookOwner;

  @Post()
  @ApiOperation({ summary: 'Register a webhook endpoint; the answer shows its signing secret once' })
  @ApiCreatedResponse({ type: WebhookEndpointWithSecretDto })
  @ApiErrors(
    { code: 'webhook_url_invalid', when: 'not http(s), not https in production, or a private address' },
    { code: 'webhook_endpoint_limit_reached', when: 'the owner has WEBHOOK_MAX_ENDPOINTS_PER_OWNER endpoints' },
    { code: 'parameter_invalid', when: 'an unknown event type' },
  )
  create(@CurrentPrincipal() p: P, @Body() body: CreateWebhookEndpointDto): Promise<WebhookEndpointView> {
    return this.endpoints.create(this.ownerOf(p), {
      url: body.url,
      events: body.events,
      description: body.description,
      rateLimitPerSecond: body.rate_limit_per_second,
    });
  }

  @Get('event-types')
  @ApiOperation({ summary: 'Every kind of event this service sends, with a JSON Schema of its data and an example envelope' })
  @ApiOkResponse({ type: WebhookEventTypeListDto })
  eventTypes(): ListView<WebhookEventTypeView> {
    return this.events.eventTypes();
  }

  @Get()
  @ApiOperation({ summary: 'List webhook endpoints' })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  list(@CurrentPrincipal() p: P): Promise<ListView<WebhookEndpointView>> {
    return this.endpoints.list(this.ownerOf(p));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a webhook endpoint (without its secret)' })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrors(NO_ENDPOINT)
  get(@CurrentPrincipal() p: P, @Param('id') id: string): Promise<WebhookEndpointView> {
    return this.endpoints.get(this.ownerOf(p), id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change an endpoint: url (checked as at creation), events, description, disabled, rate_limit_per_second',
  })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrors(
    NO_ENDPOINT,
    { code: 'webhook_url_invalid', when: 'not http(s), not https in production, or a private address' },
    { code: 'parameter_invalid', when: 'an unknown event type, an empty events list, or a null url, events or disabled' },
  )
  update(
    @CurrentPrincipal() p: P,
    @Param('id') id: string,
    @Body() body: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointView> {
    for (const field of ['url', 'events', 'disabled'] as const) {
      if (body[field] === null) throw new WebhooksError('parameter_invalid', `${field} cannot be null`, { param: field });
    }
    return this.endpoints.update(this.ownerOf(p), id, {
      url: body.url,
      events: body.events,
      description: body.description,
      disabled: body.disabled,
      rateLimitPerSecond: body.rate_limit_per_second,
    });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a webhook endpoint and its delivery log' })
  @ApiOkResponse({ type: WebhookEndpointDeletedDto })
  @ApiErrors(NO_ENDPOINT)
  delete(@CurrentPrincipal() p: P, @Param('id') id: string): Promise<DeletedView> {
    return this.endpoints.delete(this.ownerOf(p), id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace the signing secret; the old one also signs during the grace period' })
  @ApiOkResponse({ type: WebhookEndpointWithSecretDto })
  @ApiErrors(NO_ENDPOINT)
  rotateSecret(@CurrentPrincipal() p: P, @Param('id') id: string): Promise<WebhookEndpointView> {
    return this.endpoints.rotateSecret(this.ownerOf(p), id);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Enable a disabled endpoint again; then recover what it missed' })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrors(NO_ENDPOINT)
  enable(@CurrentPrincipal() p: P, @Param('id') id: string): Promise<WebhookEndpointView> {
    return this.endpoints.enable(this.ownerOf(p), id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'List deliveries of an endpoint with their attempts, newest first' })
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  @ApiErrors(NO_ENDPOINT)
  listDeliveries(
    @CurrentPrincipal() p: P,
    @Param('id') id: string,
    @Query() query: ListWebhookDeliveriesQuery,
  ): Promise<ListView<WebhookDeliveryView>> {
    return this.deliveries.list(this.ownerOf(p), id, {
      status: query.status,
      limit: query.limit,
      startingAfter: query.starting_after,
    });
  }

  @Get(':id/stats')
  @ApiOperation({
    summary: 'Delivery attempts that succeeded (2xx) and failed, per UTC hour or day, over a window (default: the last 24 hours)',
  })
  @ApiOkResponse({ type: WebhookEndpointStatsDto })
  @ApiErrors(NO_ENDPOINT, {
    code: 'parameter_invalid',
    when: 'until not after since, or more than 744 hourly (366 daily) buckets',
  })
  stats(
    @CurrentPrincipal() p: P,
    @Param('id') id: string,
    @Query() query: WebhookEndpointStatsQuery,
  ): Promise<EndpointStatsView> {
    // both validated by IsTimestamp
    return this.deliveries.stats(this.ownerOf(p), id, {
      granularity: query.granularity,
      since: query.since === undefined ? undefined : parseTimestamp(query.since),
      until: query.until === undefined ? undefined : parseTimestamp(query.until),
    });
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @ApiOperation({ summary: 'Redeliver one delivery now' })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such webhook endpoint of yours, or no such delivery of it' }, DISABLED)
  retry(
    @CurrentPrincipal() p: P,
    @Param('id') id: string,
    @Param('delivery_id') deliveryId: string,
  ): Promise<WebhookDeliveryView> {
    return this.deliveries.redeliver(this.ownerOf(p), id, deliveryId);
  }

  @Post(':id/recover')
  @HttpCode(202)
  @ApiOperation({ summary: 'Redeliver every failed delivery created since a time (and until another)' })
  @ApiAcceptedResponse({ type: WebhookRecoveryDto })
  @ApiErrors(NO_ENDPOINT, DISABLED)
  recover(@CurrentPrincipal() p: P, @Param('id') id: string, @Body() body: RecoverWebhookDeliveriesDto): Promise<RecoveryView> {
    // both validated by IsTimestamp
    const since = parseTimestamp(body.since) as Date;
    const until = body.until === undefined ? undefined : (parseTimestamp(body.until) as Date);
    return this.deliveries.recover(this.ownerOf(p), id, since, until);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Send an example event (marked "test": true) to this endpoint through the normal signed delivery path; logged as a delivery',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  @ApiErrors(NO_ENDPOINT, DISABLED, { code: 'parameter_invalid', when: 'event is not a kind of the catalogue' })
  sendTest(@CurrentPrincipal() p: P, @Param('id') id: string, @Body() body: SendTestEventDto): Promise<WebhookDeliveryView> {
    return this.deliveries.sendTest(this.ownerOf(p), id, body.event);
  }
}
