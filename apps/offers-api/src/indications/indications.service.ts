import { Injectable } from '@nestjs/common';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { Clock, newId, NotFoundError, TransactionRunner, type IdempotentRequest } from '@app/platform';
import { maximumInMinor, minimumInMinor } from '../common/money';
import { OfferEvents } from '../events/offer-events';
import type { OfferStatus } from '../offers/offer.types';
import { OffersService } from '../offers/offers.service';
import { checkTermsVersion } from '../terms/terms-check';
import {
  type IndicationCreateDto,
  type IndicationDto,
  type IndicationListDto,
  type IndicationUpdateDto,
  indicationUpdatedEventData,
  indicationView,
} from './dto/indication.dto';
import type { IndicationTarget } from './indication.types';
import { IndicationsRepository } from './indications.repository';
import { OffersError } from '../errors';

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
  async create(
    partner: PartnerPrincipal,
    offerId: string,
    dto: IndicationCreateDto,
    idempotency?: IdempotentRequest,
  ): Promise<IndicationDto> {
    // Three rows commit together: the indication, its event (outbox, written with the last
    // statement) and, under an Idempotency-Key, the stored response (the completion hook).
    return this.transactions.runSql(
      async (tx, closing) => {
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
        checkLive(offer, this.clock.nowMs(), 'accepted');
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
        this.events.emit(closing, partner.partnerId, 'indication.received', view);
        return view;
      },
      { completion: idempotency?.completion() },
    ); // raw statements only: a pg transaction, not Prisma's (decisions 117)
  }

  async list(partner: PartnerPrincipal, offerId: string): Promise<IndicationListDto> {
    await this.offers.requireVisible(partner.partnerId, offerId);
    const rows = await this.repository.list(partner.partnerId, offerId);
    return { indications: rows.map(indicationView), total: rows.length };
  }

  /** One of the caller's indications, by id alone; another partner's is 404 like one that never existed. */
  async get(partner: PartnerPrincipal, indicationId: string): Promise<IndicationDto> {
    const indication = await this.repository.findOwn(partner.partnerId, indicationId);
    if (!indication) throw new NotFoundError('indication', indicationId, 'id');
    return indicationView(indication);
  }

  /**
   * A new amount for one of the caller's received indications while the offer is live
   * (platform contract: Offers, more), under the same rules as submit: the amount within the
   * offer's minimum and maximum, then the offer live. The offer row is read under the shared
   * lock create takes, so the close transition (and so the allocation run, which needs a
   * closed offer) waits for this transaction: no amount changes after an offer has closed.
   * The change and its indication.updated event commit together; the same amount again
   * changes nothing and fires nothing.
   */
  async amend(
    partner: PartnerPrincipal,
    offerId: string,
    indicationId: string,
    dto: IndicationUpdateDto,
  ): Promise<IndicationDto> {
    return this.transactions.run(async (tx, closing) => {
      const offer = await this.repository.lockVisibleOffer(tx, partner.partnerId, offerId);
      if (!offer) throw new NotFoundError('offer', offerId);
      const indication = await this.repository.find(tx, partner.partnerId, offerId, indicationId);
      if (!indication) throw new NotFoundError('indication', indicationId);
      checkAmount(offer, { currency: indication.currency, amount: dto.amount });
      if (indication.status === 'cancelled') throw cancelledError(indicationId);
      checkLive(offer, this.clock.nowMs(), 'changed');
      if (dto.amount === indication.amount) return indicationView(indication);
      const updated = await this.repository.changeAmount(tx, partner.partnerId, indicationId, dto.amount);
      if (!updated) throw cancelledError(indicationId);
      this.events.emit(closing, partner.partnerId, 'indication.updated', indicationUpdatedEventData(updated, indication.amount));
      return indicationView(updated);
    });
  }

  /** Cancels one of the caller's indications while the offer is live; cancelling twice answers the same. */
  async cancel(partner: PartnerPrincipal, offerId: string, indicationId: string): Promise<IndicationDto> {
    return this.transactions.run(async (tx) => {
      // Visibility and the offer row under a shared lock, as for create.
      const offer = await this.repository.lockVisibleOffer(tx, partner.partnerId, offerId);
      if (!offer) throw new NotFoundError('offer', offerId);
      const indication = await this.repository.find(tx, partner.partnerId, offerId, indicationId);
      if (!indication) throw new NotFoundError('indication', indicationId);
      if (indication.status === 'cancelled') return indicationView(indication);
      checkLive(offer, this.clock.nowMs(), 'cancelled');
      await this.repository.cancel(tx, partner.partnerId, indicationId, this.clock.now());
      const after = await this.repository.find(tx, partner.partnerId, offerId, indicationId);
      return indicationView(after ?? indication);
    });
  }
}

/** An amendment of a cancelled indication: a state the request cannot change (409). */
function cancelledError(indicationId: string): OffersError {
  return new OffersError(
    'indication_cancelled',
    `Indication ${indicationId} was cancelled and can no longer be changed; submit a new one.`,
  );
}

/**
 * Live by status and by the clock (a close job a few ms late must not let one through).
 * `offer`: its status and close time as read under the row lock.
 */
function checkLive(
  offer: { readonly id: string; readonly status: OfferStatus; readonly closesAt: Date },
  now: number,
  what: 'accepted' | 'cancelled' | 'changed',
): void {
  if (offer.status !== 'live' || now >= offer.closesAt.getTime()) {
    const status = offer.status === 'live' ? 'closed' : offer.status;
    throw new OffersError('offer_not_live', `Offer ${offer.id} is ${status}; indications are ${what} only while it is live.`, {
      details: { offer_status: status },
    });
  }
}

function checkAmount(
  offer: Pick<IndicationTarget, 'currency' | 'minimumInvestment' | 'maximumInvestment'>,
  dto: Pick<IndicationCreateDto, 'currency' | 'amount'>,
): void {
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
  if (offer.maximumInvestment !== null) {
    const maximum = maximumInMinor(offer.maximumInvestment);
    if (dto.amount > maximum) {
      throw new OffersError(
        'amount_above_maximum',
        `amount must be at most ${maximum} (maximum_investment ${offer.maximumInvestment} ${offer.currency} in minor units).`,
        { param: 'amount', details: { maximum_amount: maximum } },
      );
    }
  }
}
