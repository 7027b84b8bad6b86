import { CurrentPrincipal } from '@app/auth';
import { ApiErrors, parseTimestamp } from '@app/platform';
import { Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type EventView, WebhookEventsService } from '../webhook-events.service';
import type { ListView, WebhookOwner } from '../webhooks.types';
import { EventDto, EventListDto } from './webhook-views.dto';
import { CREATED_FILTER, ListEventsQuery } from './webhooks.dto';

/**
 * The events API routes (platform contract, "Events API"), for an app to mount under its own
 * path and authentication, like WebhookEndpointsRoutes:
 *
 *     @Authenticated('partner')
 *     @Controller('api/v1/events')
 *     export class EventsController extends WebhookEventsRoutes<PartnerPrincipal> {
 *       protected ownerOf(p: PartnerPrincipal): WebhookOwner { ... }
 *     }
 */
@ApiTags('events')
export abstract class WebhookEventsRoutes<P> {
  constructor(@Inject(WebhookEventsService) protected readonly events: WebhookEventsService) {}

  protected abstract ownerOf(principal: P): WebhookOwner;

  @Get()
  @ApiOperation({ summary: 'List your events, newest first (every event your webhooks get, kept EVENT_RETENTION_DAYS days)' })
  @ApiOkResponse({ type: EventListDto })
  @ApiErrors(
    { code: 'parameter_invalid', when: 'type names no event kind, or starting_after with ending_before' },
    { code: 'resource_missing', status: 400, when: 'starting_after or ending_before names no event of yours' },
  )
  list(@CurrentPrincipal() p: P, @Query() query: ListEventsQuery): Promise<ListView<EventView>> {
    const created = (value: string | undefined): Date | undefined =>
      value === undefined ? undefined : parseTimestamp(value, CREATED_FILTER); // validated by IsTimestamp
    return this.events.list(this.ownerOf(p), {
      type: query.type,
      createdGte: created(query['created[gte]']),
      createdLte: created(query['created[lte]']),
      limit: query.limit,
      startingAfter: query.starting_after,
      endingBefore: query.ending_before,
    });
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve one of your events' })
  @ApiOkResponse({ type: EventDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such event of yours (or past its retention)' })
  get(@CurrentPrincipal() p: P, @Param('id') id: string): Promise<EventView> {
    return this.events.get(this.ownerOf(p), id);
  }
}
