import type { WebhookEndpointRecord } from '../webhooks.types';
import { decideOutcome, MAX_RETRY_AFTER_MS } from './delivery.service';
import { parseRetryAfter } from './http-sender';

const endpoint = (failingSince: Date | null = null): WebhookEndpointRecord => ({
  id: 'we_1',
  ownerType: 'owner_a',
  ownerId: 'p1',
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
