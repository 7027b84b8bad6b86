import { Injectable } from '@nestjs/common';
import { MetricsService, noteRateLimit } from '@app/platform';
import { Counter } from 'prom-client';

/** Why a token request was refused with 429 before its secret was verified. */
export type TokenRefusal = 'failure_budget' | 'address_busy' | 'queue_full' | 'timeout';
const TOKEN_REFUSALS: readonly TokenRefusal[] = ['failure_budget', 'address_busy', 'queue_full', 'timeout'];
/** Why a new client secret was refused its hash (429 or 503) by the gate. */
export type HashRefusal = Exclude<TokenRefusal, 'failure_budget'>;

/**
 * `oauth_secret_verifications_total{outcome}`: client secret verifications (scrypt) that ran,
 * `valid` or `invalid` (unknown clients are verified against a decoy and count as invalid).
 * `oauth_token_refusals_total{reason}`: token requests answered 429 without a verification —
 * `failure_budget` (the address spent its failed attempts), `address_busy` (its share of the
 * verification slots), `queue_full` / `timeout` (the process's queue). Rising refusals with
 * flat valid verifications is a flood being absorbed (docs/operations.md).
 * `oauth_secret_hashes_total`: new client secrets hashed (scrypt, through the same gate) for
 * `POST /api/v1/clients`, `rotate-secret` and the operator's client creation;
 * `oauth_secret_hash_refusals_total{reason}`: those refused a slot (`address_busy`: the
 * partner's or the operator's share; `queue_full` / `timeout`: the process's queue).
 */
@Injectable()
export class OAuthMetrics {
  private readonly verifications: Counter<'outcome'>;
  private readonly refusals: Counter<'reason'>;
  private readonly hashes: Counter;
  private readonly hashRefusals: Counter<'reason'>;

  constructor(metrics: MetricsService) {
    this.verifications = new Counter({
      name: 'oauth_secret_verifications_total',
      help: 'Client secret verifications (scrypt) run by the token endpoint, by outcome',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    this.refusals = new Counter({
      name: 'oauth_token_refusals_total',
      help: 'Token requests refused with 429 before any secret verification, by reason',
      labelNames: ['reason'],
      registers: [metrics.registry],
    });
    // Every reason exists at 0 from the first scrape, so rate() sees the first refusal.
    for (const reason of TOKEN_REFUSALS) this.refusals.inc({ reason }, 0);
    this.hashes = new Counter({
      name: 'oauth_secret_hashes_total',
      help: 'New client secrets hashed (scrypt) by the client routes, through the verification gate',
      registers: [metrics.registry],
    });
    this.hashRefusals = new Counter({
      name: 'oauth_secret_hash_refusals_total',
      help: 'Client secret creations and rotations refused a hashing slot (429 or 503), by reason',
      labelNames: ['reason'],
      registers: [metrics.registry],
    });
  }

  verified(outcome: 'valid' | 'invalid' | 'error'): void {
    this.verifications.inc({ outcome });
  }

  /** Also names the limit of the 429 (rate_limit_refusals_total{limit="token_endpoint"}). */
  refused(reason: TokenRefusal): void {
    noteRateLimit('token_endpoint');
    this.refusals.inc({ reason });
  }

  hashed(): void {
    this.hashes.inc();
  }

  /** `address_busy` is a 429 (rate_limit_refusals_total{limit="secret_hashing"}); the others are 503. */
  hashRefused(reason: HashRefusal): void {
    if (reason === 'address_busy') noteRateLimit('secret_hashing');
    this.hashRefusals.inc({ reason });
  }
}
