import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type DeletedView, WebhookEndpointsService } from '../webhook-endpoints.service';
import { type RecoveryView, WebhookDeliveriesService } from '../webhook-deliveries.service';
import type { ListView, WebhookDeliveryView, WebhookEndpointView, WebhookOwner } from '../webhooks.types';
import { CreateWebhookEndpointDto, ListWebhookDeliveriesQuery, RecoverWebhookDeliveriesDto } from './webhooks.dto';

export interface WebhookEndpointsControllerOptions<P> {
  /** Route of the collection, e.g. `api/v1/webhook-endpoints` or `v2/webhook-endpoints`. */
  readonly path: string;
  /** Class decorators that authenticate the caller, e.g. `Authenticated('partner')`. */
  readonly auth: ClassDecorator;
  /** Parameter decorator that yields the authenticated principal, e.g. `CurrentPrincipal`. */
  readonly principal: () => ParameterDecorator;
  /** The endpoint owner of a principal. */
  readonly ownerOf: (principal: P) => WebhookOwner;
}

/**
 * Builds the webhook-endpoint routes for one kind of principal. Thin: authenticate, map
 * the principal to its owner, call the service.
 */
export function createWebhookEndpointsController<P>(options: WebhookEndpointsControllerOptions<P>): Type<unknown> {
  const Principal = options.principal;
  const owner = options.ownerOf;

  @ApiTags('webhooks')
  @options.auth
  @Controller(options.path)
  class WebhookEndpointsController {
    constructor(
      readonly endpoints: WebhookEndpointsService,
      readonly deliveries: WebhookDeliveriesService,
    ) {}

    @Post()
    @ApiOperation({ summary: 'Register a webhook endpoint; the answer shows its signing secret once' })
    create(@Principal() p: P, @Body() body: CreateWebhookEndpointDto): Promise<WebhookEndpointView> {
      return this.endpoints.create(owner(p), { url: body.url, events: body.events });
    }

    @Get()
    @ApiOperation({ summary: 'List webhook endpoints' })
    list(@Principal() p: P): Promise<ListView<WebhookEndpointView>> {
      return this.endpoints.list(owner(p));
    }

    @Get(':id')
    @ApiOperation({ summary: 'Retrieve a webhook endpoint (without its secret)' })
    get(@Principal() p: P, @Param('id') id: string): Promise<WebhookEndpointView> {
      return this.endpoints.get(owner(p), id);
    }

    @Delete(':id')
    @ApiOperation({ summary: 'Delete a webhook endpoint and its delivery log' })
    delete(@Principal() p: P, @Param('id') id: string): Promise<DeletedView> {
      return this.endpoints.delete(owner(p), id);
    }

    @Post(':id/rotate-secret')
    @HttpCode(200)
    @ApiOperation({ summary: 'Replace the signing secret; the old one also signs during the grace period' })
    rotateSecret(@Principal() p: P, @Param('id') id: string): Promise<WebhookEndpointView> {
      return this.endpoints.rotateSecret(owner(p), id);
    }

    @Post(':id/enable')
    @HttpCode(200)
    @ApiOperation({ summary: 'Enable a disabled endpoint again; then recover what it missed' })
    enable(@Principal() p: P, @Param('id') id: string): Promise<WebhookEndpointView> {
      return this.endpoints.enable(owner(p), id);
    }

    @Get(':id/deliveries')
    @ApiOperation({ summary: 'List deliveries of an endpoint with their attempts, newest first' })
    listDeliveries(
      @Principal() p: P,
      @Param('id') id: string,
      @Query() query: ListWebhookDeliveriesQuery,
    ): Promise<ListView<WebhookDeliveryView>> {
      return this.deliveries.list(owner(p), id, {
        status: query.status,
        limit: query.limit,
        startingAfter: query.starting_after,
      });
    }

    @Post(':id/deliveries/:delivery_id/retry')
    @HttpCode(202)
    @ApiOperation({ summary: 'Redeliver one delivery now' })
    retry(@Principal() p: P, @Param('id') id: string, @Param('delivery_id') deliveryId: string): Promise<WebhookDeliveryView> {
      return this.deliveries.redeliver(owner(p), id, deliveryId);
    }

    @Post(':id/recover')
    @HttpCode(202)
    @ApiOperation({ summary: 'Redeliver every failed delivery created since a time' })
    recover(@Principal() p: P, @Param('id') id: string, @Body() body: RecoverWebhookDeliveriesDto): Promise<RecoveryView> {
      return this.deliveries.recover(owner(p), id, new Date(body.since));
    }
  }

  return WebhookEndpointsController;
}
