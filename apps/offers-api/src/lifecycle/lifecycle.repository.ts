import { Injectable } from '@nestjs/common';
import { type Prisma, PrismaService, type Tx } from '@app/platform';
import { toOfferRecord } from '../offers/offer-row';
import type { OfferRecord } from '../offers/offer.types';

/** Offers whose opening or close is due at `at` and not applied. */
const openOrCloseDue = (at: Date): Prisma.OfferWhereInput[] => [
  { status: 'upcoming', opensAt: { lte: at } },
  { status: 'live', closesAt: { lte: at } },
];

/**
 * The lifecycle's writes. Every transition is one conditional UPDATE (`WHERE status =
 * 'upcoming' AND opens_at <= now`, ...): under concurrency PostgreSQL re-checks the
 * condition after the row lock, so exactly one caller sees count = 1 and emits the event;
 * a duplicate or late job updates nothing. These are system-wide (no partner owner).
 */
@Injectable()
export class LifecycleRepository {
  constructor(private readonly prisma: PrismaService) {}

  async find(tx: Tx, offerId: string): Promise<OfferRecord | undefined> {
    const row = await tx.offer.findUnique({ where: { id: offerId } });
    return row === null ? undefined : toOfferRecord(row);
  }

  async markOpened(tx: Tx, offerId: string, now: Date): Promise<boolean> {
    const { count } = await tx.offer.updateMany({
      where: { id: offerId, status: 'upcoming', opensAt: { lte: now } },
      data: { status: 'live' },
    });
    return count === 1;
  }

  /** Only while time remains: a warning for an offer that is already due to close is not sent. */
  async markClosingSoon(tx: Tx, offerId: string, now: Date, dueBefore: Date): Promise<boolean> {
    const { count } = await tx.offer.updateMany({
      where: { id: offerId, status: 'live', closingSoonNotifiedAt: null, closesAt: { gt: now, lte: dueBefore } },
      data: { closingSoonNotifiedAt: now },
    });
    return count === 1;
  }

  async markClosed(tx: Tx, offerId: string, now: Date): Promise<boolean> {
    const { count } = await tx.offer.updateMany({
      where: { id: offerId, status: 'live', closesAt: { lte: now } },
      data: { status: 'closed' },
    });
    return count === 1;
  }

  /** Every partner whose distribution agreement includes the offer. */
  async agreementPartners(tx: Tx, offerId: string): Promise<string[]> {
    const rows = await tx.offerAgreement.findMany({
      where: { offerId },
      select: { partnerId: true },
      orderBy: { partnerId: 'asc' },
    });
    return rows.map((r) => r.partnerId);
  }

  /** Offers with a transition due at `now` (what a lost job would have done). */
  async dueOfferIds(now: Date, closingSoonBefore: Date, limit: number): Promise<string[]> {
    const rows = await this.prisma.offer.findMany({
      where: {
        OR: [...openOrCloseDue(now), { status: 'live', closingSoonNotifiedAt: null, closesAt: { lte: closingSoonBefore } }],
      },
      orderBy: [{ opensAt: 'asc' }, { id: 'asc' }],
      select: { id: true },
      take: limit,
    });
    return rows.map((r) => r.id);
  }

  /** How many offers have a transition (open, close) due before `before` and not applied: the stuck-lifecycle signal. */
  async overdueCount(before: Date): Promise<number> {
    return this.prisma.offer.count({
      where: { OR: openOrCloseDue(before) },
    });
  }

  /** Offers not yet closed, for re-enqueueing lost delayed jobs. */
  async openOffers(limit: number): Promise<OfferRecord[]> {
    const rows = await this.prisma.offer.findMany({
      where: { status: { in: ['upcoming', 'live'] } },
      orderBy: [{ closesAt: 'asc' }, { id: 'asc' }],
      take: limit,
    });
    return rows.map(toOfferRecord);
  }
}
