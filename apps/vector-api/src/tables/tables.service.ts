import { NotFoundError, type Tx, type TransactionOptions, TransactionRunner } from '@app/platform';
import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { VectorConfig } from '../config';
import type { Filter } from '../engine/filter';
import { matchesEveryRow } from '../engine/filter-matches-all';
import type { Metadata } from '../engine/filter';
import type { Metric } from '../engine/types';
import type { CollectionHit, CollectionRow, ScoreScale } from '../engine/vector-collection';
import {
  type CreateTableDto,
  type ListTablesQueryDto,
  type TableDeletedDto,
  type TableDto,
  type TableListDto,
  type TableStatsDto,
  toLoadingTableDto,
  toTableDto,
} from './dto/table.dto';
import {
  type BatchQueryResponseDto,
  type CountedDto,
  type CountVectorsDto,
  type DeletedDto,
  type DeleteVectorsDto,
  type FetchedDto,
  type FetchVectorsDto,
  type IdsPageDto,
  type InsertedDto,
  type InsertVectorsDto,
  type ListIdsQueryDto,
  MAX_ID_LENGTH,
  type QueryDto,
  type QueryResponseDto,
  type QueryResultItemDto,
  type UpdatedVectorDto,
  type UpdateVectorDto,
  type UpsertedDto,
} from './dto/vectors.dto';
import { ChangeLogGap, type LiveTable, LiveTables } from './live-tables';
import type { MetadataLimits } from './metadata-size';
import { LATENCY_WINDOW_MINUTES, QueryLatency } from './query-latency';
import { checkRows, checkVector, idsDetail, listIds, mergeMetadata, toFilter } from './row-rules';
import { TablePartition } from './table-partition';
import { type NewRow, type StoredRow, type TableHead, TablesRepository } from './tables.repository';
import { VectorError } from '../errors';
import { checkAnswerSize, EMBEDDING_VALUE_BYTES, estimateAnswer } from './answer-size';
import { withAnswerSize } from './sliced-json';

/**
 * vector-api's tenant: the project whose tables a call reaches (a token's, or a console
 * session's). Every tenant-scoped service method takes it first.
 */
export interface Tenant {
  readonly projectId: string;
}

/** How an upsert's rows are checked beyond /v1's rules (the Qdrant-compatible API). */
export interface UpsertOptions {
  /** Metadata may hold null values. */
  readonly allowNull?: boolean;
  /** At most this many rows (the /v1 DTO caps its batches itself; the Qdrant API has no cap). */
  readonly maxRows?: number;
}

/** One of the nearest-neighbour queries of `nearest` (a filter in the /v1 syntax). */
export interface NearestQuery {
  readonly vector: unknown[];
  readonly n: number;
  readonly filter?: Record<string, unknown> | undefined;
  /** hnsw: the ef of the search (Qdrant's `params.hnsw_ef`); the table's default otherwise. */
  readonly hnswEf?: number | undefined;
}

/** Which rows a metadata rewrite reaches: these ids (all must exist) or every row matching a /v1 filter. */
export type RowTarget = { readonly ids: readonly string[] } | { readonly filter: Record<string, unknown> };

/** A row as the Qdrant-compatible reads show it. */
export interface RowRead {
  readonly id: string;
  readonly metadata: Metadata;
  readonly embedding?: number[];
}

