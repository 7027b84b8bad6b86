import { Inject, Injectable } from '@nestjs/common';
import { Clock, NotFoundError, TransactionRunner } from '@app/platform';
import { checkUrl, type Resolver, systemResolver } from './security/url-guard';
import { newWebhookSecret } from './security/signature';
import { WebhooksConfig } from './webhooks.config';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from './webhooks.tokens';
import type { ListView, WebhookEndpointView, WebhookOwner } from './webhooks.types';
import { endpointView } from './webhooks.views';
import { WebhooksError } from './webhooks.errors';

export interface CreateEndpointInput {
  readonly url: string;
  readonly events?: readonly string[] | undefined;
  readonly description?: string | null | undefined;
  readonly rateLimitPerSecond?: number | null | undefined;
}

/** `PATCH …/webhook-endpoints/{id}`: only the fields present change (null clears description and the rate limit). */
export interface UpdateEndpointInput {
  readonly url?: string | undefined;
  readonly events?: readonly string[] | undefined;
  readonly description?: string | null | undefined;
  readonly disabled?: boolean | undefined;
  readonly rateLimitPerSecond?: number | null | undefined;
}

export interface DeletedView {
  readonly id: string;
  readonly object: 'webhook_endpoint';
  readonly deleted: true;
}

/** Injection token of the DNS resolver used by the registration-time SSRF check (tests replace it). */
export const WEBHOOK_RESOLVER = Symbol('WEBHOOK_RESOLVER');
export const systemResolverProvider = { provide: WEBHOOK_RESOLVER, useValue: systemResolver };

/** Endpoint management for one owner: create (secret shown once), list, get, delete, rotate. */
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

  async create(owner: WebhookOwner, input: CreateEndpointInput): Promise<WebhookEndpointView> {
    const events = this.checkEvents(input.events ?? []);
    await this.checkUrl(input.url);
    const secret = newWebhookSecret();
    const max = this.config.WEBHOOK_MAX_ENDPOINTS_PER_OWNER;
    const endpoint = await this.transactions.run(async (tx) => {
      if (max > 0) {
        // under the owner's lock, so concurrent creates cannot all see room for one more
        await this.repository.lockOwner(tx, owner);
        if ((await this.repository.countEndpoints(tx, owner)) >= max) {
          throw new WebhooksError(
            'webhook_endpoint_limit_reached',
            `You have reached the maximum of ${max} webhook endpoints; delete one before adding another.`,
          );
        }
      }
      return this.repository.createEndpoint(tx, owner, {
        url: input.url,
        events,
        secret,
        description: input.description ?? null,
        rateLimitPerSecond: input.rateLimitPerSecond ?? null,
      });
    });
    return endpointView(endpoint, this.clock.now(), true);
  }

  async list(owner: WebhookOwner): Promise<ListView<WebhookEndpointView>> {
    const now = this.clock.now();
    const endpoints = await this.repository.listEndpoints(owner);
    return { object: 'list', data: endpoints.map((e) => endpointView(e, now)), has_more: false };
  }

  async get(owner: WebhookOwner, id: string): Promise<WebhookEndpointView> {
    const endpoint = await this.repository.findEndpoint(owner, id);
    if (endpoint === null) throw new NotFoundError('webhook endpoint', id, 'id');
    return endpointView(endpoint, this.clock.now());
  }

  async delete(owner: WebhookOwner, id: string): Promise<DeletedView> {
    const deleted = await this.transactions.run((tx) => this.repository.deleteEndpoint(tx, owner, id));
    if (!deleted) throw new NotFoundError('webhook endpoint', id, 'id');
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  /**
   * Enables a disabled endpoint again (its owner fixed the receiver); idempotent. What it
   * missed meanwhile is in its delivery log as `failed`: `recover` sends it.
   */
  async enable(owner: WebhookOwner, id: string): Promise<WebhookEndpointView> {
    const endpoint = await this.transactions.run((tx) => this.repository.enableEndpoint(tx, owner, id));
    if (endpoint === null) throw new NotFoundError('webhook endpoint', id, 'id');
    return endpointView(endpoint, this.clock.now());
  }

  /**
   * Changes an endpoint's URL (checked as at creation), events, description, rate limit, or
   * disables / enables it. An empty update answers the endpoint unchanged.
   */
  async update(owner: WebhookOwner, id: string, input: UpdateEndpointInput): Promise<WebhookEndpointView> {
    if (input.events !== undefined && input.events.length === 0) {
      throw new WebhooksError('parameter_invalid', 'events must name at least one event kind, or "*" for all of them', {
        param: 'events',
      });
    }
    const events = input.events === undefined ? undefined : this.checkEvents(input.events);
    // the owner's endpoint first: another owner's id is a 404 even with a bad URL
    if ((await this.repository.findEndpoint(owner, id)) === null) throw new NotFoundError('webhook endpoint', id, 'id');
    if (input.url !== undefined) await this.checkUrl(input.url);
    const now = this.clock.now();
    const endpoint = await this.transactions.run((tx) =>
      this.repository.updateEndpoint(
        tx,
        owner,
        id,
        {
          ...(input.url === undefined ? {} : { url: input.url }),
          ...(events === undefined ? {} : { events }),
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.rateLimitPerSecond === undefined ? {} : { rateLimitPerSecond: input.rateLimitPerSecond }),
          ...(input.disabled === undefined ? {} : { disabled: input.disabled }),
        },
        now,
      ),
    );
    if (endpoint === null) throw new NotFoundError('webhook endpoint', id, 'id');
    return endpointView(endpoint, now);
  }

  /** New secret now; the old one keeps signing (second signature) for WEBHOOK_SECRET_GRACE_HOURS. */
  async rotateSecret(owner: WebhookOwner, id: string): Promise<WebhookEndpointView> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.config.secretGraceMs);
    const secret = newWebhookSecret();
    const endpoint = await this.transactions.run((tx) => this.repository.rotateSecret(tx, owner, id, secret, expires));
    if (endpoint === null) throw new NotFoundError('webhook endpoint', id, 'id');
    return endpointView(endpoint, now, true);
  }

  /** The creation-time SSRF and scheme check (security/url-guard.ts), for create and update. */
  private async checkUrl(url: string): Promise<void> {
    const checked = await checkUrl(url, this.config, this.resolver);
    if (!checked.ok) throw new WebhooksError('webhook_url_invalid', checked.reason, { param: 'url' });
  }

  /**
   * Known kinds, sorted and without repeats; `"*"` (all kinds, also those added later)
   * absorbs the rest, and so does an empty list (what "all" was before `"*"`).
   */
  private checkEvents(events: readonly string[]): string[] {
    const known = new Set(this.options.eventTypes);
    for (const [i, e] of events.entries()) {
      if (e !== '*' && !known.has(e)) {
        throw new WebhooksError(
          'parameter_invalid',
          `events[${i}] must be "*" (every kind) or one of: ${this.options.eventTypes.join(', ')}`,
          { param: `events[${i}]` },
        );
      }
    }
    if (events.length === 0 || events.includes('*')) return ['*'];
    return [...new Set(events)].sort();
  }
}
