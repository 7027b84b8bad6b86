/**
 * The offers API's answers the partner dashboard reads: aliases of the generated client's schemas
 * (`clients/offers/schema.d.ts`, docs/clients.md), so the console's typecheck fails when the API changes.
 */
import type { components } from '../../../../clients/offers/schema';

import { membersOf } from '../members';

type Schemas = components['schemas'];

export type Offer = Schemas['OfferDto'];
export type OfferStatus = Offer['status'];
export type OfferType = Offer['type'];
export type OfferDocument = Schemas['OfferDocumentDto'];
/** GET /api/v1/offers: numbered pages (`page`, `limit`) with the total. */
export type OfferList = Schemas['OfferListDto'];
export type Indication = Schemas['IndicationDto'];
/** GET /api/v1/offers/{id}/indications: all of the partner's indications on the offer. */
export type IndicationList = Schemas['IndicationListDto'];
export type Allocation = Schemas['AllocationDto'];
export type OAuthClient = Schemas['OAuthClientDto'];
export type OAuthClientCreated = Schemas['OAuthClientCreatedDto'];
export type OAuthClientSecretRotated = Schemas['OAuthClientSecretRotatedDto'];

export const OFFER_STATUSES = membersOf<OfferStatus>()(['live', 'upcoming', 'closed'] as const);
export const OFFER_TYPES = membersOf<OfferType>()(['ipo', 'placing', 'retail_offer'] as const);

/** The longest grace of a rotated-out secret the API accepts (hours). */
export const ROTATION_GRACE_MAX_HOURS = 168;
