/**
 * What the vector API answers (docs/vector.md): aliases of the generated client's schemas
 * (`clients/vector/schema.d.ts`, docs/clients.md), so the console's typecheck fails when the API changes.
 */
import type { components } from '../../../../clients/vector/schema';

import { membersOf } from '../members';

type Schemas = components['schemas'];

export type Table = Schemas['TableDto'];
export type IndexKind = Table['index'];
export type Metric = Table['metric'];
export type IndexStatus = Schemas['IndexStatusDto'];
export type QueryHit = Schemas['QueryResultItemDto'];
export type Metadata = NonNullable<QueryHit['metadata']>;
export type QueryAnswer = Schemas['QueryResponseDto'];
export type Fetched = Schemas['FetchedDto'];
export type IdsPage = Schemas['IdsPageDto'];
export type TableStats = Schemas['TableStatsDto'];
export type Token = Schemas['VectorTokenDto'];
export type TokenCreated = Schemas['VectorTokenCreatedDto'];

export const INDEX_KINDS = membersOf<IndexKind>()(['flat', 'ivf', 'hnsw'] as const);
export const METRICS = membersOf<Metric>()(['cosine', 'dot', 'euclidean'] as const);

/** `/v1/tables/{name}…`: a table name is letters, digits, `_`, `-` and `.` (1–64, not only dots): encode anyway. */
export const tablePath = (name: string, rest = ''): string => `/v1/tables/${encodeURIComponent(name)}${rest}`;

/** Metadata as one line of JSON. */
export const compactJson = (value: unknown): string => JSON.stringify(value ?? {});
