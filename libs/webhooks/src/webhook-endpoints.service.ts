import { Inject, Injectable } from '@nestjs/common';
import { Clock, type CompletionHook, NotFoundError, TransactionRunner } from '@app/platform';
import { checkUrl, type Resolver, systemResolver } from './security/url-guard';
import { newWebhookSecret } from './security/signature';
import { WebhooksConfig } from './webhooks.config';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from './webhooks.tokens';
import {
  ownScope,
  type ListView,
  type WebhookEndpointMetadata,
  type WebhookEndpointRecord,
  type WebhookEndpointScope,
  type WebhookEndpointView,
  type WebhookOwner,
} from './webhooks.types';
import { endpointView } from './webhooks.views';
import { WebhooksError } from './webhooks.errors';

export interface CreateEndpointInput {
  readonly url: string;
  readonly events?: readonly string[] | undefined;
  readonly description?: string | null | undefined;
  readonly rateLimitPerSecond?: number | null | undefined;
  /** A dialect endpoint's metadata (the own API's routes take none). */
  readonly metadata?: WebhookEndpointMetadata | undefined;
}

/** `PATCH …/webhook-endpoints/{id}`: only the fields present change (null clears description and the rate limit). */
export interface UpdateEndpointInput {
  readonly url?: string | undefined;
  readonly events?: readonly string[] | undefined;
  readonly description?: string | null | undefined;
  readonly disabled?: boolean | undefined;
  readonly rateLimitPerSecond?: number | null | undefined;
  /** Merged into a dialect endpoint's metadata: a key set to null is removed; null removes every key. */
  readonly metadata?: Readonly<Record<string, string | null>> | null | undefined;
}

/** One page of a scope's endpoints, newest first. */
export interface EndpointListInput {
  readonly limit: number;
  readonly startingAfter?: string | undefined;
  readonly endingBefore?: string | undefined;
}

/**
 * A write's options: `completion` writes a row from the result in the write's own transaction
 * (an Idempotency-Key's stored answer, in the caller's shape), so it commits with the change.
 */
export interface EndpointWriteOptions<T> {
  readonly completion?: CompletionHook<T> | undefined;
}

/** A dialect endpoint's metadata holds at most this many keys (after an update's merge too). */
export const MAX_METADATA_KEYS = 50;

export interface DeletedView {
  readonly id: string;
  readonly object: 'webhook_endpoint';
  readonly deleted: true;
}

/** Injection token of the DNS resolver used by the registration-time SSRF check (tests replace it). */
export const WEBHOOK_RESOLVER = Symbol('WEBHOOK_RESOLVER');
export const systemResolverProvider = { provide: WEBHOOK_RESOLVER, useValue: systemResolver };

