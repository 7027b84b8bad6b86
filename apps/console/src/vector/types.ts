/** What the vector API answers (docs/vector.md; the OpenAPI document is the reference). */

export const INDEX_KINDS = ['flat', 'ivf', 'hnsw'] as const;
export const METRICS = ['cosine', 'dot', 'euclidean'] as const;
export type IndexKind = (typeof INDEX_KINDS)[number];
export type Metric = (typeof METRICS)[number];

export interface IndexStatus {
  readonly state: 'ready' | 'building' | 'exact' | 'not_loaded';
  readonly details: Record<string, number>;
}

export interface Table {
  readonly name: string;
  readonly dimension: number;
  readonly index: IndexKind;
  readonly metric: Metric;
  readonly rows: number;
  readonly index_status: IndexStatus;
  readonly created_at: string;
}

export type Metadata = Record<string, unknown>;

export interface QueryHit {
  readonly id: string;
  readonly score: number;
  readonly metadata?: Metadata;
}

export interface QueryAnswer {
  readonly results: QueryHit[];
  readonly latency_ms: number;
}

export interface Fetched {
  readonly rows: Array<{ id: string; metadata: Metadata; embedding?: number[] }>;
  readonly not_found: string[];
}

export interface IdsPage {
  readonly ids: string[];
  readonly next_cursor: string | null;
}

export interface TableStats {
  readonly name: string;
  readonly window_minutes: number;
  readonly scope: 'instance';
  readonly query_latency: Array<{ start: string; queries: number; p50_ms: number; p95_ms: number; max_ms: number }>;
}

export interface Token {
  readonly id: string;
  readonly name: string;
  readonly last4: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
}

export interface TokenCreated extends Token {
  readonly token: string;
}

/** `/v1/tables/{name}…`: a table name is `^[a-z0-9_-]{1,64}$`, but encode anyway. */
export const tablePath = (name: string, rest = ''): string => `/v1/tables/${encodeURIComponent(name)}${rest}`;

/** Metadata as one line of JSON. */
export const compactJson = (value: unknown): string => JSON.stringify(value ?? {});
