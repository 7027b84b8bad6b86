import type { AllocationRecord } from '../../../apps/offers-api/src/allocations/allocation.types';
import { decimalToTicks, ticksToDecimal } from '../../../apps/offers-api/src/common/money';
import type { OfferEventData, OfferEventType } from '../../../apps/offers-api/src/events/offer-events';
import type { IndicationRecord } from '../../../apps/offers-api/src/indications/indication.types';
import type { OfferFields, OfferRecord } from '../../../apps/offers-api/src/offers/offer.types';
import type { TermsRecord } from '../../../apps/offers-api/src/terms/terms.types';
import type { Snapshottable } from '../fake-transaction-runner';

export interface AgreementRow {
  readonly partnerId: string;
  readonly offerId: string;
  readonly createdAt: Date;
}

export interface IndicationRow extends IndicationRecord {
  readonly cancelledAt: Date | null;
}

/** An outbox row as the fake OfferEvents writes it: one partner's event, its data as JSON. */
export type OutboxEvent = {
  [K in OfferEventType]: { readonly partnerId: string; readonly event: K; readonly data: OfferEventData<K> };
}[OfferEventType];

/**
 * The offers-api tables in memory, for unit specs: the fake repositories read and write
 * them with the conditions of the real SQL. Rows are replaced, never mutated, so a
 * transaction is rolled back by restoring copies of the tables it started from: the
 * FakeTransactionRunner snapshots it (one transaction at a time, no isolation: unit specs call
 * the services one after another); the fake repositories check their handle with the runner.
 */
export class InMemoryOffersDb implements Snapshottable {
  readonly offers = new Map<string, OfferRecord>();
  readonly partners = new Set<string>();
  agreements: AgreementRow[] = [];
  readonly indications = new Map<string, IndicationRow>();
  allocations: AllocationRecord[] = [];
  terms: TermsRecord[] = [];
  /** The webhooks outbox: the events committed with the changes that caused them. */
  outbox: OutboxEvent[] = [];

  /** `now`: the time the database stamps defaults with (created_at). */
  constructor(readonly now: () => Date) {}

  // --- fixtures -----------------------------------------------------------------------

  addPartner(partnerId: string): void {
    this.partners.add(partnerId);
  }

  addOffer(fields: Partial<OfferRecord> & Pick<OfferRecord, 'id'>): OfferRecord {
    const defaults: Omit<OfferRecord, 'id'> = {
      company: 'Acme Robotics plc',
      ticker: 'ACME',
      type: 'ipo',
      pricePerShare: '2.5',
      currency: 'gbp',
      minimumInvestment: '250',
      maximumInvestment: null,
      documents: [],
      sharesOffered: 1_000_000,
      opensAt: new Date(this.now().getTime() - 3_600_000),
      closesAt: new Date(this.now().getTime() + 7 * 24 * 3_600_000),
      status: 'live',
      closingSoonNotifiedAt: null,
      allocatedAt: null,
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    const offer = normalize({ ...defaults, ...fields });
    this.offers.set(offer.id, offer);
    return offer;
  }

  agree(partnerId: string, offerId: string): void {
    this.addPartner(partnerId);
    if (!this.isVisible(partnerId, offerId)) this.agreements.push({ partnerId, offerId, createdAt: this.now() });
  }

  addTerms(version: string, publishedAt: Date = this.now()): TermsRecord {
    const terms = { version, title: 'Investor terms', body: `terms ${version}`, publishedAt };
    this.terms.push(terms);
    return terms;
  }

  addIndication(fields: Partial<IndicationRow> & Pick<IndicationRow, 'id' | 'offerId' | 'partnerId'>): IndicationRow {
    const row: IndicationRow = {
      investorId: 'inv_1',
      amount: 100_000,
      currency: 'gbp',
      termsVersion: '2026-11-01',
      status: 'received',
      createdAt: this.now(),
      cancelledAt: null,
      ...fields,
    };
    this.indications.set(row.id, row);
    return row;
  }

  // --- queries shared by the fake repositories -----------------------------------------

  isVisible(partnerId: string, offerId: string): boolean {
    return this.agreements.some((a) => a.partnerId === partnerId && a.offerId === offerId);
  }

  /** The latest published terms: by published_at, then version, descending. */
  currentTerms(): TermsRecord | undefined {
    return [...this.terms].sort(
      (a, b) => b.publishedAt.getTime() - a.publishedAt.getTime() || (a.version < b.version ? 1 : a.version > b.version ? -1 : 0),
    )[0];
  }

  updateOffer(offerId: string, changes: Partial<OfferRecord>): OfferRecord {
    const before = this.offers.get(offerId);
    if (!before) throw new Error(`no offer ${offerId}`);
    // updated_at moves on every change, as the offers_touch_updated_at trigger does
    const after = normalize({ ...before, updatedAt: this.now(), ...changes });
    this.offers.set(offerId, after);
    return after;
  }

  /** Copies of the tables; the function restores them (a rollback). */
  snapshot(): () => void {
    const offers = new Map(this.offers);
    const partners = new Set(this.partners);
    const indications = new Map(this.indications);
    const [agreements, allocations, terms, outbox] = [
      [...this.agreements],
      [...this.allocations],
      [...this.terms],
      [...this.outbox],
    ];
    return () => {
      replace(this.offers, offers);
      this.partners.clear();
      for (const p of partners) this.partners.add(p);
      replace(this.indications, indications);
      this.agreements = agreements;
      this.allocations = allocations;
      this.terms = terms;
      this.outbox = outbox;
    };
  }
}

function replace<K, V>(target: Map<K, V>, source: ReadonlyMap<K, V>): void {
  target.clear();
  for (const [k, v] of source) target.set(k, v);
}

/** Decimals as PostgreSQL's numeric prints them through Prisma's Decimal ("2.5000" → "2.5"). */
export function normalize<T extends OfferFields>(offer: T): T {
  return {
    ...offer,
    pricePerShare: ticksToDecimal(decimalToTicks(offer.pricePerShare)),
    minimumInvestment: ticksToDecimal(decimalToTicks(offer.minimumInvestment)),
    maximumInvestment: offer.maximumInvestment === null ? null : ticksToDecimal(decimalToTicks(offer.maximumInvestment)),
  };
}

/** Orders rows by a date, then by id (the repositories' ORDER BY x ASC, id ASC). */
export function byDateThenId<T extends { readonly id: string }>(date: (row: T) => Date): (a: T, b: T) => number {
  return (a, b) => date(a).getTime() - date(b).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
