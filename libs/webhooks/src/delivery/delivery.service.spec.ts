import { type AttemptOutcome, type AttemptRecord, foldHealth } from '../webhook-deliveries.repository';
import type { WebhookEndpointRecord } from '../webhooks.types';
import { attemptAttributes, decideOutcome, MAX_RETRY_AFTER_MS } from './delivery.service';
import { asksToAbort, parseRetryAfter } from './http-sender';

const endpoint = (failingSince: Date | null = null): WebhookEndpointRecord => ({
  id: 'we_1',
  ownerType: 'owner_a',
  ownerId: 'p1',
  dialect: null,
  metadata: {},
  url: 'https://example.com',
  events: ['*'],
  description: null,
  rateLimitPerSecond: null,
  secret: 'whsec_x',
  previousSecret: null,
  previousSecretExpiresAt: null,
  disabledAt: null,
  disabledReason: null,
  failingSince,
  createdAt: new Date(0),
});
const config = { retryScheduleMs: [5_000, 300_000], disableAfterMs: 5 * 24 * 3_600_000 };
const at = new Date('2026-11-21T00:00:00Z');
const plus = (ms: number): Date => new Date(at.getTime() + ms);

describe('decideOutcome', () => {
  it('2xx succeeds and heals the endpoint', () => {
    expect(
      decideOutcome({ roundAttempts: 0, endpoint: endpoint(at) }, { statusCode: 204, retryAfterMs: null }, at, config),
    ).toEqual({
      status: 'succeeded',
      nextAttemptAt: null,
      endpoint: { kind: 'healthy' },
    });
  });

  it('retries anything else on the schedule, then fails', () => {
    const first = decideOutcome({ roundAttempts: 0, endpoint: endpoint() }, { statusCode: 500, retryAfterMs: null }, at, config);
    expect(first).toEqual({ status: 'pending', nextAttemptAt: plus(5_000), endpoint: { kind: 'failing', since: at } });
    const second = decideOutcome(
      { roundAttempts: 1, endpoint: endpoint(at) },
      { statusCode: null, retryAfterMs: null },
      at,
      config,
    );
    expect(second.nextAttemptAt).toEqual(plus(300_000));
    const last = decideOutcome({ roundAttempts: 2, endpoint: endpoint(at) }, { statusCode: 302, retryAfterMs: null }, at, config);
    expect(last).toEqual({ status: 'failed', nextAttemptAt: null, endpoint: { kind: 'failing', since: at } });
  });

  it('waits at least Retry-After (capped at 24 h)', () => {
    const longer = decideOutcome(
      { roundAttempts: 0, endpoint: endpoint() },
      { statusCode: 503, retryAfterMs: 60_000 },
      at,
      config,
    );
    expect(longer.nextAttemptAt).toEqual(plus(60_000));
    const shorter = decideOutcome(
      { roundAttempts: 0, endpoint: endpoint() },
      { statusCode: 429, retryAfterMs: 1_000 },
      at,
      config,
    );
    expect(shorter.nextAttemptAt).toEqual(plus(5_000));
    const huge = decideOutcome(
      { roundAttempts: 0, endpoint: endpoint() },
      { statusCode: 429, retryAfterMs: 10 ** 10 },
      at,
      config,
    );
    expect(huge.nextAttemptAt).toEqual(plus(MAX_RETRY_AFTER_MS));
  });

  it('410 Gone disables the endpoint at once', () => {
    const gone = decideOutcome({ roundAttempts: 0, endpoint: endpoint() }, { statusCode: 410, retryAfterMs: null }, at, config);
    expect(gone).toEqual({
      status: 'failed',
      nextAttemptAt: null,
      endpoint: { kind: 'disable', since: at, reason: 'endpoint answered 410 Gone' },
    });
  });

  it('disables an endpoint failing continuously for the configured period', () => {
    const since = new Date(at.getTime() - config.disableAfterMs);
    const out = decideOutcome(
      { roundAttempts: 0, endpoint: endpoint(since) },
      { statusCode: 500, retryAfterMs: null },
      at,
      config,
    );
    expect(out).toEqual({
      status: 'failed',
      nextAttemptAt: null,
      endpoint: { kind: 'disable', since, reason: 'failing continuously for 120 h' },
    });
    const almost = new Date(since.getTime() + 1);
    expect(
      decideOutcome({ roundAttempts: 0, endpoint: endpoint(almost) }, { statusCode: 500, retryAfterMs: null }, at, config).status,
    ).toBe('pending');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-21T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe('decideOutcome with webhook-delivery: abort', () => {
  it('ends the delivery as failed, no retry, endpoint health unchanged', () => {
    for (const roundAttempts of [0, 1, 2]) {
      expect(
        decideOutcome({ roundAttempts, endpoint: endpoint() }, { statusCode: 500, retryAfterMs: null, abort: true }, at, config),
      ).toEqual({ status: 'failed', nextAttemptAt: null, endpoint: { kind: 'unchanged' } });
    }
    // even on an endpoint failing long enough to be disabled: the abort says nothing about it
    const longAgo = new Date(at.getTime() - 6 * 24 * 3_600_000);
    expect(
      decideOutcome(
        { roundAttempts: 1, endpoint: endpoint(longAgo) },
        { statusCode: 422, retryAfterMs: 60_000, abort: true },
        at,
        config,
      ),
    ).toEqual({ status: 'failed', nextAttemptAt: null, endpoint: { kind: 'unchanged' } });
  });

  it('a 2xx with the header is still a success; 410 still disables', () => {
    expect(
      decideOutcome(
        { roundAttempts: 0, endpoint: endpoint(at) },
        { statusCode: 200, retryAfterMs: null, abort: true },
        at,
        config,
      ),
    ).toEqual({ status: 'succeeded', nextAttemptAt: null, endpoint: { kind: 'healthy' } });
    expect(
      decideOutcome({ roundAttempts: 0, endpoint: endpoint() }, { statusCode: 410, retryAfterMs: null, abort: true }, at, config)
        .endpoint.kind,
    ).toBe('disable');
  });

  it('reads the header case-insensitively, and only the value abort', () => {
    expect(asksToAbort('abort')).toBe(true);
    expect(asksToAbort(' ABORT ')).toBe(true);
    expect(asksToAbort(['retry', 'Abort'])).toBe(true);
    expect(asksToAbort('aborted')).toBe(false);
    expect(asksToAbort(undefined)).toBe(false);
  });
});

describe('foldHealth (one batch of attempt records)', () => {
  const record = (endpointId: string, ms: number, endpointOutcome: AttemptOutcome['endpoint']): AttemptRecord => ({
    deliveryId: `dlv_${endpointId}_${ms}`,
    endpointId,
    attempt: { statusCode: null, durationMs: 1, error: null, responseExcerpt: null, at: plus(ms) },
    outcome: { status: 'pending', nextAttemptAt: null, endpoint: endpointOutcome },
  });

  it('applies the attempts of an endpoint in time order, as one statement each would', () => {
    expect(
      foldHealth([
        record('a', 3, { kind: 'failing', since: plus(3) }),
        record('a', 1, { kind: 'failing', since: plus(1) }),
        record('b', 1, { kind: 'failing', since: plus(1) }),
        record('b', 2, { kind: 'healthy' }),
        record('c', 1, { kind: 'healthy' }),
        record('c', 2, { kind: 'failing', since: plus(2) }),
        record('d', 1, { kind: 'unchanged' }),
        record('e', 1, { kind: 'disable', since: plus(-5), reason: 'gone' }),
        record('e', 2, { kind: 'healthy' }),
      ]),
    ).toEqual([
      { endpointId: 'a', mode: 'coalesce', since: plus(1), disabledAt: null, reason: null },
      { endpointId: 'b', mode: 'set', since: null, disabledAt: null, reason: null },
      { endpointId: 'c', mode: 'set', since: plus(2), disabledAt: null, reason: null },
      { endpointId: 'e', mode: 'set', since: null, disabledAt: plus(1), reason: 'gone' },
    ]);
  });
});

describe('attemptAttributes (the attempt span)', () => {
  const work = (url: string): Parameters<typeof attemptAttributes>[0] => ({
    deliveryId: 'dlv_1',
    roundAttempts: 2,
    endpoint: { url },
    event: { id: 'evt_1', event: 'thing.happened' },
  });

  it('exports the origin only: no path, no query (receivers keep secrets there)', () => {
    const attributes = attemptAttributes(work('https://hooks.example.com/services/T0/B0/s3cr3tpath?token=s3cr3tquery'));
    expect(attributes).toEqual({
      'http.request.method': 'POST',
      'url.full': 'https://hooks.example.com',
      'url.scheme': 'https',
      'server.address': 'hooks.example.com',
      'server.port': 443,
      'webhook.event.type': 'thing.happened',
      'webhook.event.id': 'evt_1',
      'webhook.delivery.id': 'dlv_1',
      'webhook.attempt': 3,
    });
    expect(JSON.stringify(attributes)).not.toMatch(/s3cr3t|services|token/);
  });

  it('keeps an explicit port and the default one of http', () => {
    expect(attemptAttributes(work('http://127.0.0.1:8080/webhooks/1/tok'))).toMatchObject({
      'url.full': 'http://127.0.0.1:8080',
      'url.scheme': 'http',
      'server.port': 8080,
    });
    expect(attemptAttributes(work('http://example.com/x'))['server.port']).toBe(80);
  });

  it('has no URL attributes for an invalid URL', () => {
    expect(attemptAttributes(work('not a url'))['url.full']).toBeUndefined();
  });
});
