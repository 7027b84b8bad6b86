import { Injectable } from '@nestjs/common';
import { decoyHash, verifySecret } from '@app/auth';
import { OAuthMetrics } from './oauth.metrics';
import { oauthTooManyRequests } from './oauth-error';
import { SecretGate } from './secret-gate';
import { GateRefused } from './verification-gate';

/** What a refused caller is told to wait: a slot frees within one verification (≈ 40 ms). */
const RETRY_AFTER_SECONDS = 1;

/**
 * Client secret verification (scrypt, ≈ 40 ms of CPU on libuv's pool) behind the process's
 * SecretGate, keyed by the client address: OAUTH_HASH_CONCURRENCY at once, at most half of them
 * for one address, OAUTH_HASH_PER_ADDRESS places (running or waiting) per address,
 * OAUTH_HASH_QUEUE waiting for at most OAUTH_HASH_QUEUE_TIMEOUT_MS. The decoy verification of
 * an unknown client goes through the same gate. A refusal is a 429 in the RFC 6749 shape.
 */
@Injectable()
export class ClientSecretVerifier {
  constructor(
    private readonly gate: SecretGate,
    private readonly metrics: OAuthMetrics,
  ) {}

  /** Whether `secret` matches `storedHash`; without a stored hash (unknown client) a decoy is verified and the answer is false. */
  async verify(address: string, secret: string, storedHash: string | undefined): Promise<boolean> {
    try {
      return await this.gate.run(address, async () => {
        const valid = await verifySecret(secret, storedHash ?? (await decoyHash())).catch((err: unknown) => {
          this.metrics.verified('error');
          throw err;
        });
        this.metrics.verified(valid && storedHash !== undefined ? 'valid' : 'invalid');
        return valid && storedHash !== undefined;
      });
    } catch (err) {
      if (!(err instanceof GateRefused)) throw err;
      this.metrics.refused(err.reason);
      throw err.reason === 'address_busy'
        ? oauthTooManyRequests(
            'slow_down',
            `Too many token requests from this address at once. Retry after ${RETRY_AFTER_SECONDS} seconds.`,
            RETRY_AFTER_SECONDS,
          )
        : oauthTooManyRequests(
            'temporarily_unavailable',
            `The token endpoint is busy. Retry after ${RETRY_AFTER_SECONDS} seconds.`,
            RETRY_AFTER_SECONDS,
          );
    }
  }
}
