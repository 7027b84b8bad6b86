import { Injectable, Logger } from '@nestjs/common';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { Clock, newId, TransactionRunner } from '@app/platform';
import { allocationMoney, decimalToTicks, sharesForAmount } from '../common/money';
import { OfferEvents } from '../events/offer-events';
import { OffersService } from '../offers/offers.service';
import { allocate } from './allocation';
import type { AllocationRecord } from './allocation.types';
import { AllocationsRepository } from './allocations.repository';
import {
  type AllocationListDto,
  type AllocationPageDto,
  type AllocationPageQueryDto,
  type AllocationRunDto,
  type AllocationRunResultDto,
  allocationEventData,
  allocationView,
} from './dto/allocation.dto';
import { OffersError } from '../errors';

/**
 * One run writes a row and an event per received indication in a single transaction: a
 * large offer needs more than Prisma's default 5 s.
 */
const RUN_TIMEOUT_MS = 60_000;

@Injectable()
export class AllocationsService {
  private readonly logger = new Logger('Allocations');

  constructor(
    private readonly repository: AllocationsRepository,
    private readonly offers: OffersService,
    private readonly events: OfferEvents,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  /**
   * Allocates a closed offer once: every received indication asks for the whole shares its
   * amount buys; the policy shares `shares_available` out (allocation.ts); results, their
   * events (allocation.confirmed when filled in full, allocation.scaled otherwise) and the
   * offer's allocated mark commit together.
   */
  async run(offerId: string, dto: AllocationRunDto): Promise<AllocationRunResultDto> {
    if (dto.policy === 'min_then_pro_rata' && dto.minimum_allocation_shares === undefined) {
      throw new OffersError(
        'parameter_missing',
        'Missing required parameter: minimum_allocation_shares (policy min_then_pro_rata).',
        {
          param: 'minimum_allocation_shares',
        },
      );
    }
    if (dto.policy === 'pro_rata' && dto.minimum_allocation_shares !== undefined) {
      throw new OffersError('parameter_invalid', 'minimum_allocation_shares applies only to policy min_then_pro_rata.', {
        param: 'minimum_allocation_shares',
      });
    }
    const offer = await this.offers.adminRequire(offerId);
    if (dto.shares_available > offer.sharesOffered) {
      throw new OffersError('parameter_invalid', `shares_available must be at most shares_offered (${offer.sharesOffered}).`, {
        param: 'shares_available',
      });
    }
    const priceTicks = decimalToTicks(offer.pricePerShare);

    const records = await this.transactions.run(
      async (tx, closing) => {
        const now = this.clock.now();
        if (!(await this.repository.claimRun(tx, offerId, now))) {
          if (offer.allocatedAt !== null || offer.status === 'closed') {
            throw new OffersError('offer_already_allocated', `Offer ${offerId} has already been allocated.`);
          }
          throw new OffersError('offer_not_closed', `Offer ${offerId} is ${offer.status}; allocation needs a closed offer.`);
        }
        const indications = await this.repository.receivedIndications(tx, offerId);
        const requested = indications.map((i) => ({ ...i, shares: sharesForAmount(i.amount, priceTicks) }));
        const shares = allocate(
          requested.map((r) => ({ id: r.id, shares: r.shares, submittedAt: r.createdAt.getTime() })),
          {
            policy: dto.policy,
            sharesAvailable: dto.shares_available,
            ...(dto.minimum_allocation_shares === undefined ? {} : { minimumShares: dto.minimum_allocation_shares }),
          },
        );
        const rows: AllocationRecord[] = requested.map((r) => {
          const allocated = shares.get(r.id) ?? 0;
          const money = allocationMoney(r.amount, r.shares, allocated, priceTicks);
          return {
            id: newId('alloc'),
            indicationId: r.id,
            offerId,
            partnerId: r.partnerId,
            investorId: r.investorId,
            sharesRequested: r.shares,
            sharesAllocated: allocated,
            amountRequested: r.amount,
            amountAllocated: money.amountAllocated,
            amountRefunded: money.amountRefunded,
            currency: offer.currency,
            scalingFactor: money.scalingFactor,
            method: dto.policy,
            createdAt: now,
          };
        });
        await this.repository.insert(tx, rows);
        for (const row of rows) {
          const event = row.sharesAllocated === row.sharesRequested ? 'allocation.confirmed' : 'allocation.scaled';
          this.events.emit(closing, row.partnerId, event, allocationEventData(row));
        }
        return rows;
      },
      { timeoutMs: RUN_TIMEOUT_MS },
    );
    this.logger.log({ offerId, allocations: records.length }, `offer ${offerId} allocated (${dto.policy})`);
    return {
      offer_id: offerId,
      policy: dto.policy,
      shares_available: dto.shares_available,
      shares_requested: records.reduce((s, r) => s + r.sharesRequested, 0),
      shares_allocated: records.reduce((s, r) => s + r.sharesAllocated, 0),
      allocations: records.map(allocationView),
    };
  }

  /**
   * The partner's allocations across its offers, newest first (platform contract: Offers,
   * more). `starting_after` must be one of the partner's allocations: any other id is a 400
   * resource_missing, as the events list answers a foreign cursor (no existence oracle).
   */
  async pageForPartner(partner: PartnerPrincipal, query: AllocationPageQueryDto): Promise<AllocationPageDto> {
    let after: { createdAt: Date; id: string } | undefined;
    if (query.starting_after !== undefined) {
      after = await this.repository.findOwn(partner.partnerId, query.starting_after);
      if (after === undefined) {
        throw new OffersError('resource_missing', `No such allocation: '${query.starting_after}'`, {
          param: 'starting_after',
          status: 400,
        });
      }
    }
    const rows = await this.repository.pageForPartner(partner.partnerId, {
      limit: query.limit + 1,
      ...(after === undefined ? {} : { after }),
      ...(query.offer_id === undefined ? {} : { offerId: query.offer_id }),
      ...(query.investor_id === undefined ? {} : { investorId: query.investor_id }),
    });
    return { object: 'list', data: rows.slice(0, query.limit).map(allocationView), has_more: rows.length > query.limit };
  }

  async listForPartner(partner: PartnerPrincipal, offerId: string): Promise<AllocationListDto> {
    await this.offers.requireVisible(partner.partnerId, offerId);
    const rows = await this.repository.listForPartner(partner.partnerId, offerId);
    return { allocations: rows.map(allocationView), total: rows.length };
  }
}
