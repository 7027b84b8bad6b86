import Stripe from 'stripe';
import type { DialectEventRecord } from '@app/webhooks';
import { STRIPE_API_VERSION, STRIPE_WEBHOOK_DIALECT, stripeEventObject } from './stripe-webhook-dialect';

const event: DialectEventRecord = {
  id: 'evt_1',
  ownerId: 'acct_1:test',
  event: 'customer.created',
  data: { object: { id: 'cus_1', object: 'customer', metadata: { plan: 'pro' } } },
  createdAt: new Date('2026-11-29T09:00:00.250Z'),
};
const t = Math.floor(event.createdAt.getTime() / 1000);
// constructEvent's last argument: the time of receipt in ms (so no test depends on the clock)
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+/=';

describe("Stripe's webhook dialect, checked by the official SDK", () => {
  const body = STRIPE_WEBHOOK_DIALECT.body(event);
  const headers = STRIPE_WEBHOOK_DIALECT.headers([secret], event.id, t, body);
  const header = headers['stripe-signature'] ?? '';

  it("the body is Stripe's event object, and constructEvent accepts it with the endpoint's secret", () => {
    const parsed = Stripe.webhooks.constructEvent(body, header, secret, 300, undefined, t * 1000);
    expect(parsed).toEqual({
      id: 'evt_1',
      object: 'event',
      api_version: STRIPE_API_VERSION,
      created: t,
      data: event.data,
      livemode: false,
      pending_webhooks: 0,
      request: { id: null, idempotency_key: null },
      type: 'customer.created',
    });
    expect(header).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
    expect(headers['content-type']).toMatch(/^application\/json/);
  });

  it('a changed body, another secret or a stale timestamp is refused', () => {
    const tampered = body.replace('"pro"', '"enterprise"');
    expect(tampered).not.toBe(body);
    expect(() => Stripe.webhooks.constructEvent(tampered, header, secret, 300, undefined, t * 1000)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => Stripe.webhooks.constructEvent(body, header, 'whsec_other', 300, undefined, t * 1000)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => Stripe.webhooks.constructEvent(body, header, secret, 300, undefined, (t + 301) * 1000)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('during a rotation both secrets verify (one v1= each)', () => {
    const both = STRIPE_WEBHOOK_DIALECT.headers(['whsec_new', secret], event.id, t, body)['stripe-signature'] ?? '';
    expect(both.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(Stripe.webhooks.constructEvent(body, both, 'whsec_new', 300, undefined, t * 1000).id).toBe('evt_1');
    expect(Stripe.webhooks.constructEvent(body, both, secret, 300, undefined, t * 1000).id).toBe('evt_1');
  });

  it('livemode comes from the owner (the key mode)', () => {
    expect(stripeEventObject({ ...event, ownerId: 'acct_1:live' }).livemode).toBe(true);
  });
});
