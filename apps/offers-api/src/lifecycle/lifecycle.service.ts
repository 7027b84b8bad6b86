import { Injectable, Logger } from '@nestjs/common';
import { Clock, type Tx, QueueRegistry, TransactionRunner, type TypedQueue, type Closing } from '@app/platform';
import { OfferEvents, type OfferEventType } from '../events/offer-events';
import { offerView } from '../offers/dto/offer.dto';
import type { OfferRecord } from '../offers/offer.types';
import { CLOSING_SOON_MS, LIFECYCLE_QUEUE, type LifecycleJobData, plannedJobs } from './lifecycle.jobs';
import { LifecycleRepository } from './lifecycle.repository';

/** How many offers one sweep looks at; the next sweep continues. */
const SWEEP_BATCH = 500;

/**
 * Offer lifecycle (platform contract: Offers service decisions, Lifecycle):
 * upcoming → live at opens_at (offer.opened), offer.closing_soon at closes_at − 1 h (at
 * opening when less remains), live → closed at closes_at (offer.closed). Jobs only say
 * "look at this offer now"; `advance` decides from the stored state and the clock, so a
 * duplicate, late or early job is harmless and a sweep can repair anything a lost job missed.
 */
@Injectable()
export class LifecycleService {
  private readonly logger = new Logger('OffersLifecycle');

  constructor(
    private readonly repository: LifecycleRepository,
    private readonly events: OfferEvents,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly queues: QueueRegistry,
  ) {}

  private get queue(): TypedQueue<LifecycleJobData> {
    return this.queues.queue(LIFECYCLE_QUEUE);
  }

  /** Applies every transition due now, in order, each with its events, in one transaction. */
  async advance(offerId: string): Promise<OfferRecord | undefined> {
    return this.transactions.run(async (tx, closing) => {
      const now = this.clock.now();
      const closingSoonBefore = new Date(now.getTime() + CLOSING_SOON_MS);
      if (await this.repository.markOpened(tx, offerId, now)) await this.announce(tx, closing, offerId, 'offer.opened');
      if (await this.repository.markClosingSoon(tx, offerId, now, closingSoonBefore)) {
        await this.announce(tx, closing, offerId, 'offer.closing_soon');
      }
      if (await this.repository.markClosed(tx, offerId, now)) await this.announce(tx, closing, offerId, 'offer.closed');
      return this.repository.find(tx, offerId);
    });
  }

  private async announce(tx: Tx, closing: Closing, offerId: string, event: OfferEventType): Promise<void> {
    const offer = await this.repository.find(tx, offerId);
    if (!offer) return;
    const data = offerView(offer);
    for (const partnerId of await this.repository.agreementPartners(tx, offerId)) {
      this.events.emit(closing, partnerId, event, data);
    }
    this.logger.log({ offerId, event }, `${event} ${offerId}`);
  }

  /**
   * Enqueues the delayed jobs of an offer's remaining transitions. Job ids are derived
   * from offer id + transition + time, so enqueueing the same plan twice adds nothing.
   */
  async schedule(offer: OfferRecord): Promise<void> {
    const now = this.clock.nowMs();
    await Promise.all(
      plannedJobs(offer).map((job) =>
        this.queue.add(
          job.name,
          { offerId: job.offerId },
          {
            jobId: job.jobId,
            delay: Math.max(0, job.at.getTime() - now),
            attempts: 5,
            backoff: { type: 'exponential', delay: 1_000 },
            removeOnComplete: { age: 24 * 3600 },
            removeOnFail: { age: 7 * 24 * 3600 },
          },
        ),
      ),
    );
  }

  /** After an offer's times changed: drop the jobs of the old plan, enqueue the new one. */
  async reschedule(before: OfferRecord, after: OfferRecord): Promise<void> {
    const keep = new Set(plannedJobs(after).map((j) => j.jobId));
    const stale = plannedJobs(before).filter((j) => !keep.has(j.jobId));
    await Promise.all(stale.map((j) => this.queue.remove(j.jobId)));
    await this.schedule(after);
  }

  /**
   * The repair pass (run at worker start and periodically): applies every transition that
   * is due but was missed (a lost job, downtime), then re-enqueues the plan of every open
   * offer, which adds only the jobs Redis no longer has.
   */
  async sweep(): Promise<{ advanced: number; scheduled: number }> {
    const now = this.clock.now();
    const due = await this.repository.dueOfferIds(now, new Date(now.getTime() + CLOSING_SOON_MS), SWEEP_BATCH);
    for (const id of due) await this.advance(id);
    const open = await this.repository.openOffers(SWEEP_BATCH);
    for (const offer of open) await this.schedule(offer);
    if (due.length > 0) this.logger.log({ advanced: due.length }, `lifecycle sweep advanced ${due.length} offer(s)`);
    return { advanced: due.length, scheduled: open.length };
  }
}
