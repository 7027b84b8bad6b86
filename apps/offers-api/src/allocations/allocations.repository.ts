import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';
import type { Currency } from '../offers/offer.types';
import type { AllocationPolicy } from './allocation';

export interface AllocationRecord {
  readonly id: string;
  readonly indicationId: string;
  readonly offerId: string;
  readonly partnerId: string;
  readonly investorId: string;
  readonly sharesRequested: number;
  readonly sharesAllocated: number;
  readonly amountRequested: number;
  /** decimal string, major units */
  readonly amountAllocated: string;
  readonly amountRefunded: number;
  readonly currency: Currency;
  /** decimal string */
  readonly scalingFactor: string;
  readonly method: AllocationPolicy;
  readonly createdAt: Date;
}

export interface ReceivedIndication {
  readonly id: string;
  readonly partnerId: string;
  readonly investorId: string;
  readonly amount: number;
  readonly createdAt: Date;
}

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

  transaction<T>(fn: (tx: PrismaTx) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(fn, { timeout: 60_000 });
  }

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

  async listForPartner(partnerId: string, offerId: string): Promise<AllocationRecord[]> {
    const rows = await this.prisma.allocation.findMany({
      where: { partnerId, offerId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toRecord);
  }
}
