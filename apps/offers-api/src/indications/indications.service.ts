import { Injectable } from '@nestjs/common';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { Clock, newId, NotFoundError, type PrismaTx, TransactionRunner } from '@app/platform';
import { minimumInMinor } from '../allocations/money';
import { OfferEvents } from '../events/offer-events';
import type { OfferRecord, OfferStatus } from '../offers/offer.types';
import { OffersService } from '../offers/offers.service';
import { checkTermsVersion } from '../terms/terms.service';
import type { IndicationCreateDto, IndicationDto, IndicationListDto } from './dto/indication.dto';
import { type IndicationRecord, IndicationsRepository } from './indications.repository';
import { OffersError } from '../errors';

export const indicationView = (i: IndicationRecord): IndicationDto => ({
  id: i.id,
  offer_id: i.offerId,
  investor_id: i.investorId,
  amount: i.amount,
  currency: i.currency,
  terms_version: i.termsVersion,
  status: i.status,
  created_at: i.createdAt.toISOString(),
});

@Injectable()
export class IndicationsService {
  constructor(
    private readonly repository: IndicationsRepository,
    private readonly offers: OffersService,
    private readonly events: OfferEvents,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  /**
   * Records an indication (platform contract: Offers service decisions). Checks run from
   * the request to the state: visibility (404), terms (400), currency and minimum (400),
   * then the offer being live (409). The row, its indication.received event and, with an
   * Idempotency-Key, the stored response commit in one transaction.
   */
  async create(partner: PartnerPrincipal, offerId: string, dto: IndicationCreateDto): Promise<IndicationDto> {
    return this.transactions.run(async (tx) => {
      // One statement: visibility, the offer row under a shared lock, and the current terms.
      const offer = await this.repository.lockVisibleOffer(tx, partner.partnerId, offerId);
      if (!offer) throw new NotFoundError('offer', offerId);
      if (dto.terms_accepted !== true) {
        throw new OffersError(
          'terms_not_accepted',
          'terms_accepted must be true: the investor has to accept the current terms.',
          {
            param: 'terms_accepted',
          },
        );
      }
      const termsVersion = checkTermsVersion(dto.terms_version, offer.currentTerms);
      checkAmount(offer, dto);
      checkLive(offer, offer, this.clock.nowMs());
      const indication = await this.repository.create(tx, partner.partnerId, {
        id: newId('ind'),
        offerId: offer.id,
        investorId: dto.investor_id,
        amount: dto.amount,
        currency: offer.currency,
        termsVersion,
        createdAt: this.clock.now(),
      });
      const view = indicationView(indication);
      await this.events.emit(tx, { partnerId: partner.partnerId, event: 'indication.received', data: view });
      return view;
    });
  }

  async list(partner: PartnerPrincipal, offerId: string): Promise<IndicationListDto> {
    await this.offers.requireVisible(partner.partnerId, offerId);
    const rows = await this.repository.list(partner.partnerId, offerId);
    return { indications: rows.map(indicationView), total: rows.length };
  }

  /** Cancels one of the caller's indications while the offer is live; cancelling twice answers the same. */
  async cancel(partner: PartnerPrincipal, offerId: string, indicationId: string): Promise<IndicationDto> {
    return this.transactions.run(async (tx) => {
      const offer = await this.offers.requireVisible(partner.partnerId, offerId, tx);
      const indication = await this.repository.find(partner.partnerId, offerId, indicationId, tx);
      if (!indication) throw new NotFoundError('indication', indicationId);
      if (indication.status === 'cancelled') return indicationView(indication);
      await this.requireLive(tx, offer);
      await this.repository.cancel(tx, partner.partnerId, indicationId, this.clock.now());
      const after = await this.repository.find(partner.partnerId, offerId, indicationId, tx);
      return indicationView(after ?? indication);
    });
  }

  /** Live by status and by the clock (a close job a few ms late must not let one through). */
  private async requireLive(tx: PrismaTx, offer: OfferRecord): Promise<void> {
    checkLive(offer, await this.repository.lockOffer(tx, offer.id), this.clock.nowMs());
  }
}

/** `locked`: the offer's status and close time read under the row lock (undefined if the row is gone). */
function checkLive(
  offer: { readonly id: string; readonly status: OfferStatus },
  locked: { readonly status: OfferStatus; readonly closesAt: Date } | undefined,
  now: number,
): void {
  if (!locked || locked.status !== 'live' || now >= locked.closesAt.getTime()) {
    const status = locked?.status === 'live' ? 'closed' : (locked?.status ?? offer.status);
    throw new OffersError('offer_not_live', `Offer ${offer.id} is ${status}; indications are accepted only while it is live.`, {
      details: { offer_status: status },
    });
  }
}

function checkAmount(offer: Pick<OfferRecord, 'currency' | 'minimumInvestment'>, dto: IndicationCreateDto): void {
  if (dto.currency !== offer.currency) {
    throw new OffersError('parameter_invalid', `currency must be the offer's currency, '${offer.currency}'.`, {
      param: 'currency',
    });
  }
  const minimum = minimumInMinor(offer.minimumInvestment);
  if (dto.amount < minimum) {
    throw new OffersError(
      'amount_too_small',
      `amount must be at least ${minimum} (minimum_investment ${offer.minimumInvestment} ${offer.currency} in minor units).`,
      { param: 'amount', details: { minimum_amount: minimum } },
    );
  }
}
