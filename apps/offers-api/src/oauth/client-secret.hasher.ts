import { Injectable } from '@nestjs/common';
import { hashSecret, newOpaqueSecret } from '@app/auth';
import { OffersError } from '../errors';
import { OAuthMetrics } from './oauth.metrics';
import { SecretGate } from './secret-gate';
import { GateRefused } from './verification-gate';

/** What a refused caller is told to wait: a slot frees within one hash (≈ 40 ms). */
const RETRY_AFTER_SECONDS = 1;

export interface NewClientSecret {
  /** `cs_…`, returned to the caller once. */
  readonly secret: string;
  /** Its scrypt hash, the only form stored. */
  readonly hash: string;
}

/**
 * New client secrets (create, rotate, the operator's create), hashed with scrypt in a slot of
 * the same SecretGate as the token endpoint's verifications. Callers check everything cheap
 * first (the credential, ownership, limits), so a request that will be refused never costs a
 * hash. A refusal: the key's share or places are taken → 429 `rate_limit_exceeded`; the
 * process's queue is full or the wait timed out → 503 `service_unavailable` (RFC 6749's
 * `temporarily_unavailable` is the token endpoint's name for the same 503); both with
 * `Retry-After: 1`, both before anything is written.
 */
@Injectable()
export class ClientSecretHasher {
  constructor(
    private readonly gate: SecretGate,
    private readonly metrics: OAuthMetrics,
  ) {}

  /** A new secret and its hash, computed in a gate slot for `gateKey` (secret-gate.ts). */
  async newSecret(gateKey: string): Promise<NewClientSecret> {
    const secret = newOpaqueSecret('cs_');
    try {
      const hash = await this.gate.run(gateKey, () => hashSecret(secret));
      this.metrics.hashed();
      return { secret, hash };
    } catch (err) {
      if (!(err instanceof GateRefused)) throw err;
      this.metrics.hashRefused(err.reason);
      const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
      throw err.reason === 'address_busy'
        ? new OffersError(
            'rate_limit_exceeded',
            `Too many client secrets being created or rotated for this caller at once (OAUTH_HASH_PER_ADDRESS places, half of OAUTH_HASH_CONCURRENCY running). Retry after ${RETRY_AFTER_SECONDS} seconds.`,
            { headers },
          )
        : new OffersError(
            'service_unavailable',
            `The instance is busy verifying and hashing client secrets (OAUTH_HASH_QUEUE, OAUTH_HASH_QUEUE_TIMEOUT_MS). Retry after ${RETRY_AFTER_SECONDS} seconds.`,
            { headers },
          );
    }
  }
}