/**
 * Endpoint management for one owner: create (secret shown once), list, get, delete, rotate.
 * The methods named as the own API's routes work on the own API's endpoints and answer its
 * views; the `…In` methods take a scope (owner and dialect) and answer records, for a
 * dialect's routes to render in its own shape.
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly repository: WebhookEndpointsRepository,
    private readonly transactions: TransactionRunner,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    @Inject(WEBHOOK_RESOLVER) private readonly resolver: Resolver,
    private readonly clock: Clock,
  ) {}

  // ---- the own API (views in its shape) -------------------------------------------

  async create(owner: WebhookOwner, input: CreateEndpointInput): Promise<WebhookEndpointView> {
    const endpoint = await this.createIn(ownScope(owner), input);
    return endpointView(endpoint, this.clock.now(), true);
  }

  async list(owner: WebhookOwner): Promise<ListView<WebhookEndpointView>> {
    const now = this.clock.now();
    const endpoints = await this.repository.listEndpoints(ownScope(owner));
    return { object: 'list', data: endpoints.map((e) => endpointView(e, now)), has_more: false };
  }

  async get(owner: WebhookOwner, id: string): Promise<WebhookEndpointView> {
    return endpointView(await this.getIn(ownScope(owner), id), this.clock.now());
  }

  async delete(owner: WebhookOwner, id: string): Promise<DeletedView> {
    return this.deleteIn(ownScope(owner), id);
  }

  /**
   * Enables a disabled endpoint again (its owner fixed the receiver); idempotent. What it
   * missed meanwhile is in its delivery log as `failed`: `recover` sends it.
   */
  async enable(owner: WebhookOwner, id: string): Promise<WebhookEndpointView> {
    const endpoint = await this.transactions.run((tx) => this.repository.enableEndpoint(tx, ownScope(owner), id));
    if (endpoint === null) throw new NotFoundError('webhook endpoint', id, 'id');
    return endpointView(endpoint, this.clock.now());
  }

  /**
   * Changes an endpoint's URL (checked as at creation), events, description, rate limit, or
   * disables / enables it. An empty update answers the endpoint unchanged.
   */
  async update(owner: WebhookOwner, id: string, input: UpdateEndpointInput): Promise<WebhookEndpointView> {
    // the own API's endpoints have no metadata (its routes take none)
    return endpointView(await this.updateIn(ownScope(owner), id, { ...input, metadata: undefined }), this.clock.now());
  }

  /** New secret now; the old one keeps signing (second signature) for WEBHOOK_SECRET_GRACE_HOURS. */
  async rotateSecret(owner: WebhookOwner, id: string): Promise<WebhookEndpointView> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.config.secretGraceMs);
    const secret = newWebhookSecret();
    const endpoint = await this.transactions.run((tx) => this.repository.rotateSecret(tx, ownScope(owner), id, secret, expires));
    if (endpoint === null) throw new NotFoundError('webhook endpoint', id, 'id');
    return endpointView(endpoint, now, true);
  }

  // ---- any scope (records, for a dialect's own routes to render) ---------------------

  /**
   * Registers an endpoint in a scope (the own API's, or the app's dialect's) and answers its
   * record, secret included: the caller shows the secret once. Event filters are checked
   * against the scope's event types; the URL as always; the owner's endpoint limit counts
   * the endpoints of every dialect.
   */
  async createIn(
    scope: WebhookEndpointScope,
    input: CreateEndpointInput,
    options: EndpointWriteOptions<WebhookEndpointRecord> = {},
  ): Promise<WebhookEndpointRecord> {
    const events = this.checkEvents(scope, input.events ?? []);
    const metadata = this.checkMetadata(input.metadata ?? {});
    await this.checkUrl(input.url);
    const secret = newWebhookSecret();
    const max = this.config.WEBHOOK_MAX_ENDPOINTS_PER_OWNER;
    return this.transactions.run(async (tx) => {
      if (max > 0) {
        // under the owner's lock, so concurrent creates cannot all see room for one more
        await this.repository.lockOwner(tx, scope);
        if ((await this.repository.countEndpoints(tx, scope)) >= max) {
          throw new WebhooksError(
            'webhook_endpoint_limit_reached',
            `You have reached the maximum of ${max} webhook endpoints; delete one before adding another.`,
          );
        }
      }
      return this.repository.createEndpoint(tx, scope, {
        url: input.url,
        events,
        secret,
        description: input.description ?? null,
        rateLimitPerSecond: input.rateLimitPerSecond ?? null,
        metadata,
      });
    }, options);
  }

  /** A newest-first page of a scope's endpoints; a cursor that is not one of them is a 400 naming it. */
  async pageIn(
    scope: WebhookEndpointScope,
    input: EndpointListInput,
  ): Promise<{ data: WebhookEndpointRecord[]; hasMore: boolean }> {
    if (input.startingAfter !== undefined && input.endingBefore !== undefined) {
      throw new WebhooksError('parameter_invalid', 'starting_after and ending_before cannot be used together.', {
        param: 'ending_before',
      });
    }
    const rows = await this.repository.pageEndpoints(scope, {
      limit: input.limit,
      ...(input.startingAfter === undefined ? {} : { after: input.startingAfter }),
      ...(input.endingBefore === undefined ? {} : { before: input.endingBefore }),
    });
    if (rows === null) {
      const [param, id] =
        input.startingAfter === undefined ? ['ending_before', input.endingBefore ?? ''] : ['starting_after', input.startingAfter];
      throw new WebhooksError('resource_missing', `No such webhook endpoint: '${id}'`, { param, status: 400 });
    }
    const data = rows.slice(0, input.limit);
    if (input.endingBefore !== undefined) data.reverse();
    return { data, hasMore: rows.length > input.limit };
  }

  /** The scope's endpoint, or a 404 (another owner's, or another API's, is not there). */
  async getIn(scope: WebhookEndpointScope, id: string): Promise<WebhookEndpointRecord> {
    const endpoint = await this.repository.findEndpoint(scope, id);
    if (endpoint === null) throw new NotFoundError('webhook endpoint', id, 'id');
    return endpoint;
  }

  async deleteIn(scope: WebhookEndpointScope, id: string, options: EndpointWriteOptions<DeletedView> = {}): Promise<DeletedView> {
    return this.transactions.run(async (tx) => {
      // thrown inside: nothing (no stored answer either) commits for a missing endpoint
      if (!(await this.repository.deleteEndpoint(tx, scope, id))) throw new NotFoundError('webhook endpoint', id, 'id');
      return { id, object: 'webhook_endpoint' as const, deleted: true as const };
    }, options);
  }

  /** `update` in any scope: the URL checked as at creation, events against the scope's types, metadata merged. */
  async updateIn(
    scope: WebhookEndpointScope,
    id: string,
    input: UpdateEndpointInput,
    options: EndpointWriteOptions<WebhookEndpointRecord> = {},
  ): Promise<WebhookEndpointRecord> {
    if (input.events !== undefined && input.events.length === 0) {
      throw new WebhooksError('parameter_invalid', 'events must name at least one event kind, or "*" for all of them', {
        param: 'events',
      });
    }
    const events = input.events === undefined ? undefined : this.checkEvents(scope, input.events);
    // the scope's endpoint first: another owner's id is a 404 even with a bad URL
    if ((await this.repository.findEndpoint(scope, id)) === null) throw new NotFoundError('webhook endpoint', id, 'id');
    if (input.url !== undefined) await this.checkUrl(input.url);
    const now = this.clock.now();
    const endpoint = await this.transactions.run(async (tx) => {
      const updated = await this.repository.updateEndpoint(
        tx,
        scope,
        id,
        {
          ...(input.url === undefined ? {} : { url: input.url }),
          ...(events === undefined ? {} : { events }),
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.rateLimitPerSecond === undefined ? {} : { rateLimitPerSecond: input.rateLimitPerSecond }),
          ...(input.disabled === undefined ? {} : { disabled: input.disabled }),
          ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
        },
        now,
      );
      // inside the transaction: a merge past the limit writes nothing, nor does a vanished endpoint
      if (updated === null) throw new NotFoundError('webhook endpoint', id, 'id');
      this.checkMetadata(updated.metadata);
      return updated;
    }, options);
    return endpoint;
  }

  /** The creation-time SSRF and scheme check (security/url-guard.ts), for create and update. */
  private async checkUrl(url: string): Promise<void> {
    const checked = await checkUrl(url, this.config, this.resolver);
    if (!checked.ok) throw new WebhooksError('webhook_url_invalid', checked.reason, { param: 'url' });
  }

  /** The event types of a scope: the own API's kinds, or its dialect's types (which must be the app's dialect). */
  eventTypesOf(scope: WebhookEndpointScope): readonly string[] {
    if (scope.dialect === null) return this.options.eventTypes;
    const dialect = this.options.dialect;
    if (dialect?.name !== scope.dialect) {
      throw new Error(`WebhooksModule has no dialect ${JSON.stringify(scope.dialect)} (forRoot({ dialect }))`);
    }
    return dialect.eventTypes;
  }

  /**
   * Known kinds of the scope, sorted and without repeats; `"*"` (all kinds, also those
   * added later) absorbs the rest, and so does an empty list (what "all" was before `"*"`).
   */
  private checkEvents(scope: WebhookEndpointScope, events: readonly string[]): string[] {
    const types = this.eventTypesOf(scope);
    const known = new Set(types);
    for (const [i, e] of events.entries()) {
      if (e !== '*' && !known.has(e)) {
        throw new WebhooksError('parameter_invalid', `events[${i}] must be "*" (every kind) or one of: ${types.join(', ')}`, {
          param: `events[${i}]`,
        });
      }
    }
    if (events.length === 0 || events.includes('*')) return ['*'];
    return [...new Set(events)].sort();
  }

  /** At most MAX_METADATA_KEYS keys (the app checks each key's and value's length, in its own rules). */
  private checkMetadata(metadata: WebhookEndpointMetadata): WebhookEndpointMetadata {
    if (Object.keys(metadata).length > MAX_METADATA_KEYS) {
      throw new WebhooksError('parameter_invalid', `metadata may hold at most ${MAX_METADATA_KEYS} keys`, {
        param: 'metadata',
      });
    }
    return metadata;
  }
}
