import { createHmac } from 'node:crypto';
import { newWebhookSecret, serviceSignature, signedHeaders, standardSignature } from './signature';

describe('webhook signatures', () => {
  it('matches the Standard Webhooks reference test vector', () => {
    // https://github.com/standard-webhooks/standard-webhooks (libraries' shared test vector)
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(standardSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('Service-Signature is the lowercase hex HMAC-SHA-256 of the raw body keyed with the whole secret', () => {
    const body = '{"id":"evt_1","event":"offer.opened","timestamp":"2026-11-21T00:00:00.000Z","data":{}}';
    const expected = createHmac('sha256', 'whsec_abc').update(body).digest('hex');
    expect(serviceSignature('whsec_abc', body)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('creates whsec_ secrets of 32 random bytes', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it('sends one signature normally and both during a rotation grace', () => {
    const one = signedHeaders(['whsec_AAAA'], 'evt_1', 1, '{}');
    expect(one['webhook-signature'].split(' ')).toHaveLength(1);
    expect(one['service-signature-previous']).toBeUndefined();
    const both = signedHeaders(['whsec_AAAA', 'whsec_BBBB'], 'evt_1', 1, '{}');
    expect(both['webhook-signature'].split(' ')).toEqual([
      standardSignature('whsec_AAAA', 'evt_1', 1, '{}'),
      standardSignature('whsec_BBBB', 'evt_1', 1, '{}'),
    ]);
    expect(both['service-signature']).toBe(serviceSignature('whsec_AAAA', '{}'));
    expect(both['service-signature-previous']).toBe(serviceSignature('whsec_BBBB', '{}'));
  });
});
