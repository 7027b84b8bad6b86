import { Injectable } from '@nestjs/common';
import { type Closing, currentTraceCarrier } from '@app/platform';
import { eventKind, WebhookEmitter } from '@app/webhooks';
import { AllocationEventData, allocationEventData } from '../allocations/dto/allocation.dto';
import {
  IndicationDto,
  IndicationUpdatedEventData,
  indicationUpdatedEventData,
  indicationView,
} from '../indications/dto/indication.dto';
import type { IndicationRecord } from '../indications/indication.types';
import { OfferDto, offerView } from '../offers/dto/offer.dto';
import type { OfferRecord } from '../offers/offer.types';

/** The offer every example of the catalogue is about (fixed values: an example, not a real offer). */
const EXAMPLE_OFFER: OfferRecord = {
  id: 'offer_4fZk2QmT8xWb1nLp7yRc3sDv',
  company: 'Acme Robotics plc',
  ticker: 'ACME',
  type: 'ipo',
  status: 'live',
  pricePerShare: '2.5',
  currency: 'gbp',
  minimumInvestment: '250',
  maximumInvestment: '50000',
  documents: [
    { type: 'prospectus', title: 'Prospectus', url: 'https://example.com/acme/prospectus.pdf' },
    { type: 'key_information', title: 'Key information document', url: 'https://example.com/acme/kid.pdf' },
  ],
  sharesOffered: 40_000_000,
  opensAt: new Date('2026-12-01T08:00:00.000Z'),
  closesAt: new Date('2026-12-08T16:30:00.000Z'),
  closingSoonNotifiedAt: null,
  allocatedAt: null,
  createdAt: new Date('2026-11-20T10:00:00.000Z'),
  updatedAt: new Date('2026-12-01T08:00:00.000Z'),
};

const EXAMPLE_INDICATION: IndicationRecord = {
  id: 'ind_Zq81mT4xWb7nLp2yRc5sDvKf',
  offerId: EXAMPLE_OFFER.id,
  partnerId: 'partner_example',
  investorId: 'inv_29481',
  amount: 250_000,
  currency: 'gbp',
  termsVersion: '2026-11-01',
  status: 'received',
  createdAt: new Date('2026-12-02T09:15:00.000Z'),
};

const exampleAllocation = (sharesAllocated: number): AllocationEventData =>
  allocationEventData({
    id: 'alloc_7Hq2VxN4bKp9sLm3zRc8tWd1',
    indicationId: 'ind_Zq81mT4xWb7nLp2yRc5sDvKf',
    offerId: EXAMPLE_OFFER.id,
    partnerId: 'partner_example',
    investorId: 'inv_29481',
    sharesRequested: 1_000,
    sharesAllocated,
    amountRequested: 250_000,
    amountAllocated: (sharesAllocated * 2.5).toFixed(2),
    amountRefunded: 250_000 - sharesAllocated * 250,
    currency: 'gbp',
    scalingFactor: (sharesAllocated / 1_000).toString(),
    method: 'pro_rata',
    createdAt: new Date('2026-12-08T17:00:00.000Z'),
  });

/**
 * Every kind of event offers-api emits (offers-distribution.md "Events"), with the class
 * that documents its `data` and an example made by the view function the emitting code
 * calls. The catalogue route (`GET /api/v1/webhook-endpoints/event-types`) shows them.
 */
export const OFFER_EVENT_KINDS = {
  'offer.opened': eventKind({
    type: 'offer.opened',
    description: 'A new offer became live: indications can be submitted. data: the Offer.',
    data: OfferDto,
    example: () => offerView(EXAMPLE_OFFER),
  }),
  'offer.closing_soon': eventKind({
    type: 'offer.closing_soon',
    description: 'A live offer has one hour left before it closes. data: the Offer.',
    data: OfferDto,
    example: () => offerView(EXAMPLE_OFFER),
  }),
  'offer.closed': eventKind({
    type: 'offer.closed',
    description: 'An offer closed for new indications. data: the Offer.',
    data: OfferDto,
    example: () => offerView({ ...EXAMPLE_OFFER, status: 'closed' }),
  }),
  'indication.received': eventKind({
    type: 'indication.received',
    description: 'One of your indications was accepted. data: the Indication.',
    data: IndicationDto,
    example: () => indicationView(EXAMPLE_INDICATION),
  }),
  'indication.updated': eventKind({
    type: 'indication.updated',
    description:
      'One of your indications got a new amount (PATCH while the offer is live). data: the Indication and previous_amount.',
    data: IndicationUpdatedEventData,
    example: () => indicationUpdatedEventData({ ...EXAMPLE_INDICATION, amount: 300_000 }, EXAMPLE_INDICATION.amount),
  }),
  'allocation.confirmed': eventKind({
    type: 'allocation.confirmed',
    description: 'An investor of yours was allocated every share asked for. data: the Allocation.',
    data: AllocationEventData,
    example: () => exampleAllocation(1_000),
  }),
  'allocation.scaled': eventKind({
    type: 'allocation.scaled',
    description:
      'An investor of yours was allocated fewer shares than asked (the offer was oversubscribed). data: the Allocation.',
    data: AllocationEventData,
    example: () => exampleAllocation(400),
  }),
} as const;

export type OfferEventType = keyof typeof OFFER_EVENT_KINDS;

/** The `data` an event kind carries: an instance of its catalogue class. */
export type OfferEventData<K extends OfferEventType> = InstanceType<(typeof OFFER_EVENT_KINDS)[K]['data']>;

/**
 * Offers' events: each an outbox row written with the last statement of the change's
 * transaction (its Closing), so it exists if and only if the change committed, with the
 * trace context of the code that made the change (a request, a lifecycle job). Every
 * event is for one partner: its webhook endpoints receive it.
 */
@Injectable()
export class OfferEvents {
  constructor(private readonly emitter: WebhookEmitter) {}

  emit<K extends OfferEventType>(closing: Closing, partnerId: string, event: K, data: OfferEventData<K>): string {
    return this.emitter.emit(
      closing,
      { ownerType: 'partner', ownerId: partnerId, event, data: { ...data } },
      currentTraceCarrier(),
    );
  }
}
