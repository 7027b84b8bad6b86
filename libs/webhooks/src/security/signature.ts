import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '@app/platform';

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks secret format). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * `Service-Signature` (platform contract, "Webhooks (shared library)"): lowercase hex
 * HMAC-SHA-256 of the exact raw body, keyed with the endpoint secret — the whole
 * `whsec_…` string as UTF-8, exactly as the endpoint's owner received it.
 */
export function serviceSignature(secret: string, rawBody: string): string {
  return createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
}

/** Standard Webhooks key: the base64-decoded part after `whsec_`. */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/**
 * One `v1,<base64>` entry of `webhook-signature` (https://www.standardwebhooks.com/):
 * HMAC-SHA-256 over `${id}.${timestamp}.${body}` keyed with the decoded secret.
 */
export function standardSignature(secret: string, id: string, timestampSeconds: number, rawBody: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestampSeconds}.${rawBody}`, 'utf8');
  return `v1,${mac.digest('base64')}`;
}

export interface SignedHeaders {
  readonly 'content-type': string;
  readonly 'user-agent': string;
  readonly 'service-signature': string;
  readonly 'service-signature-previous'?: string;
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * Headers of one attempt. `secrets` is the current secret first, then a rotated-out one
 * still in its grace period. `Service-Signature` carries the current secret's digest only
 * (the contract says the header *equals* the digest); during a rotation grace the old
 * secret's digest is sent as `Service-Signature-Previous`, and `webhook-signature` lists
 * both, space-separated, as the Standard Webhooks spec provides for.
 */
export function signedHeaders(
  secrets: readonly [string, ...string[]],
  eventId: string,
  timestampSeconds: number,
  rawBody: string,
): SignedHeaders {
  const [current, previous] = secrets;
  return {
    'content-type': 'application/json',
    'user-agent': 'platform-webhooks/1.0',
    'service-signature': serviceSignature(current, rawBody),
    ...(previous === undefined ? {} : { 'service-signature-previous': serviceSignature(previous, rawBody) }),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => standardSignature(s, eventId, timestampSeconds, rawBody)).join(' '),
  };
}

/** Constant-time comparison of two hex/base64 signatures (for receivers and tests): the platform's one helper. */
export function safeEqual(a: string, b: string): boolean {
  return constantTimeEqual(a, b);
}
