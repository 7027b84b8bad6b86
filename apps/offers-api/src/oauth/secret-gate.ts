import { Injectable } from '@nestjs/common';
import { OffersConfig } from '../config';
import { VerificationGate } from './verification-gate';

/**
 * The process's one gate in front of scrypt: every client secret verified at `POST /oauth/token`
 * and every new client secret hashed (`POST /api/v1/clients`, `POST /api/v1/clients/{id}/
 * rotate-secret`, `POST /admin/v1/partners/{id}/clients`) runs in one of its slots
 * (OAUTH_HASH_CONCURRENCY at once, OAUTH_HASH_QUEUE waiting for at most
 * OAUTH_HASH_QUEUE_TIMEOUT_MS). Fairness key: the client address at the token endpoint, the
 * partner on `/api/v1`, `admin` for the operator; one key runs at most half of the slots and
 * holds at most OAUTH_HASH_PER_ADDRESS places. So no route can spend more scrypt than the token
 * endpoint alone could, and one partner's credential churn leaves slots for everyone else.
 */
@Injectable()
export class SecretGate {
  private readonly gate: VerificationGate;

  constructor(config: OffersConfig) {
    this.gate = new VerificationGate({
      concurrency: config.OAUTH_HASH_CONCURRENCY,
      queue: config.OAUTH_HASH_QUEUE,
      timeoutMs: config.OAUTH_HASH_QUEUE_TIMEOUT_MS,
      perAddress: config.OAUTH_HASH_PER_ADDRESS,
    });
  }

  /** Runs `work` in a slot for `key`; throws GateRefused without running it when none can be had. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.gate.run(key, work);
  }

  /** Callers running and waiting now. */
  get load(): { running: number; waiting: number } {
    return this.gate.load;
  }
}

/** The gate's key for a partner's authenticated requests (never an address: it has a colon and a letter). */
export const partnerGateKey = (partnerId: string): string => `partner:${partnerId}`;
/** The gate's key for the operator's admin requests. */
export const ADMIN_GATE_KEY = 'admin';
