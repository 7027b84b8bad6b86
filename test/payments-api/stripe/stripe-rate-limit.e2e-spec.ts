/**
 * The rate limit on Stripe's /v1 (issue 35): over it, 429 in Stripe's body with Retry-After,
 * which the official SDK raises as StripeRateLimitError (and, with retries on, waits out).
 * The limit is lowered through configuration (PAYMENTS_RATE_LIMIT_PER_MINUTE), not by volume.
 */
import Stripe from 'stripe';
import { startStripeApp, type StripeApp, stripeRejection } from './stripe-context';

describe('/v1 over the rate limit, through the official Stripe SDK', () => {
  let s: StripeApp;

  beforeAll(async () => {
    s = await startStripeApp({ PAYMENTS_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await s.close();
  });

  it("answers 429 in Stripe's body with Retry-After: StripeRateLimitError; another account is not slowed", async () => {
    const answers: Array<number | 'error'> = [];
    let limited: Stripe.errors.StripeError | undefined;
    for (let i = 0; i < 6 && limited === undefined; i++) {
      try {
        await s.stripe.customers.list({ limit: 1 });
        answers.push(200);
      } catch (err) {
        if (!(err instanceof Stripe.errors.StripeError)) throw err;
        limited = err;
      }
    }
    expect(answers.length).toBeGreaterThan(0);
    expect(limited).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(limited?.statusCode).toBe(429);
    expect(limited?.type).toBe('StripeRateLimitError');
    expect(limited?.headers?.['retry-after']).toMatch(/^\d+$/);
    expect(limited?.headers?.['stripe-should-retry']).toBe('true');

    // the raw body is Stripe's, with the platform's code
    const res = await fetch(`http://127.0.0.1:${s.port}/v1/customers`, { headers: { authorization: `Bearer ${s.secretKey}` } });
    expect(res.status).toBe(429);
    const body = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'rate_limit_exceeded' });

    // another account has its own budget
    const other = await s.newAccount('Not limited');
    await expect(s.sdk(other.secretKey).customers.list({ limit: 1 })).resolves.toMatchObject({ object: 'list' });
    const err = await stripeRejection(s.stripe.customers.create({ email: 'x@example.com' }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
  });
});
