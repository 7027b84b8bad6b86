import { Inject, Injectable } from '@nestjs/common';
import { Clock, NotFoundError } from '@app/platform';
import { eventTypeViews, type WebhookEventTypeView } from './event-types';
import {
  type EventCursor,
  type EventRecord,
  type EventSide,
  type EventTypeFilter,
  WebhookEventsRepository,
} from './webhook-events.repository';
import { WebhooksConfig } from './webhooks.config';
import { WebhooksError } from './webhooks.errors';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from './webhooks.tokens';
import type { ListView, WebhookOwner } from './webhooks.types';

/** An event as the events API answers it: the webhook envelope plus `object`. */
export interface EventView {
  readonly id: string;
  readonly object: 'event';
  readonly event: string;
  readonly timestamp: string;
  readonly data: unknown;
}

export interface ListEventsInput {
  readonly type?: string | undefined;
  readonly createdGte?: Date | undefined;
  readonly createdLte?: Date | undefined;
  readonly limit?: number | undefined;
  readonly startingAfter?: string | undefined;
  readonly endingBefore?: string | undefined;
}

/**
 * A list of the dialect's side of the events (`/v1/events`, say): `type` is one type or a
 * `prefix.*` wildcard, `types` any of several (not with `type`); `created` bounds in any
 * combination. Types the app does not emit are not refused: they match nothing (a dialect
 * the app speaks in part names more types than the app emits).
 */
export interface ListDialectEventsInput {
  readonly type?: string | undefined;
  readonly types?: readonly string[] | undefined;
  readonly created?:
    | {
        readonly gt?: Date | undefined;
        readonly gte?: Date | undefined;
        readonly lt?: Date | undefined;
        readonly lte?: Date | undefined;
      }
    | undefined;
  readonly limit: number;
  readonly startingAfter?: string | undefined;
  readonly endingBefore?: string | undefined;
}

export function eventView(e: EventRecord): EventView {
  return { id: e.id, object: 'event', event: e.event, timestamp: e.createdAt.toISOString(), data: e.data };
}

/**
 * The events API (platform contract, "Events API"): every event of an owner, as Stripe's
 * `/v1/events`, newest first, for EVENT_RETENTION_DAYS; and the catalogue of event kinds.
 * `list`/`get` read the own API's side of the events; `listDialect`/`getDialect` the app's
 * dialect's side (the same rows: an event both have is one row seen by both).
 */
@Injectable()
export class WebhookEventsService {
  private readonly catalogue: readonly WebhookEventTypeView[];

  constructor(
    private readonly repository: WebhookEventsRepository,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly clock: Clock,
  ) {
    this.catalogue = eventTypeViews(options.eventKinds);
  }

  eventTypes(): ListView<WebhookEventTypeView> {
    return { object: 'list', data: this.catalogue, has_more: false };
  }

  /** The catalogue entry of a kind, or a 400 naming `param`. */
  eventType(type: string, param: string): WebhookEventTypeView {
    const kind = this.catalogue.find((k) => k.type === type);
    if (kind === undefined) {
      throw new WebhooksError('parameter_invalid', `${param} must be one of: ${this.options.eventTypes.join(', ')}`, { param });
    }
    return kind;
  }

  async list(owner: WebhookOwner, input: ListEventsInput): Promise<ListView<EventView>> {
    const type = input.type === undefined ? undefined : this.typeFilter(input.type);
    const { data, hasMore } = await this.page(owner, 'own', {
      limit: input.limit ?? 10,
      type,
      created: { gte: input.createdGte, lte: input.createdLte },
      startingAfter: input.startingAfter,
      endingBefore: input.endingBefore,
    });
    return { object: 'list', data: data.map(eventView), has_more: hasMore };
  }

  async get(owner: WebhookOwner, id: string): Promise<EventView> {
    const found = await this.repository.find(owner, id, this.notBefore());
    if (found === null) throw new NotFoundError('event', id, 'id');
    return eventView(found);
  }

