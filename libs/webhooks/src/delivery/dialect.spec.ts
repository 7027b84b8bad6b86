import { createHmac } from 'node:crypto';
import { endpointTakes } from '../webhook-outbox.repository';
import { mergeMetadata, metadataOf } from '../webhook-endpoints.repository';
import { eventTypeFor, type DeliveryWork } from '../webhook-deliveries.repository';
import type { WebhookDialect, WebhookEndpointRecord } from '../webhooks.types';
import { attemptRequest, envelopeBody } from './delivery.service';

/** A made-up second dialect: its own body and one HMAC header (this library knows no real one). */
const ACME: WebhookDialect = {
  name: 'acme',
  eventTypes: ['thing.made', 'thing.gone'],
  body: (e) => JSON.stringify({ kind: e.event, owner: e.ownerId, at: e.createdAt.getTime(), payload: e.data }),
  headers: (secrets, eventId, t, body) => ({
    'content-type': 'application/json',
    'acme-signature': secrets.map((s) => createHmac('sha256', s).update(`${eventId}|${t}|${body}`).digest('hex')).join(';'),
  }),
};

const endpoint = (dialect: string | null): WebhookEndpointRecord => ({
  id: 'we_1',
  ownerType: 'owner_a',
  ownerId: 'p1:test',
  dialect,
  metadata: {},
  url: 'https://example.com',
  events: ['*'],
  description: null,
  rateLimitPerSecond: null,
  secret: 'whsec_current',
  previousSecret: null,
  previousSecretExpiresAt: null,
  disabledAt: null,
  disabledReason: null,
  failingSince: null,
  createdAt: new Date(0),
});

const work = (dialect: string | null, event: string, data: unknown): Pick<DeliveryWork, 'endpoint' | 'event'> => ({
  endpoint: endpoint(dialect),
  event: { id: 'evt_1', event, data, createdAt: new Date('2026-11-29T09:00:00.000Z'), test: false },
});

describe('fan-out matching of dialect endpoints', () => {
  const both = { event: 'order.paid', dialectEvent: 'thing.made' };
  const ownOnly = { event: 'order.shipped', dialectEvent: null };
  const dialectOnly = { event: null, dialectEvent: 'thing.gone' };

  it('an own endpoint matches the own kind, never a dialect-only event', () => {
    const own = { dialect: null, events: ['*'] };
    expect(endpointTakes(own, both)).toBe(true);
    expect(endpointTakes(own, ownOnly)).toBe(true);
    expect(endpointTakes(own, dialectOnly)).toBe(false);
    // its filter names own kinds; a dialect type in it matches nothing of the dialect side
    expect(endpointTakes({ dialect: null, events: ['thing.made'] }, both)).toBe(false);
    expect(endpointTakes({ dialect: null, events: ['order.paid'] }, both)).toBe(true);
  });

  it('a dialect endpoint matches the dialect type, never an own-only event', () => {
    const acme = { dialect: 'acme', events: ['*'] };
    expect(endpointTakes(acme, both)).toBe(true);
    expect(endpointTakes(acme, dialectOnly)).toBe(true);
    expect(endpointTakes(acme, ownOnly)).toBe(false);
    expect(endpointTakes({ dialect: 'acme', events: ['thing.gone'] }, both)).toBe(false);
    expect(endpointTakes({ dialect: 'acme', events: ['thing.gone'] }, dialectOnly)).toBe(true);
    // an own kind in a dialect endpoint's filter does not make it take the own side
    expect(endpointTakes({ dialect: 'acme', events: ['order.paid'] }, both)).toBe(false);
  });

  it('the delivery log names the side its endpoint gets', () => {
    expect(eventTypeFor(null, both)).toBe('order.paid');
    expect(eventTypeFor('acme', both)).toBe('thing.made');
    expect(() => eventTypeFor(null, dialectOnly)).toThrow(/without that side/);
  });
});

describe('the request of an attempt', () => {
  const t = 1_795_000_000;

  it('an own endpoint gets the envelope, signed as ever (no dialect header)', () => {
    const w = work(null, 'order.paid', { id: 'ord_1' });
    const { body, headers } = attemptRequest(w, ['whsec_current'], t, ACME);
    expect(body).toBe(envelopeBody(w.event));
    expect(headers['service-signature']).toBe(createHmac('sha256', 'whsec_current').update(body).digest('hex'));
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['acme-signature']).toBeUndefined();
  });

  it("a dialect endpoint gets the dialect's body of its side and its signature, with both secrets in a rotation", () => {
    const w = work('acme', 'thing.made', { object: { id: 'x_1' } });
    const { body, headers } = attemptRequest(w, ['whsec_current', 'whsec_old'], t, ACME);
    expect(JSON.parse(body)).toEqual({
      kind: 'thing.made',
      owner: 'p1:test',
      at: Date.parse('2026-11-29T09:00:00.000Z'),
      payload: { object: { id: 'x_1' } },
    });
    const sig = (s: string): string => createHmac('sha256', s).update(`evt_1|${t}|${body}`).digest('hex');
    expect(headers['acme-signature']).toBe(`${sig('whsec_current')};${sig('whsec_old')}`);
    // none of the own envelope's headers
    expect(headers['service-signature']).toBeUndefined();
    expect(headers['webhook-signature']).toBeUndefined();
    // the same bytes every attempt: a retry's signature checks against the same body
    expect(attemptRequest(w, ['whsec_current'], t + 60, ACME).body).toBe(body);
  });

  it('a dialect endpoint without that dialect configured is an error, not an own envelope', () => {
    expect(() => attemptRequest(work('acme', 'thing.made', {}), ['whsec_current'], t, undefined)).toThrow(
      /no webhook dialect acme/,
    );
    expect(() => attemptRequest(work('other', 'thing.made', {}), ['whsec_current'], t, ACME)).toThrow(/no webhook dialect other/);
  });
});

describe("a dialect endpoint's metadata", () => {
  it('merges an update: a key set to null is removed, null removes every key', () => {
    const current = { team: 'ops', env: 'staging' };
    expect(mergeMetadata(current, { env: null, region: 'eu' })).toEqual({ team: 'ops', region: 'eu' });
    expect(mergeMetadata(current, null)).toEqual({});
    expect(mergeMetadata(current, {})).toEqual(current);
    expect(current).toEqual({ team: 'ops', env: 'staging' });
  });

  it('reads only string values of a stored object', () => {
    expect(metadataOf({ a: 'x', b: 1, c: null })).toEqual({ a: 'x' });
    expect(metadataOf(['x'])).toEqual({});
    expect(metadataOf(null)).toEqual({});
  });
});
