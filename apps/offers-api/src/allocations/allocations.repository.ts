import { Injectable } from '@nestjs/common';
import { PrismaService, type Tx } from '@app/platform';
import type { Currency } from '../common/money';
import type { AllocationRecord, ReceivedIndication } from './allocation.types';

interface AllocationRow extends Omit<AllocationRecord, 'amountAllocated' | 'scalingFactor' | 'currency'> {
  readonly amountAllocated: { toString(): string };
  readonly scalingFactor: { toString(): string };
  readonly currency: string;
}

const toRecord = (row: AllocationRow): AllocationRecord => ({
  ...row,
  amountAllocated: row.amountAllocated.toString(),
  scalingFactor: row.scalingFactor.toString(),
  currency: row.currency as Currency,
});

export interface AllocationPageFilter {
  readonly limit: number;
  /** The cursor row: only allocations after it (created_at, id descending). */
  readonly after?: { readonly createdAt: Date; readonly id: string };
  readonly offerId?: string;
  readonly investorId?: string;
}

@Injectable()
export class AllocationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Claims the offer's one allocation run: closed and not yet allocated (a conditional update). */
  async claimRun(tx: Tx, offerId: string, at: Date): Promise<boolean> {
    const { count } = await tx.offer.updateMany({
      where: { id: offerId, status: 'closed', allocatedAt: null },
      data: { allocatedAt: at },
    });
    return count === 1;
  }

  /** Every partner's received indications on the offer (admin run), oldest first. */
  async receivedIndications(tx: Tx, offerId: string): Promise<ReceivedIndication[]> {
    return tx.indication.findMany({
      where: { offerId, status: 'received' },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, partnerId: true, investorId: true, amount: true, createdAt: true },
    });
  }

  async insert(tx: Tx, rows: readonly AllocationRecord[]): Promise<void> {
    await tx.allocation.createMany({ data: rows.map((r) => ({ ...r })) });
  }

  /** One of the partner's allocations (a cursor), or undefined for any other id. */
  async findOwn(partnerId: string, id: string): Promise<{ createdAt: Date; id: string } | undefined> {
    const row = await this.prisma.allocation.findFirst({ where: { id, partnerId }, select: { id: true, createdAt: true } });
    return row ?? undefined;
  }

  /**
   * Up to `limit` of the partner's allocations, newest first, across its offers. Read along
   * allocations_partner_id_created_at_id_idx (partner_id, created_at DESC, id DESC): the
   * keyset condition after the cursor is a range of that index.
   */
  async pageForPartner(partnerId: string, filter: AllocationPageFilter): Promise<AllocationRecord[]> {
    const after = filter.after;
    const rows = await this.prisma.allocation.findMany({
      where: {
        partnerId,
        ...(filter.offerId === undefined ? {} : { offerId: filter.offerId }),
        ...(filter.investorId === undefined ? {} : { investorId: filter.investorId }),
        ...(after === undefined
          ? {}
          : { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: filter.limit,
    });
    return rows.map(toRecord);
  }

  /** The partner's allocations on the offer, in the order its indications were received (one run writes them all at once). */
  async listForPartner(partnerId: string, offerId: string): Promise<AllocationRecord[]> {
    const rows = await this.prisma.allocation.findMany({
      where: { partnerId, offerId },
      orderBy: [{ createdAt: 'asc' }, { indication: { createdAt: 'asc' } }, { indicationId: 'asc' }],
    });
    return rows.map(toRecord);
  }
}
