import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';
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

@Injectable()
export class AllocationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Claims the offer's one allocation run: closed and not yet allocated (a conditional update). */
  async claimRun(tx: PrismaTx, offerId: string, at: Date): Promise<boolean> {
    const { count } = await tx.offer.updateMany({
      where: { id: offerId, status: 'closed', allocatedAt: null },
      data: { allocatedAt: at },
    });
    return count === 1;
  }

  /** Every partner's received indications on the offer (admin run), oldest first. */
  async receivedIndications(tx: PrismaTx, offerId: string): Promise<ReceivedIndication[]> {
    return tx.indication.findMany({
      where: { offerId, status: 'received' },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, partnerId: true, investorId: true, amount: true, createdAt: true },
    });
  }

  async insert(tx: PrismaTx, rows: readonly AllocationRecord[]): Promise<void> {
    await tx.allocation.createMany({ data: rows.map((r) => ({ ...r })) });
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
