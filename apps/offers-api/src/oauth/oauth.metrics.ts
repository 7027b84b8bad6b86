import { Injectable } from '@nestjs/common';
import { MetricsService } from '@app/platform';
import { Counter } from 'prom-client';

/** Why a token request was refused with 429 before its secret was verified. */
export type TokenRefusal = 'failure_budget' | 'address_busy' | 'queue_full' | 'timeout';

/**
 * `oauth_secret_verifications_total{outcome}`: client secret verifications (scrypt) that ran,
 * `valid` or `invalid` (unknown clients are verified against a decoy and count as invalid).
 * `oauth_token_refusals_total{reason}`: token requests answered 429 without a verification —
 * `failure_budget` (the address spent its failed attempts), `address_busy` (its share of the
 * verification slots), `queue_full` / `timeout` (the process's queue). Rising refusals with
 * flat valid verifications is a flood being absorbed (docs/operations.md).
 */
@Injectable()
export class OAuthMetrics {
  private readonly verifications: Counter<'outcome'>;
  private readonly refusals: Counter<'reason'>;

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
  }

  verified(outcome: 'valid' | 'invalid' | 'error'): void {
    this.verifications.inc({ outcome });
  }

  refused(reason: TokenRefusal): void {
    this.refusals.inc({ reason });
  }
}
