/* eslint-disable @typescript-eslint/require-await -- async like the methods it fakes: a failure is a rejection, not a throw */
import type { Tx } from '@app/platform';
import type { TermsRepository } from '../../../apps/offers-api/src/terms/terms.repository';
import type { TermsRecord } from '../../../apps/offers-api/src/terms/terms.types';
import type { InMemoryOffersDb } from './in-memory-offers-db';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';

/** TermsRepository over the in-memory tables. */
export class FakeTermsRepository implements Surface<TermsRepository> {
  constructor(
    private readonly db: InMemoryOffersDb,
    private readonly transactions: FakeTransactionRunner,
  ) {}

  async current(): Promise<TermsRecord | undefined> {
    return this.db.currentTerms();
  }

  async publish(tx: Tx, terms: TermsRecord): Promise<TermsRecord | undefined> {
    this.transactions.assertOpen(tx);
    // INSERT ... ON CONFLICT DO NOTHING on the version.
    if (this.db.terms.some((t) => t.version === terms.version)) return undefined;
    this.db.terms.push({ ...terms });
    return { ...terms };
  }
}
