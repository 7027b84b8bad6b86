import { CurrentPrincipal } from '@app/auth';
import { ApiErrors, parseTimestamp } from '@app/platform';
import { Body, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type DeletedView, WebhookEndpointsService } from '../webhook-endpoints.service';
import { type RecoveryView, WebhookDeliveriesService } from '../webhook-deliveries.service';
import type { ListView, WebhookDeliveryView, WebhookEndpointView, WebhookOwner } from '../webhooks.types';
import {
  WebhookDeliveryDto,
  WebhookDeliveryListDto,
  WebhookEndpointDeletedDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookEndpointWithSecretDto,
  WebhookRecoveryDto,
} from './webhook-views.dto';
import { CreateWebhookEndpointDto, ListWebhookDeliveriesQuery, RecoverWebhookDeliveriesDto } from './webhooks.dto';

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
    return this.endpoints.create(this.ownerOf(p), { url: body.url, events: body.events });
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
  @ApiOperation({ summary: 'Redeliver every failed delivery created since a time' })
  @ApiAcceptedResponse({ type: WebhookRecoveryDto })
  @ApiErrors(NO_ENDPOINT, DISABLED)
  recover(@CurrentPrincipal() p: P, @Param('id') id: string, @Body() body: RecoverWebhookDeliveriesDto): Promise<RecoveryView> {
    return this.deliveries.recover(this.ownerOf(p), id, parseTimestamp(body.since) as Date); // validated by IsTimestamp
  }
}