  /** A newest-first page of the owner's events as the app's dialect has them (records, for the app to render). */
  async listDialect(owner: WebhookOwner, input: ListDialectEventsInput): Promise<{ data: EventRecord[]; hasMore: boolean }> {
    if (input.type !== undefined && input.types !== undefined) {
      throw new WebhooksError('parameter_invalid', 'type and types cannot be used together.', { param: 'types' });
    }
    const type: EventTypeFilter | undefined =
      input.types !== undefined
        ? { anyOf: input.types }
        : input.type === undefined || input.type === '*'
          ? undefined
          : input.type.endsWith('.*')
            ? { prefix: input.type.slice(0, -1) }
            : { exact: input.type };
    return this.page(owner, 'dialect', {
      limit: input.limit,
      type,
      created: input.created ?? {},
      startingAfter: input.startingAfter,
      endingBefore: input.endingBefore,
    });
  }

  /** One event of the owner as the app's dialect has it, or a 404 (also for an event the dialect has not). */
  async getDialect(owner: WebhookOwner, id: string): Promise<EventRecord> {
    const found = await this.repository.find(owner, id, this.notBefore(), 'dialect');
    if (found === null) throw new NotFoundError('event', id, 'id');
    return found;
  }

  private async page(
    owner: WebhookOwner,
    side: EventSide,
    input: {
      limit: number;
      type: EventTypeFilter | undefined;
      created: { gt?: Date | undefined; gte?: Date | undefined; lt?: Date | undefined; lte?: Date | undefined };
      startingAfter: string | undefined;
      endingBefore: string | undefined;
    },
  ): Promise<{ data: EventRecord[]; hasMore: boolean }> {
    if (input.startingAfter !== undefined && input.endingBefore !== undefined) {
      throw new WebhooksError('parameter_invalid', 'starting_after and ending_before cannot be used together.', {
        param: 'ending_before',
      });
    }
    const notBefore = this.notBefore();
    const cursor = async (id: string | undefined, param: string): Promise<EventCursor | undefined> => {
      if (id === undefined) return undefined;
      const found = await this.repository.find(owner, id, notBefore, side);
      if (found === null) throw new WebhooksError('resource_missing', `No such event: '${id}'`, { param, status: 400 });
      return found;
    };
    const after = await cursor(input.startingAfter, 'starting_after');
    const before = await cursor(input.endingBefore, 'ending_before');
    const { limit, created } = input;
    const rows = await this.repository.list(owner, {
      side,
      limit,
      ...(input.type === undefined ? {} : { type: input.type }),
      ...(created.gt === undefined ? {} : { createdGt: created.gt }),
      ...(created.gte === undefined ? {} : { createdGte: created.gte }),
      ...(created.lt === undefined ? {} : { createdLt: created.lt }),
      ...(created.lte === undefined ? {} : { createdLte: created.lte }),
      ...(notBefore === undefined ? {} : { notBefore }),
      ...(after === undefined ? {} : { after }),
      ...(before === undefined ? {} : { before }),
    });
    const data = rows.slice(0, limit);
    if (before !== undefined) data.reverse();
    return { data, hasMore: rows.length > limit };
  }

  /** Events created before this are past their retention (hidden even before the purge removes them). */
  private notBefore(): Date | undefined {
    const ms = this.config.retentionMs;
    return ms > 0 ? new Date(this.clock.nowMs() - ms) : undefined;
  }

  /**
   * An exact kind must be one the app emits, and a prefix must cover at least one: a typo
   * answers 400 with the kinds, rather than an empty list forever.
   */
  private typeFilter(type: string): EventTypeFilter | undefined {
    if (type === '*') return undefined;
    const known = this.options.eventTypes;
    if (type.endsWith('.*')) {
      const prefix = type.slice(0, -1);
      if (known.some((k) => k.startsWith(prefix))) return { prefix };
    } else if (known.includes(type)) {
      return { exact: type };
    }
    throw new WebhooksError(
      'parameter_invalid',
      `type must be an event kind (${known.join(', ')}), a prefix such as ${prefixExample(known)}, or *`,
      { param: 'type' },
    );
  }
}

function prefixExample(known: readonly string[]): string {
  const first = known[0];
  return first === undefined ? '<prefix>.*' : `${first.split('.')[0] ?? ''}.*`;
}