/** Byte order of UTF-8 ids (PostgreSQL's COLLATE "C"), with a fast path for ASCII. */
export function byIdBytes(a: string, b: string): number {
  // UTF-16 order equals UTF-8 byte order except between surrogates and U+E000..U+FFFF.
  if (!/[\ud800-\uffff]/.test(a) && !/[\ud800-\uffff]/.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Embeddings one query request may return (`include_values`), as Pinecone caps top_k with values. */
const MAX_VALUES_PER_REQUEST = 1000;

/** Cursors of GET …/vectors: the last id of the page, base64url (opaque to callers). */
function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const id = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  // No id holds NUL (PostgreSQL text cannot) or is longer than MAX_ID_LENGTH.
  if (id.length === 0 || id.length > MAX_ID_LENGTH || id.includes('\u0000') || encodeCursor(id) !== cursor) {
    throw new VectorError('parameter_invalid', 'cursor is not a next_cursor this route returned.', { param: 'cursor' });
  }
  return id;
}

/** Committed rows as the engine takes them: row i under labels[i]. */
function withLabels(rows: readonly NewRow[], labels: readonly number[]): CollectionRow[] {
  return rows.map((r, i) => ({ id: r.id, label: labels[i], embedding: r.embedding, metadata: r.metadata }));
}

/** A stored embedding as JSON numbers (float32 values, exactly as stored). */
const valuesOf = (row: StoredRow): number[] => Array.from(row.embedding);

/**
 * Writes of a table: a batch of 1000 rows × 4096 dimensions (≈ 16 MB of embeddings) can take
 * seconds, and deleting a large table cascades to all its rows; Prisma's 5 s default would
 * abort them.
 */
const WRITE_TX = { timeoutMs: 60_000, maxWaitMs: 10_000 } as const satisfies TransactionOptions<unknown>;

/** Thrown inside a transaction to roll it back when it turns out to change nothing. */
class NothingToCommit extends Error {
  constructor() {
    super('nothing to commit');
  }
}

/** The transaction's result, or undefined when it threw NothingToCommit (and so rolled back). */
async function unlessNothingToCommit<T>(transaction: Promise<T>): Promise<T | undefined> {
  try {
    return await transaction;
  } catch (err) {
    if (err instanceof NothingToCommit) return undefined;
    throw err;
  }
}

/**
 * The rules of vector tables (vector-search.md + platform contract, "Vector service
 * decisions"): validation, all-or-nothing writes acknowledged after commit, queries.
 */
@Injectable()
export class TablesService {
  constructor(
    private readonly repo: TablesRepository,
    private readonly live: LiveTables,
    private readonly transactions: TransactionRunner,
    private readonly partition: TablePartition,
    private readonly latency: QueryLatency,
    private readonly config: VectorConfig,
  ) {
    this.metadataLimits = { maxBytes: config.VECTOR_METADATA_MAX_BYTES, maxKeys: config.VECTOR_METADATA_MAX_KEYS };
  }

  private readonly metadataLimits: MetadataLimits;

  /**
   * Counts `floats` more against the project's VECTOR_MAX_FLOATS_PER_PROJECT inside the
   * write's transaction (a conditional UPDATE of the project's counter, which stays locked
   * until commit); over the budget the write is refused and rolls back.
   */
  private async reserveFloats(tx: Tx, t: LiveTable, floats: number): Promise<void> {
    if (floats <= 0) return;
    const max = this.config.VECTOR_MAX_FLOATS_PER_PROJECT;
    const { ok, stored } = await this.repo.reserveFloats(tx, t.projectId, floats, max);
    if (ok) return;
    throw new VectorError(
      'project_capacity_reached',
      `This project stores ${stored} floats (rows × dimension over its tables) and may store ${max} (VECTOR_MAX_FLOATS_PER_PROJECT); this write adds ${floats}. Delete rows or tables first.`,
      { param: 'rows' },
    );
  }

  /** The caller's table; another project's table is 404 like a missing one. */
  private async table(tenant: Tenant, name: string): Promise<LiveTable> {
    this.partition.check(name);
    const t = await this.live.resolve(tenant.projectId, name);
    if (!t) throw new NotFoundError('table', name, 'table');
    return t;
  }

  /** The table was deleted (by another instance) after we resolved it: forget it, answer 404. */
  private gone(t: LiveTable): NotFoundError {
    this.live.dropped(t.projectId, t.name, t.id);
    return new NotFoundError('table', t.name, 'table');
  }

  /**
   * A new table, if the project has fewer than VECTOR_MAX_TABLES_PER_PROJECT: the project's
   * row is locked before counting, so concurrent creates at the limit cannot overshoot it.
   */
  async create(tenant: Tenant, dto: CreateTableDto): Promise<TableDto> {
    const max = this.config.VECTOR_MAX_TABLES_PER_PROJECT;
    const head = await this.transactions.run(async (tx) => {
      await this.repo.lockProject(tx, tenant.projectId);
      if ((await this.repo.countTables(tx, tenant.projectId)) >= max) {
        throw new VectorError(
          'table_limit_reached',
          `A project has at most ${max} tables (VECTOR_MAX_TABLES_PER_PROJECT); delete one (DELETE /v1/tables/{table}) before creating another.`,
          { param: 'name' },
        );
      }
      return this.repo.createTable(tx, {
        projectId: tenant.projectId,
        name: dto.name,
        dimension: dto.dimension,
        indexKind: dto.index ?? 'flat',
        metric: dto.metric ?? 'cosine',
      });
    }, WRITE_TX);
    if (!head) throw new VectorError('resource_already_exists', `A table named '${dto.name}' already exists.`, { param: 'name' });
    return this.partition.created(head);
  }

  /** A page of the project's tables by name (`starting_after`: the last name of the previous page). */
  async list(tenant: Tenant, query: ListTablesQueryDto): Promise<TableListDto> {
    const page = await this.partition.list(tenant.projectId, { limit: query.limit ?? 100, after: query.starting_after });
    return { object: 'list', ...page };
  }

  /**
   * The table with its rows and index status; while the load after start has not reached it,
   * as PostgreSQL has it (`loading`, rows counted there): a description never waits for a load.
   */
  async get(tenant: Tenant, name: string): Promise<TableDto> {
    const head = await this.waitingHead(tenant, name);
    if (head) return toLoadingTableDto(head, (await this.repo.rowCounts([head.id])).get(head.id) ?? 0);
    return toTableDto(await this.table(tenant, name));
  }

  /** The table's head from PostgreSQL when it waits for its load after start (decision 189); else undefined. */
  private async waitingHead(tenant: Tenant, name: string): Promise<TableHead | undefined> {
    this.partition.check(name);
    if (!this.live.waiting(tenant.projectId, name)) return undefined;
    const head = await this.repo.findTable(tenant.projectId, name);
    if (!head) throw new NotFoundError('table', name, 'table');
    return head;
  }

  /** The table's query latency per minute over the last hour, as this instance measured it. */
  async stats(tenant: Tenant, name: string): Promise<TableStatsDto> {
    const t = (await this.waitingHead(tenant, name)) ?? (await this.table(tenant, name));
    const ms = (v: number): number => Math.round(v * 1000) / 1000;
    return {
      name: t.name,
      window_minutes: LATENCY_WINDOW_MINUTES,
      scope: 'instance',
      query_latency: this.latency.recent(t.id).map((b) => ({
        start: new Date(b.start).toISOString(),
        queries: b.queries,
        p50_ms: ms(b.p50),
        p95_ms: ms(b.p95),
        max_ms: ms(b.max),
      })),
    };
  }

  async drop(tenant: Tenant, name: string): Promise<TableDeletedDto> {
    const deleted = await this.transactions.run((tx) => this.repo.deleteTable(tx, tenant.projectId, name), WRITE_TX);
    if (deleted === null) throw new NotFoundError('table', name, 'table');
    this.latency.forget(deleted);
    this.live.dropped(tenant.projectId, name);
    return { name, deleted: true };
  }

  /**
   * All or nothing, acknowledged after commit. Taking the change seq first locks the table's
   * row, so concurrent writers of one table serialise and see each other's ids.
   */
  async insert(tenant: Tenant, name: string, dto: InsertVectorsDto): Promise<InsertedDto> {
    const t = await this.table(tenant, name);
    const rows = checkRows(t, dto, this.metadataLimits);
    const change = await this.transactions.run(async (tx) => {
      const change = await this.repo.nextChange(tx, t.id, rows.length);
      if (!change) return null;
      const existing = await this.repo.existingIds(
        tx,
        t.id,
        rows.map((r) => r.id),
      );
      if (existing.length > 0) {
        throw new VectorError('resource_already_exists', `Ids already exist in table '${name}': ${listIds(existing)}.`, {
          param: 'rows',
          details: idsDetail(existing),
        });
      }
      await this.reserveFloats(tx, t, rows.length * t.dimension);
      await this.repo.createRows(tx, t.id, rows, change.labels);
      await this.repo.recordChange(tx, t.id, change.seq, 'insert', change.labels);
      return change;
    }, WRITE_TX);
    if (!change) throw this.gone(t);
    await this.live.applyInsert(t, change.seq, withLabels(rows, change.labels));
    return { inserted: rows.length };
  }

  /**
   * Insert or overwrite, all or nothing, in one change: rows whose id exists keep their label
   * and get the new embedding and metadata (the change log's "insert" of a label that is
   * alive replaces it everywhere, replicas and snapshots alike); new ids get labels.
   */
  async upsert(tenant: Tenant, name: string, dto: InsertVectorsDto, options: UpsertOptions = {}): Promise<UpsertedDto> {
    const t = await this.table(tenant, name);
    if (options.maxRows !== undefined && dto.rows.length > options.maxRows) {
      throw new VectorError(
        'parameter_invalid',
        `At most ${options.maxRows} rows per request; this one has ${dto.rows.length}.`,
        {
          param: 'rows',
        },
      );
    }
    const rows = checkRows(t, dto, this.metadataLimits, { allowNull: options.allowNull ?? false });
    const written = await this.transactions.run(async (tx) => {
      const change = await this.repo.nextChange(tx, t.id, 0);
      if (!change) return null;
      const existing = await this.repo.rowLabels(
        tx,
        t.id,
        rows.map((r) => r.id),
      );
      const labelOf = new Map(existing.map((r) => [r.id, r.label]));
      // Replaced rows keep their floats: only the new ones count.
      await this.reserveFloats(tx, t, (rows.length - labelOf.size) * t.dimension);
      const fresh = await this.repo.takeLabels(tx, t.id, rows.length - labelOf.size);
      let next = 0;
      const labels = rows.map((r) => labelOf.get(r.id) ?? fresh[next++]);
      if (labelOf.size > 0) await this.repo.deleteRows(tx, t.id, [...labelOf.keys()]);
      await this.repo.createRows(tx, t.id, rows, labels);
      await this.repo.recordChange(tx, t.id, change.seq, 'insert', labels);
      return { seq: change.seq, labels, updated: labelOf.size };
    }, WRITE_TX);
    if (!written) throw this.gone(t);
    await this.live.applyInsert(t, written.seq, withLabels(rows, written.labels));
    return { upserted: rows.length, inserted: rows.length - written.updated, updated: written.updated };
  }

  /** Rows by id as committed (PostgreSQL is the source of truth), in the order asked. */
  async fetch(tenant: Tenant, name: string, dto: FetchVectorsDto): Promise<FetchedDto> {
    const t = await this.table(tenant, name);
    const ids = [...new Set(dto.ids)];
    const found = new Map((await this.repo.rowsByIds(t.id, ids)).map((r) => [r.id, r]));
    let bytes = 0;
    const rows = ids.flatMap((id) => {
      const row = found.get(id);
      if (!row) return [];
      bytes +=
        id.length + (t.collection.metadataBytesOf(id) ?? 2) + (dto.include_values ? t.dimension * EMBEDDING_VALUE_BYTES : 0);
      return [{ id, metadata: row.metadata ?? {}, ...(dto.include_values ? { embedding: valuesOf(row) } : {}) }];
    });
    // Large answers (1000 rows of 40 KB metadata, or their embeddings) are sent in slices.
    return withAnswerSize({ rows, not_found: ids.filter((id) => !found.has(id)) }, bytes);
  }

  /** Merges metadata and/or replaces the embedding of one row, keeping its label (one change). */
  async update(tenant: Tenant, name: string, id: string, dto: UpdateVectorDto): Promise<UpdatedVectorDto> {
    const t = await this.table(tenant, name);
    if (dto.metadata == null && dto.embedding == null) {
      throw new VectorError('parameter_missing', 'Missing required parameter: send metadata, embedding or both.', {
        param: 'metadata',
      });
    }
    const embedding = dto.embedding == null ? undefined : checkVector(t, dto.embedding, 'embedding');
    const updated = await this.transactions.run(async (tx) => {
      const change = await this.repo.nextChange(tx, t.id, 0);
      if (!change) return null;
      const [row] = await this.repo.rowsForUpdate(tx, t.id, [id]);
      if (!row) throw new NotFoundError('vector', id, 'id');
      const metadata = dto.metadata == null ? row.metadata : mergeMetadata(row.metadata, dto.metadata, this.metadataLimits);
      const next = { id, embedding: embedding ?? Array.from(row.embedding), metadata };
      await this.repo.deleteRows(tx, t.id, [id]);
      await this.repo.createRows(tx, t.id, [next], [row.label]);
      await this.repo.recordChange(tx, t.id, change.seq, 'insert', [row.label]);
      return { seq: change.seq, label: row.label, row: next };
    }, WRITE_TX);
    if (!updated) throw this.gone(t);
    await this.live.applyInsert(t, updated.seq, [{ ...updated.row, label: updated.label }]);
    return { id, metadata: updated.row.metadata ?? {} };
  }

  /** A page of ids in byte order; the cursor is the page's last id, so pages never repeat or skip one. */
  async listIds(tenant: Tenant, name: string, query: ListIdsQueryDto): Promise<IdsPageDto> {
    const t = await this.table(tenant, name);
    const limit = query.limit ?? 100;
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const ids = await this.repo.idsPage(t.id, after, query.prefix, limit + 1);
    const page = ids.slice(0, limit);
    const last = page[page.length - 1];
    return { ids: page, next_cursor: ids.length > limit && last !== undefined ? encodeCursor(last) : null };
  }

  /** Exact: counted in memory after applying every change committed so far (by any instance). */
  async count(tenant: Tenant, name: string, dto: CountVectorsDto): Promise<CountedDto> {
    const t = await this.table(tenant, name);
    const filter = dto.filter == null ? undefined : toFilter(dto.filter);
    const current = await this.live.catchUpNow(t);
    if (!current) throw this.gone(t);
    return { count: filter === undefined ? current.collection.size : current.collection.matchingLabels(filter).length };
  }

  /** One query: `vector`, `n`, optional `filter`. */
  async query(tenant: Tenant, name: string, dto: QueryDto): Promise<QueryResponseDto> {
    const t = await this.table(tenant, name);
    if (dto.vector == null) {
      throw new VectorError('parameter_missing', 'Missing required parameter: vector (or queries, for a batch).', {
        param: 'vector',
      });
    }
    if (dto.n == null) throw new VectorError('parameter_missing', 'Missing required parameter: n.', { param: 'n' });
    this.live.touch(t); // last_queried_at: the load order of the next start
    const one = { vector: dto.vector, n: dto.n, filter: dto.filter ?? undefined };
    const answer = await this.search(t, [one], dto, '');
    return withAnswerSize({ results: answer.results[0] ?? [], latency_ms: answer.latency_ms }, answer.bytes);
  }

  /** A batch (`queries`): every query is checked before any runs, so it answers in full or not at all. */
  async queryBatch(tenant: Tenant, name: string, dto: QueryDto): Promise<BatchQueryResponseDto> {
    const t = await this.table(tenant, name);
    const mixed = dto.vector != null ? 'vector' : dto.n != null ? 'n' : dto.filter != null ? 'filter' : undefined;
    if (mixed !== undefined) {
      throw new VectorError('parameter_invalid', `Send either queries (a batch) or ${mixed} (one query), not both.`, {
        param: mixed,
      });
    }
    this.live.touch(t);
    const { results, latency_ms, bytes } = await this.search(t, dto.queries ?? [], dto, 'queries');
    return withAnswerSize({ results, latency_ms }, bytes);
  }

  private async search(
    t: LiveTable,
    items: ReadonlyArray<{
      vector: unknown[];
      n: number;
      filter?: Record<string, unknown> | undefined;
      hnswEf?: number | undefined;
    }>,
    options: Pick<QueryDto, 'index' | 'include_values' | 'include_metadata'> & { readonly scores?: ScoreScale },
    path: string,
  ): Promise<BatchQueryResponseDto & { bytes: number }> {
    const at = (i: number, field: string): string => (path === '' ? field : `${path}[${i}].${field}`);
    const wanted = items.reduce((sum, q) => sum + (typeof q.n === 'number' ? q.n : 0), 0);
    if (options.include_values && wanted > MAX_VALUES_PER_REQUEST) {
      throw new VectorError(
        'parameter_invalid',
        `include_values returns at most ${MAX_VALUES_PER_REQUEST} embeddings per request; this one asks for up to ${wanted} (the sum of n): lower n or split the batch.`,
        { param: 'include_values' },
      );
    }
    const parsed = items.map((q, i) => ({
      vector: checkVector(t, q.vector, at(i, 'vector')),
      n: q.n,
      filter: q.filter == null ? undefined : toFilter(q.filter, at(i, 'filter')),
      hnswEf: q.hnswEf,
    }));
    const started = performance.now();
    const results: CollectionHit[][] = [];
    for (const q of parsed) {
      const queryStarted = performance.now();
      // Sliced: a costly query (a large table, a broad filter) lets other requests run between its slices.
      const { hits } = await t.collection.querySliced(q.vector, q.n, q.filter, options.index ?? t.indexKind, {
        scores: options.scores,
        hnswEf: q.hnswEf,
      });
      this.latency.record(t.id, performance.now() - queryStarted);
      results.push(hits);
    }
    const latency = Math.round(performance.now() - started);
    const withMetadata = options.include_metadata ?? true;
    const withValues = options.include_values ?? false;
    // Bounded answers: measured from the hits before the embeddings are read or anything is built.
    const size = estimateAnswer(results, withMetadata, withValues, t.dimension);
    checkAnswerSize(size, this.config.VECTOR_MAX_RESPONSE_BYTES, path === '' ? undefined : results.length);
    const shaped = await this.shapeResults(t, results, withMetadata, withValues);
    return { results: shaped, latency_ms: latency, bytes: size.total };
  }

  /** Hits as the API shows them: metadata unless excluded, embeddings (as stored) when asked. */
  private async shapeResults(
    t: LiveTable,
    results: readonly CollectionHit[][],
    withMetadata: boolean,
    withValues: boolean,
  ): Promise<QueryResultItemDto[][]> {
    let values = new Map<string, number[]>();
    if (withValues) {
      const ids = [...new Set(results.flatMap((hits) => hits.map((h) => h.id)))];
      values = new Map((await this.repo.rowsByIds(t.id, ids)).map((r) => [r.id, valuesOf(r)]));
    }
    // A row deleted between the search and the read of its embedding is left out.
    return results.map((hits) =>
      hits.flatMap((h) => {
        const embedding = values.get(h.id);
        if (withValues && embedding === undefined) return [];
        return [
          {
            id: h.id,
            score: h.score,
            ...(withMetadata ? { metadata: h.metadata } : {}),
            ...(embedding !== undefined ? { embedding } : {}),
          },
        ];
      }),
    );
  }

  /** Names of every table of the project, by name: from memory once loaded, without counting rows. */
  async names(tenant: Tenant): Promise<string[]> {
    const page = await this.partition.list(tenant.projectId, { limit: this.config.VECTOR_MAX_TABLES_PER_PROJECT + 1000 });
    return page.data.map((t) => t.name);
  }

  /**
   * Nearest-neighbour queries with the measure's own scores (`raw`: cosine unclamped,
   * euclidean the distance) for the Qdrant-compatible API; `exact` scans exactly (flat).
   * Checked in full before any runs, sized like /v1's answers.
   */
  async nearest(
    tenant: Tenant,
    name: string,
    items: readonly NearestQuery[],
    options: { readonly exact?: boolean; readonly withValues?: boolean; readonly path?: string },
  ): Promise<{ metric: Metric; results: QueryResultItemDto[][] }> {
    const t = await this.table(tenant, name);
    this.live.touch(t);
    const { results } = await this.search(
      t,
      items.map((q) => ({ vector: q.vector, n: q.n, filter: q.filter, hnswEf: q.hnswEf })),
      {
        index: options.exact ? 'flat' : undefined,
        include_values: options.withValues ?? false,
        include_metadata: true,
        scores: 'raw',
      },
      options.path ?? '',
    );
    return { metric: t.metric, results };
  }

  /** Rows by id as committed, in the order asked (missing ids left out); embeddings when asked. */
  async readRows(tenant: Tenant, name: string, ids: readonly string[], withValues: boolean): Promise<RowRead[]> {
    const t = await this.table(tenant, name);
    const found = new Map((await this.repo.rowsByIds(t.id, [...new Set(ids)])).map((r) => [r.id, r]));
    return [...new Set(ids)].flatMap((id) => {
      const row = found.get(id);
      if (!row) return [];
      return [{ id, metadata: row.metadata ?? {}, ...(withValues ? { embedding: valuesOf(row) } : {}) }];
    });
  }

  /**
   * A page of ids in byte order from `from` (inclusive), of every row or of the rows matching
   * a /v1 filter (exact, after every committed change), and the first id of the next page.
   */
  async idsFrom(
    tenant: Tenant,
    name: string,
    filter: Record<string, unknown> | undefined,
    from: string | undefined,
    limit: number,
  ): Promise<{ ids: string[]; next: string | null }> {
    const t = await this.table(tenant, name);
    if (filter === undefined) {
      // Every row: PostgreSQL's primary key walks the page (COLLATE "C", byte order) in O(limit).
      const ids = await this.repo.idsFrom(t.id, from, limit + 1);
      return { ids: ids.slice(0, limit), next: ids[limit] ?? null };
    }
    const parsed = toFilter(filter);
    const current = await this.live.catchUpNow(t);
    if (!current) throw this.gone(t);
    const labels = current.collection.matchingLabels(parsed);
    // The limit + 1 smallest ids ≥ from, kept sorted (binary insertion): O(rows × log limit).
    const keep = limit + 1;
    const best: string[] = [];
    for (const label of labels) {
      const id = current.collection.idOf(label);
      if (id === undefined || (from !== undefined && byIdBytes(id, from) < 0)) continue;
      if (best.length === keep && byIdBytes(id, best[keep - 1]) >= 0) continue;
      let lo = 0;
      let hi = best.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (byIdBytes(best[mid], id) < 0) lo = mid + 1;
        else hi = mid;
      }
      best.splice(lo, 0, id);
      if (best.length > keep) best.pop();
    }
    return { ids: best.slice(0, limit), next: best.length > limit ? best[limit] : null };
  }

  /**
   * Rewrites the metadata of rows (by ids, all of which must exist, or by a /v1 filter),
   * keeping their labels and embeddings: one change, all or nothing. `rewrite` gets a row's
   * metadata and returns the new one (and throws the 400 of a change it refuses).
   */
  async rewriteMetadata(
    tenant: Tenant,
    name: string,
    target: RowTarget,
    rewrite: (current: Metadata) => Metadata,
  ): Promise<{ updated: number }> {
    const t = await this.table(tenant, name);
    const filter = 'filter' in target ? toFilter(target.filter) : undefined;
    const ids = 'ids' in target ? [...new Set(target.ids)] : [];
    try {
      return await this.rewriteOnce(t, ids, filter, rewrite);
    } catch (err) {
      if (!(err instanceof ChangeLogGap)) throw err;
      if (!(await this.live.catchUpNow(t))) throw this.gone(t);
      return this.rewriteOnce(t, ids, filter, rewrite);
    }
  }

  private async rewriteOnce(
    t: LiveTable,
    ids: readonly string[],
    filter: Filter | undefined,
    rewrite: (current: Metadata) => Metadata,
  ): Promise<{ updated: number }> {
    let target = t;
    const written = await unlessNothingToCommit(
      this.transactions.run(async (tx) => {
        const change = await this.repo.nextChange(tx, t.id, 0);
        if (!change) return null;
        let wanted = ids;
        if (filter !== undefined) {
          const current = await this.live.catchUpLocked(t, tx, change.seq);
          if (!current) throw new NotFoundError('table', t.name, 'table');
          target = current;
          wanted = current.collection.matchingLabels(filter).flatMap((l) => current.collection.idOf(l) ?? []);
        }
        const rows = await this.repo.rowsForUpdate(tx, t.id, wanted);
        if (filter === undefined && rows.length < wanted.length) {
          const found = new Set(rows.map((r) => r.id));
          throw new NotFoundError('vector', wanted.find((id) => !found.has(id)) as string, 'points');
        }
        if (rows.length === 0) throw new NothingToCommit();
        const next = rows.map((r) => ({ id: r.id, embedding: r.embedding, metadata: rewrite(r.metadata ?? {}) }));
        const labels = rows.map((r) => r.label);
        await this.repo.deleteRows(
          tx,
          t.id,
          rows.map((r) => r.id),
        );
        await this.repo.createRows(tx, t.id, next, labels);
        await this.repo.recordChange(tx, t.id, change.seq, 'insert', labels);
        return { seq: change.seq, rows: next, labels };
      }, WRITE_TX),
    );
    if (written === null) throw this.gone(t);
    if (written === undefined) return { updated: 0 };
    await this.live.applyInsert(target, written.seq, withLabels(written.rows, written.labels));
    return { updated: written.rows.length };
  }

  /** By ids (unknown ones reported, not an error) or by filter (every matching row); one change either way. */
  async deleteVectors(tenant: Tenant, name: string, dto: DeleteVectorsDto): Promise<DeletedDto> {
    const t = await this.table(tenant, name);
    if ((dto.ids == null) === (dto.filter == null)) {
      const both = dto.ids != null;
      throw new VectorError(
        both ? 'parameter_invalid' : 'parameter_missing',
        both ? 'Send either ids or filter, not both.' : 'Missing required parameter: ids (or filter).',
        { param: both ? 'filter' : 'ids' },
      );
    }
    const filter = dto.filter == null ? undefined : toFilter(dto.filter);
    if (filter !== undefined && matchesEveryRow(filter)) {
      throw new VectorError(
        'filter_matches_all',
        'This filter matches every possible row by its form (an empty filter, an $and of such, an $or with such an alternative, $nin: [], or a condition or its complement): to remove every row, delete the table (DELETE /v1/tables/{table}) and create it again, or delete by ids.',
        { param: 'filter' },
      );
    }
    const ids = dto.ids == null ? [] : [...new Set(dto.ids)];
    try {
      return await this.deleteOnce(t, ids, filter);
    } catch (err) {
      if (!(err instanceof ChangeLogGap)) throw err;
      // This instance fell behind a pruned log: reload the table (outside the lock), then again.
      if (!(await this.live.catchUpNow(t))) throw this.gone(t);
      return this.deleteOnce(t, ids, filter);
    }
  }

  private async deleteOnce(t: LiveTable, ids: readonly string[], filter: Filter | undefined): Promise<DeletedDto> {
    let target = t;
    const deleted = await unlessNothingToCommit(
      this.transactions.run(async (tx) => {
        const change = await this.repo.nextChange(tx, t.id, 0);
        if (!change) return null;
        let rows: Array<{ id: string; label: number }>;
        if (filter !== undefined) {
          // The table's row is locked: every other write committed before us, none can commit
          // until we do. Applying them all first makes the filter see exactly what we delete.
          const current = await this.live.catchUpLocked(t, tx, change.seq);
          if (!current) throw new NotFoundError('table', t.name, 'table');
          target = current;
          rows = await this.repo.deleteRowsByLabels(tx, t.id, current.collection.matchingLabels(filter));
        } else {
          rows = await this.repo.rowLabels(tx, t.id, ids);
          await this.repo.deleteRows(
            tx,
            t.id,
            rows.map((r) => r.id),
          );
        }
        // The seq taken must not stay without its change: other instances would see a gap.
        if (rows.length === 0) throw new NothingToCommit();
        const labels = rows.map((r) => r.label);
        await this.repo.freeLabels(tx, t.id, labels);
        await this.repo.releaseFloats(tx, t.projectId, rows.length * t.dimension);
        await this.repo.recordChange(tx, t.id, change.seq, 'delete', labels);
        return { seq: change.seq, ids: rows.map((r) => r.id), labels };
      }, WRITE_TX),
    );
    if (deleted === null) throw this.gone(t);
    if (deleted === undefined) return { deleted: 0, not_found: [...ids] };
    await this.live.applyDelete(target, deleted.seq, deleted.labels);
    const found = new Set(deleted.ids);
    return { deleted: found.size, not_found: ids.filter((id) => !found.has(id)) };
  }
}
