import { Injectable, Logger } from '@nestjs/common';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { newId, NotFoundError, TransactionRunner, withTimeout } from '@app/platform';
import { decimalToTicks } from '../common/money';
import { LifecycleService } from '../lifecycle/lifecycle.service';
import {
  type AgreementDto,
  type OfferCreateDto,
  type OfferDocumentInputDto,
  type OfferDto,
  type OfferListDto,
  type OfferListQueryDto,
  type OfferUpdateDto,
  offerView,
} from './dto/offer.dto';
import { OFFER_STATUSES, type OfferDocument, type OfferFields, type OfferRecord } from './offer.types';
import { OffersRepository } from './offers.repository';
import { OffersError } from '../errors';

/** Without a status filter, the list shows what a partner can act on (platform contract). */
const DEFAULT_STATUSES = ['live', 'upcoming'] as const;
/** How long an admin write waits for Redis to take its lifecycle jobs. */
const SCHEDULE_WAIT_MS = 2_000;

@Injectable()
export class OffersService {
  private readonly logger = new Logger('Offers');

  constructor(
    private readonly repository: OffersRepository,
    private readonly lifecycle: LifecycleService,
    private readonly transactions: TransactionRunner,
  ) {}

  async list(partner: PartnerPrincipal, query: OfferListQueryDto): Promise<OfferListDto> {
    // Incremental sync sees every status (a closed offer is a change too) unless one is asked for.
    const defaults = query.modified_after === undefined ? DEFAULT_STATUSES : OFFER_STATUSES;
    const { offers, total } = await this.repository.listVisible(partner.partnerId, {
      statuses: query.status === undefined ? defaults : [query.status],
      ...(query.type === undefined ? {} : { type: query.type }),
      ...(query.modified_after === undefined ? {} : { modifiedAfter: new Date(query.modified_after) }),
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
    return { offers: offers.map(offerView), total, page: query.page };
  }

  async get(partner: PartnerPrincipal, offerId: string): Promise<OfferDto> {
    return offerView(await this.requireVisible(partner.partnerId, offerId));
  }

  /** An offer in the partner's agreement; any other id is 404, whether or not it exists. */
  async requireVisible(partnerId: string, offerId: string): Promise<OfferRecord> {
    const offer = await this.repository.findVisible(partnerId, offerId);
    if (!offer) throw new NotFoundError('offer', offerId);
    return offer;
  }

  async adminGet(offerId: string): Promise<OfferDto> {
    return offerView(await this.adminRequire(offerId));
  }

  async adminCreate(dto: OfferCreateDto): Promise<OfferDto> {
    const fields: OfferFields = {
      company: dto.company,
      ticker: dto.ticker,
      type: dto.type,
      pricePerShare: dto.price_per_share.toFixed(4),
      currency: dto.currency,
      minimumInvestment: dto.minimum_investment.toFixed(2),
      maximumInvestment: dto.maximum_investment == null ? null : dto.maximum_investment.toFixed(2),
      documents: documentsOf(dto.documents ?? []),
      sharesOffered: dto.shares_offered,
      opensAt: new Date(dto.opens_at),
      closesAt: new Date(dto.closes_at),
    };
    checkOffer(fields);
    const created = await this.transactions.run((tx) => this.repository.adminCreate(tx, newId('offer'), fields));
    // Status follows the clock: an offer created with opens_at in the past is live at once.
    const current = (await this.lifecycle.advance(created.id)) ?? created;
    await this.scheduleQuietly(() => this.lifecycle.schedule(current));
    this.logger.log({ offerId: created.id }, `offer ${created.id} created (${current.status})`);
    return offerView(current);
  }

  async adminUpdate(offerId: string, dto: OfferUpdateDto): Promise<OfferDto> {
    const before = await this.adminRequire(offerId);
    if (before.status === 'closed') {
      throw new OffersError('offer_not_editable', `Offer ${offerId} is closed and can no longer be changed.`);
    }
    const changes: Partial<OfferFields> = {
      ...(dto.company == null ? {} : { company: dto.company }),
      ...(dto.ticker == null ? {} : { ticker: dto.ticker }),
      ...(dto.type == null ? {} : { type: dto.type }),
      ...(dto.price_per_share == null ? {} : { pricePerShare: dto.price_per_share.toFixed(4) }),
      ...(dto.currency == null ? {} : { currency: dto.currency }),
      ...(dto.minimum_investment == null ? {} : { minimumInvestment: dto.minimum_investment.toFixed(2) }),
      // null removes the maximum; absent leaves it
      ...(dto.maximum_investment === undefined
        ? {}
        : { maximumInvestment: dto.maximum_investment === null ? null : dto.maximum_investment.toFixed(2) }),
      ...(dto.documents == null ? {} : { documents: documentsOf(dto.documents) }),
      ...(dto.shares_offered == null ? {} : { sharesOffered: dto.shares_offered }),
      ...(dto.opens_at == null ? {} : { opensAt: new Date(dto.opens_at) }),
      ...(dto.closes_at == null ? {} : { closesAt: new Date(dto.closes_at) }),
    };
    if (before.status === 'live') {
      // Indications already taken were made against these terms of the offer.
      const frozen = (['opensAt', 'pricePerShare', 'currency', 'minimumInvestment', 'maximumInvestment'] as const).filter(
        (k) => changes[k] !== undefined && comparable(changes[k]) !== comparable(before[k]),
      );
      if (frozen.length > 0) {
        throw new OffersError(
          'offer_not_editable',
          `Offer ${offerId} is live: only company, ticker, type, shares_offered, closes_at and documents can change.`,
          { param: snake(frozen[0] ?? 'opensAt') },
        );
      }
    }
    checkOffer({ ...before, ...changes });
    const closesMoved = changes.closesAt !== undefined && changes.closesAt.getTime() !== before.closesAt.getTime();
    const updated = await this.transactions.run((tx) => this.repository.adminUpdate(tx, offerId, changes, closesMoved));
    if (!updated) throw new OffersError('offer_not_editable', `Offer ${offerId} is closed and can no longer be changed.`);
    const current = (await this.lifecycle.advance(offerId)) ?? updated;
    await this.scheduleQuietly(() => this.lifecycle.reschedule(before, current));
    return offerView(current);
  }

  async addToAgreement(partnerId: string, offerId: string): Promise<AgreementDto> {
    if (!(await this.repository.partnerExists(partnerId))) throw new NotFoundError('partner', partnerId, 'id');
    await this.adminRequire(offerId, 'offer_id');
    const createdAt = await this.transactions.run((tx) => this.repository.adminAddToAgreement(tx, partnerId, offerId));
    return { partner_id: partnerId, offer_id: offerId, created_at: createdAt.toISOString() };
  }

  /** Any offer by id (admin and system use). */
  async adminRequire(offerId: string, param?: string): Promise<OfferRecord> {
    const offer = await this.repository.adminFind(offerId);
    if (!offer) throw new NotFoundError('offer', offerId, param);
    return offer;
  }

  /**
   * Redis trouble must neither fail nor stall a committed change: after SCHEDULE_WAIT_MS the
   * request answers anyway, and the lifecycle sweep re-enqueues whatever is missing.
   */
  private async scheduleQuietly(fn: () => Promise<void>): Promise<void> {
    try {
      await withTimeout(fn(), SCHEDULE_WAIT_MS, `no answer from Redis within ${SCHEDULE_WAIT_MS} ms`);
    } catch (err) {
      this.logger.warn(`could not enqueue lifecycle jobs (the sweep will): ${String(err)}`);
    }
  }
}

/** Dates by instant, decimals by value ("2.5" = "2.5000"), the rest as strings. */
function comparable(value: Date | string | null | undefined): string {
  if (value instanceof Date) return String(value.getTime());
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) return decimalToTicks(value).toString();
  return String(value);
}

function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The validated documents as stored: only the three fields, in the order given. */
function documentsOf(input: readonly OfferDocumentInputDto[]): OfferDocument[] {
  return input.map((d) => ({ type: d.type, title: d.title, url: d.url }));
}

/** Rules across fields of an offer. */
function checkOffer(o: OfferFields): void {
  if (o.closesAt.getTime() <= o.opensAt.getTime()) {
    throw new OffersError('parameter_invalid', 'closes_at must be later than opens_at.', { param: 'closes_at' });
  }
  if (decimalToTicks(o.minimumInvestment) < decimalToTicks(o.pricePerShare)) {
    throw new OffersError('parameter_invalid', 'minimum_investment must be at least price_per_share (one share).', {
      param: 'minimum_investment',
    });
  }
  if (o.maximumInvestment !== null && decimalToTicks(o.maximumInvestment) < decimalToTicks(o.minimumInvestment)) {
    throw new OffersError('parameter_invalid', 'maximum_investment must be at least minimum_investment.', {
      param: 'maximum_investment',
    });
  }
}
