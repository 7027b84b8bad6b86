import type { PartnerPrincipal } from '../../../apps/offers-api/src/oauth/partner.principal';
import { type QueueRegistry, registerErrorCodes, type TransactionRunner } from '@app/platform';
import type { OfferEvents } from '../../../apps/offers-api/src/events/offer-events';
import { Logger } from '@nestjs/common';
import { type AllocationsRepository } from '../../../apps/offers-api/src/allocations/allocations.repository';
import { AllocationsService } from '../../../apps/offers-api/src/allocations/allocations.service';
import { OFFERS_ERRORS } from '../../../apps/offers-api/src/errors';
import { type IndicationsRepository } from '../../../apps/offers-api/src/indications/indications.repository';
import { IndicationsService } from '../../../apps/offers-api/src/indications/indications.service';
import { type LifecycleRepository } from '../../../apps/offers-api/src/lifecycle/lifecycle.repository';
import { LifecycleService } from '../../../apps/offers-api/src/lifecycle/lifecycle.service';
import { type OffersRepository } from '../../../apps/offers-api/src/offers/offers.repository';
import { OffersService } from '../../../apps/offers-api/src/offers/offers.service';
import { type TermsRepository } from '../../../apps/offers-api/src/terms/terms.repository';
import { TermsService } from '../../../apps/offers-api/src/terms/terms.service';
import { FakeAllocationsRepository } from './fake-allocations.repository';
import { FakeClock } from '../fake-clock';
import { FakeIndicationsRepository } from './fake-indications.repository';
import { FakeLifecycleRepository } from './fake-lifecycle.repository';
import { FakeOfferEvents } from './fake-offer-events';
import { FakeOffersRepository } from './fake-offers.repository';
import { FakeQueueRegistry } from './fake-queue-registry';
import { FakeTermsRepository } from './fake-terms.repository';
import { FakeTransactionRunner } from '../fake-transaction-runner';
import { InMemoryOffersDb } from './in-memory-offers-db';
import { fake } from '../typed-fake';

/** A fixed "now" for unit specs: 2026-12-01 09:00 UTC. */
export const T0 = Date.parse('2026-12-01T09:00:00.000Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

export const partner = (partnerId: string): PartnerPrincipal => ({
  kind: 'partner',
  partnerId,
  clientId: `client_${partnerId}`,
  tier: 'growth',
  secretVersion: 1,
});

/**
 * offers-api's services wired as the app wires them, over in-memory fakes: repositories on
 * one InMemoryOffersDb, a fake clock, transactions and queues. No database, no Redis.
 */
export function offersDomain(start: number = T0) {
  // The app registers its codes at boot; statuses of OffersError are looked up there.
  registerErrorCodes(OFFERS_ERRORS);
  // Services log transitions and Redis trouble; specs assert on state instead.
  Logger.overrideLogger(false);

  const clock = new FakeClock(start);
  const db = new InMemoryOffersDb(() => clock.now());
  // Snapshots the database: a rollback restores its tables, outbox included.
  const transactions = new FakeTransactionRunner(db);
  const queues = new FakeQueueRegistry();
  const events = fake<OfferEvents>(new FakeOfferEvents(db, transactions));
  const repositories = {
    offers: new FakeOffersRepository(db, transactions),
    terms: new FakeTermsRepository(db, transactions),
    indications: new FakeIndicationsRepository(db, transactions),
    allocations: new FakeAllocationsRepository(db, transactions),
    lifecycle: new FakeLifecycleRepository(db, transactions),
  };
  const runner = fake<TransactionRunner>(transactions);
  const queueRegistry = fake<QueueRegistry>(queues);

  const lifecycle = new LifecycleService(fake<LifecycleRepository>(repositories.lifecycle), events, runner, clock, queueRegistry);
  const offers = new OffersService(fake<OffersRepository>(repositories.offers), lifecycle, runner);
  const indications = new IndicationsService(
    fake<IndicationsRepository>(repositories.indications),
    offers,
    events,
    runner,
    clock,
  );
  const allocations = new AllocationsService(
    fake<AllocationsRepository>(repositories.allocations),
    offers,
    events,
    runner,
    clock,
  );
  const terms = new TermsService(fake<TermsRepository>(repositories.terms), runner, clock);

  return { clock, db, transactions, queues, repositories, lifecycle, offers, indications, allocations, terms };
}

export type OffersDomain = ReturnType<typeof offersDomain>;

export { type Rejection, rejection } from '../rejection';
