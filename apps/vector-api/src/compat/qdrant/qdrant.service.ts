import { isDomainError } from '@app/platform';
import { Injectable } from '@nestjs/common';
import { VectorConfig } from '../../config';
import type { Metadata, MetadataValue } from '../../engine/filter';
import { DEFAULT_HNSW_OPTIONS } from '../../engine/hnsw-index';
import type { Metric } from '../../engine/types';
import { MAX_DIMENSION, TABLE_NAME, type TableDto } from '../../tables/dto/table.dto';
import type { QueryResultItemDto, VectorRowDto } from '../../tables/dto/vectors.dto';
import type { MetadataLimits } from '../../tables/metadata-size';
import { deletePayloadKeys, replacePayload, setPayloadKeys } from '../../tables/row-rules';
import { type RowRead, type RowTarget, TablesService, type Tenant } from '../../tables/tables.service';
import { badRequest, collectionNotFound, qdrantError, unsupported } from './qdrant-error';
import { translateFilter } from './qdrant-filter';
import { type PointId, toPointId, toStoredId, toStoredIds } from './qdrant-ids';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Qdrant's distance names and ours. */
const DISTANCES: Readonly<Record<string, Metric>> = { Cosine: 'cosine', Dot: 'dot', Euclid: 'euclidean' };
const DISTANCE_OF: Readonly<Record<Metric, string>> = { cosine: 'Cosine', dot: 'Dot', euclidean: 'Euclid' };

/** Most results of one query (limit + offset), as /v1's n. */
export const MAX_QUERY_LIMIT = 1000;
/** Queries of one batch request, as /v1's `queries`. */
export const MAX_BATCH_QUERIES = 100;
/** Highest `params.hnsw_ef` (the work of one hnsw search grows with it). */
export const MAX_HNSW_EF = 4096;
/** Ids of one retrieve, delete or payload request by ids, as /v1's fetch and delete. */
export const MAX_IDS_PER_REQUEST = 1000;

/** What a nearest query takes besides its vector (`vector` for search, `query` for the query API). */
const NEAREST_FIELDS = ['filter', 'limit', 'offset', 'with_payload', 'with_vector', 'params', 'score_threshold'] as const;
const SEARCH_FIELDS = ['vector', ...NEAREST_FIELDS] as const;
const QUERY_FIELDS = ['query', ...NEAREST_FIELDS, 'using', 'lookup_from'] as const;

/**
 * The top-level body fields each route of QdrantController (by method name) reads; any other
 * is refused with a 400, naming the feature when Qdrant has it. The OpenAPI document lists
 * exactly these as the body's properties (test/platform/openapi-document.e2e-spec.ts).
 */
export const QDRANT_BODY_FIELDS = {
  create: [
    'vectors',
    'hnsw_config',
    'optimizers_config',
    'wal_config',
    'shard_number',
    'replication_factor',
    'write_consistency_factor',
    'on_disk_payload',
    'strict_mode_config',
    'metadata',
  ],
  upsert: ['points', 'batch'],
  retrieve: ['ids', 'with_payload', 'with_vector'],
  query: QUERY_FIELDS,
  queryBatch: ['searches'],
  search: SEARCH_FIELDS,
  searchBatch: ['searches'],
  delete: ['points', 'filter'],
  scroll: ['filter', 'limit', 'offset', 'with_payload', 'with_vector'],
  count: ['filter', 'exact'],
  setPayload: ['payload', 'points', 'filter', 'key'],
  overwritePayload: ['payload', 'points', 'filter', 'key'],
  deletePayload: ['keys', 'points', 'filter'],
  clearPayload: ['points', 'filter'],
  createIndex: ['field_name', 'field_schema'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** `{operation_id, status}` of a write (`acknowledged` with wait=false, `completed` otherwise). */
export interface UpdateResult {
  readonly operation_id: number;
  readonly status: 'completed' | 'acknowledged';
}

export interface ScoredPoint {
  readonly id: PointId;
  readonly version: number;
  readonly score: number;
  readonly payload?: Metadata;
  readonly vector?: number[];
}

export interface PointRecord {
  readonly id: PointId;
  readonly payload?: Metadata;
  readonly vector?: number[];
}

/** `with_payload`: true/false, a list of keys, `{include}` or `{exclude}` (top-level keys). */
type PayloadSelector = (payload: Metadata) => Metadata | undefined;

function payloadSelector(value: unknown, byDefault: boolean, param: string): PayloadSelector {
  const v = value ?? byDefault;
  if (v === true) return (p) => p;
  if (v === false) return () => undefined;
  const pick = (keys: unknown, keep: boolean): PayloadSelector => {
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) throw badRequest(`${param} keys must be strings`);
    const set = new Set<string>(keys);
    return (p) => {
      const out: Record<string, MetadataValue> = {};
      for (const [k, x] of Object.entries(p)) if (set.has(k) === keep) out[k] = x;
      return out;
    };
  };
  if (Array.isArray(v)) return pick(v, true);
  if (isObject(v) && 'include' in v) return pick(v.include, true);
  if (isObject(v) && 'exclude' in v) return pick(v.exclude, false);
  throw badRequest(`${param} must be a boolean, a list of keys, {include: [...]} or {exclude: [...]}`);
}

function withVector(value: unknown, param: string): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (value === true) return true;
  throw unsupported(`${param} as a list of vector names (named vectors)`);
}

/**
 * A request body: a JSON object, or none at all (taken as `{}`). `null`, a list, a string or
 * a number is Qdrant's 400, never read as `{}` (test/fuzz sent `null` to scroll and count).
 */
function bodyOf(raw: unknown): Json {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw badRequest('the body must be a JSON object');
  return raw;
}

function intParam(value: unknown, param: string, byDefault: number, min: number, max: number): number {
  if (value === undefined || value === null) return byDefault;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw badRequest(`${param} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function refuseUnknown(body: Json, known: readonly string[], refused: Readonly<Record<string, string>>, path: string): void {
  for (const key of Object.keys(body)) {
    if (body[key] === undefined || body[key] === null) continue;
    const feature = refused[key];
    if (feature !== undefined) throw unsupported(feature);
    if (!known.includes(key)) throw badRequest(`${path}: unknown field \`${key}\``);
  }
}

/** The write's answer: our writes are visible to queries when acknowledged, so wait changes only the word. */
let operations = 0;
function updated(wait: boolean): UpdateResult {
  operations += 1;
  return { operation_id: operations, status: wait ? 'completed' : 'acknowledged' };
}

/**
 * The Qdrant-compatible API over the tables (docs/qdrant.md): a collection is a table of
 * the caller's project, a point a row (id, embedding, metadata as payload). A thin adapter:
 * every read and write is TablesService's, with its rules, limits and isolation.
 */
@Injectable()
export class QdrantService {
  private readonly limits: MetadataLimits;

  constructor(
    private readonly tables: TablesService,
    config: VectorConfig,
  ) {
    this.limits = { maxBytes: config.VECTOR_METADATA_MAX_BYTES, maxKeys: config.VECTOR_METADATA_MAX_KEYS };
  }

  /** Runs a call on collection `c`, turning the table's 404 into Qdrant's. */
  private async on<T>(c: string, call: () => Promise<T>): Promise<T> {
    if (!TABLE_NAME.test(c)) throw collectionNotFound(c);
    try {
      return await call();
    } catch (err) {
      if (isDomainError(err) && err.code === 'resource_missing' && err.param === 'table') throw collectionNotFound(c);
      throw err;
    }
  }

  // ---- collections ----

  async list(tenant: Tenant): Promise<{ collections: Array<{ name: string }> }> {
    return { collections: (await this.tables.names(tenant)).map((name) => ({ name })) };
  }

  async exists(tenant: Tenant, c: string): Promise<{ exists: boolean }> {
    try {
      await this.on(c, () => this.tables.get(tenant, c));
      return { exists: true };
    } catch (err) {
      if (err instanceof Error && 'status' in err && (err as { status: unknown }).status === 404) return { exists: false };
      throw err;
    }
  }

  async create(tenant: Tenant, c: string, raw: unknown): Promise<true> {
    const body = bodyOf(raw);
    refuseUnknown(
      body,
      QDRANT_BODY_FIELDS.create,
      {
        sparse_vectors: 'sparse_vectors (sparse vectors)',
        sharding_method: 'sharding_method (custom sharding)',
        init_from: 'init_from (copying a collection)',
        quantization_config: 'quantization_config (quantization)',
      },
      'body',
    );
    if (typeof body.shard_number === 'number' && body.shard_number > 1) throw unsupported('shard_number > 1 (sharding)');
    if (typeof body.replication_factor === 'number' && body.replication_factor > 1)
      throw unsupported('replication_factor > 1 (replication)');
    const vectors = body.vectors;
    if (!isObject(vectors)) throw badRequest('vectors must be {size, distance}');
    if (!('size' in vectors) && !('distance' in vectors)) throw unsupported('Named vectors (`vectors` as a map of names)');
    refuseUnknown(
      vectors,
      ['size', 'distance', 'on_disk', 'hnsw_config', 'datatype'],
      {
        quantization_config: 'quantization_config (quantization)',
        multivector_config: 'multivector_config (multivectors)',
      },
      'vectors',
    );
    if (vectors.datatype !== undefined && vectors.datatype !== null && vectors.datatype !== 'float32') {
      throw unsupported(
        `vectors.datatype ${typeof vectors.datatype === 'string' ? JSON.stringify(vectors.datatype.slice(0, 40)) : 'other than a string'} (vectors are float32)`,
      );
    }
    const size = vectors.size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > MAX_DIMENSION) {
      throw badRequest(`vectors.size must be an integer from 1 to ${MAX_DIMENSION}`);
    }
    if (vectors.distance === 'Manhattan') throw unsupported('The Manhattan distance (use Cosine, Dot or Euclid)');
    const metric = typeof vectors.distance === 'string' ? DISTANCES[vectors.distance] : undefined;
    if (metric === undefined) throw badRequest('vectors.distance must be Cosine, Dot or Euclid');
    if (!TABLE_NAME.test(c)) {
      throw badRequest(
        'collection names are 1-64 characters of letters, digits, `-`, `_` and `.`, not only dots (vector-api table names)',
      );
    }
    try {
      await this.tables.create(tenant, { name: c, dimension: size, index: 'hnsw', metric });
    } catch (err) {
      if (isDomainError(err) && err.code === 'resource_already_exists') {
        throw qdrantError(409, `Wrong input: Collection \`${c}\` already exists!`);
      }
      throw err;
    }
    return true;
  }

  async drop(tenant: Tenant, c: string): Promise<boolean> {
    if (!TABLE_NAME.test(c)) return false;
    try {
      await this.tables.drop(tenant, c);
      return true;
    } catch (err) {
      if (isDomainError(err) && err.code === 'resource_missing') return false;
      throw err;
    }
  }

  async info(tenant: Tenant, c: string): Promise<Json> {
    const t = await this.on(c, () => this.tables.get(tenant, c));
    return collectionInfo(t);
  }

  // ---- points ----

  async upsert(tenant: Tenant, c: string, raw: unknown, wait: boolean): Promise<UpdateResult> {
    const rows = this.pointsOf(raw);
    await this.on(c, () => this.tables.upsert(tenant, c, { rows }, { allowNull: true, maxRows: Number.MAX_SAFE_INTEGER }));
    return updated(wait);
  }

  /** `{points: [{id, vector, payload}]}` or `{batch: {ids, vectors, payloads}}` as rows. */
  private pointsOf(raw: unknown): VectorRowDto[] {
    if (!isObject(raw)) throw badRequest('the body must be {points: [...]} or {batch: {...}}');
    refuseUnknown(
      raw,
      QDRANT_BODY_FIELDS.upsert,
      { shard_key: 'shard_key (custom sharding)', update_filter: 'update_filter' },
      'body',
    );
    const rowOf = (id: unknown, vector: unknown, payload: unknown, path: string): VectorRowDto => {
      if (isObject(vector)) throw unsupported(`Named or sparse vectors (${path}.vector as an object)`);
      if (!Array.isArray(vector)) throw badRequest(`${path}.vector must be a list of numbers`);
      if (vector.length > 0 && Array.isArray(vector[0])) throw unsupported(`Multivectors (${path}.vector)`);
      const metadata =
        payload === undefined || payload === null ? undefined : replacePayload(payload, this.limits, `${path}.payload`);
      return {
        id: toStoredId(id, `${path}.id`),
        embedding: vector,
        ...(metadata === undefined ? {} : { metadata }),
      };
    };
    if (raw.points !== undefined && raw.batch !== undefined) throw badRequest('send points or batch, not both');
    if (Array.isArray(raw.points)) {
      if (raw.points.length === 0) throw badRequest('points must not be empty');
      return raw.points.map((p: unknown, i) => {
        const path = `points[${i}]`;
        if (!isObject(p)) throw badRequest(`${path} must be {id, vector, payload}`);
        refuseUnknown(p, ['id', 'vector', 'payload'], {}, path);
        return rowOf(p.id, p.vector, p.payload, path);
      });
    }
    if (isObject(raw.batch)) {
      const { ids, vectors, payloads } = raw.batch;
      refuseUnknown(raw.batch, ['ids', 'vectors', 'payloads'], {}, 'batch');
      if (!Array.isArray(ids) || ids.length === 0) throw badRequest('batch.ids must be a non-empty list of point ids');
      if (isObject(vectors)) throw unsupported('Named vectors (batch.vectors as a map of names)');
      if (!Array.isArray(vectors) || vectors.length !== ids.length) throw badRequest('batch.vectors must hold one vector per id');
      if (payloads !== undefined && payloads !== null && (!Array.isArray(payloads) || payloads.length !== ids.length)) {
        throw badRequest('batch.payloads must hold one payload (or null) per id');
      }
      const list: unknown[] | undefined = Array.isArray(payloads) ? payloads : undefined;
      return ids.map((id: unknown, i) => rowOf(id, vectors[i], list?.[i], `batch[${i}]`));
    }
    throw badRequest('the body must be {points: [...]} or {batch: {ids, vectors, payloads}}');
  }

  async retrieve(tenant: Tenant, c: string, raw: unknown): Promise<PointRecord[]> {
    const body = bodyOf(raw);
    refuseUnknown(body, QDRANT_BODY_FIELDS.retrieve, { shard_key: 'shard_key (custom sharding)' }, 'body');
    const ids = toStoredIds(body.ids, 'ids');
    if (ids.length > MAX_IDS_PER_REQUEST) throw badRequest(`ids: at most ${MAX_IDS_PER_REQUEST} per request`);
    const select = payloadSelector(body.with_payload, true, 'with_payload');
    const values = withVector(body.with_vector, 'with_vector');
    const rows = await this.on(c, () => this.tables.readRows(tenant, c, ids, values));
    return rows.map((r) => recordOf(r, select));
  }

  async point(tenant: Tenant, c: string, rawId: string): Promise<PointRecord> {
    const id = /^[0-9]+$/.test(rawId) ? toStoredId(Number(rawId), 'id') : toStoredId(rawId, 'id');
    const [row] = await this.on(c, () => this.tables.readRows(tenant, c, [id], true));
    if (!row) throw qdrantError(404, `Not found: No point with id ${rawId} found`);
    return recordOf(row, (p) => p);
  }

  /** The nearest points of one query (query API or legacy search), as Qdrant scores them. */
  private async nearest(tenant: Tenant, c: string, queries: Json[], path: string): Promise<ScoredPoint[][]> {
    const parsed = queries.map((q, i) => {
      const at = path === '' ? '' : `${path}[${i}].`;
      const limit = intParam(q.limit, `${at}limit`, 10, 0, MAX_QUERY_LIMIT);
      const offset = intParam(q.offset, `${at}offset`, 0, 0, MAX_QUERY_LIMIT);
      if (limit + offset > MAX_QUERY_LIMIT) throw badRequest(`${at}limit + offset must be at most ${MAX_QUERY_LIMIT}`);
      const params = q.params;
      let exact = false;
      let hnswEf: number | undefined;
      if (params !== undefined && params !== null) {
        if (!isObject(params)) throw badRequest(`${at}params must be an object`);
        refuseUnknown(
          params,
          ['hnsw_ef', 'exact', 'indexed_only'],
          { quantization: 'params.quantization (quantization)', acorn: 'params.acorn' },
          `${at}params`,
        );
        exact = params.exact === true;
        if (params.hnsw_ef !== undefined && params.hnsw_ef !== null) {
          hnswEf = intParam(params.hnsw_ef, `${at}params.hnsw_ef`, 0, 1, MAX_HNSW_EF);
        }
      }
      const threshold = q.score_threshold;
      if (threshold !== undefined && threshold !== null && typeof threshold !== 'number') {
        throw badRequest(`${at}score_threshold must be a number`);
      }
      return {
        vector: q.vector as unknown[],
        limit,
        offset,
        exact,
        hnswEf,
        threshold: typeof threshold === 'number' ? threshold : undefined,
        filter: translateFilter(q.filter, `${at}filter`),
        select: payloadSelector(q.with_payload, false, `${at}with_payload`),
        values: withVector(q.with_vector, `${at}with_vector`),
      };
    });
    if (parsed.length === 0) return [];
    const exact = parsed.every((q) => q.exact);
    const values = parsed.some((q) => q.values);
    // One resolve of the table: the answer carries its metric (a description would compute the index status).
    const results = await this.on(c, () =>
      this.tables.nearest(
        tenant,
        c,
        parsed.map((q) => ({
          vector: q.vector,
          n: q.limit + q.offset,
          filter: Object.keys(q.filter).length === 0 ? undefined : q.filter,
          hnswEf: q.hnswEf,
        })),
        { exact, withValues: values },
      ),
    );
    return results.results.map((hits, i) => {
      const q = parsed[i];
      return hits
        .slice(q.offset)
        .filter((h) => q.threshold === undefined || passes(h.score, q.threshold, results.metric))
        .map((h) => scoredOf(h, q.select, q.values));
    });
  }

  /** POST …/points/search (legacy). */
  async search(tenant: Tenant, c: string, raw: unknown): Promise<ScoredPoint[]> {
    const [one] = await this.nearest(tenant, c, [this.searchRequest(raw, '')], '');
    return one ?? [];
  }

  async searchBatch(tenant: Tenant, c: string, raw: unknown): Promise<ScoredPoint[][]> {
    const searches = this.batchOf(raw);
    return this.nearest(
      tenant,
      c,
      searches.map((s, i) => this.searchRequest(s, `searches[${i}]`)),
      'searches',
    );
  }

  private searchRequest(raw: unknown, path: string): Json {
    if (!isObject(raw)) throw badRequest(`${path || 'body'} must be a search request`);
    refuseUnknown(raw, SEARCH_FIELDS, { shard_key: 'shard_key (custom sharding)' }, path || 'body');
    if (isObject(raw.vector)) throw unsupported('Named or sparse vectors (`vector` as an object)');
    if (!Array.isArray(raw.vector)) throw badRequest(`${path ? `${path}.` : ''}vector must be a list of numbers`);
    return raw;
  }

  private batchOf(raw: unknown): unknown[] {
    if (!isObject(raw) || !Array.isArray(raw.searches)) throw badRequest('the body must be {searches: [...]}');
    refuseUnknown(raw, QDRANT_BODY_FIELDS.searchBatch, {}, 'body');
    if (raw.searches.length > MAX_BATCH_QUERIES) throw badRequest(`searches: at most ${MAX_BATCH_QUERIES} per request`);
    return raw.searches;
  }

  /** POST …/points/query: a nearest query, or a listing like scroll when `query` is absent. */
  async query(tenant: Tenant, c: string, raw: unknown): Promise<{ points: Array<ScoredPoint | PointRecord> }> {
    const [one] = await this.queries(tenant, c, [raw], '');
    return one ?? { points: [] };
  }

  async queryBatch(tenant: Tenant, c: string, raw: unknown): Promise<Array<{ points: Array<ScoredPoint | PointRecord> }>> {
    return this.queries(tenant, c, this.batchOf(raw), 'searches');
  }

  private async queries(
    tenant: Tenant,
    c: string,
    raws: unknown[],
    path: string,
  ): Promise<Array<{ points: Array<ScoredPoint | PointRecord> }>> {
    const requests = raws.map((raw, i) => this.queryRequest(raw, path === '' ? '' : `${path}[${i}]`));
    const out: Array<{ points: Array<ScoredPoint | PointRecord> }> = [];
    // Listings (no `query`) page like scroll; the nearest queries run as one batch.
    const nearest = requests.filter((r) => r.vector !== undefined);
    const hits = await this.nearest(
      tenant,
      c,
      nearest.map((r) => ({ ...r.body, vector: r.vector })),
      path,
    );
    let next = 0;
    for (const r of requests) {
      if (r.vector !== undefined) out.push({ points: hits[next++] ?? [] });
      else {
        const { points } = await this.scroll(tenant, c, { ...r.body, with_payload: r.body.with_payload ?? false });
        out.push({ points });
      }
    }
    return out;
  }

  private queryRequest(raw: unknown, path: string): { body: Json; vector: unknown[] | undefined } {
    const where = path || 'body';
    if (!isObject(raw)) throw badRequest(`${where} must be a query request`);
    refuseUnknown(
      raw,
      QUERY_FIELDS,
      {
        prefetch: 'prefetch (multi-stage queries)',
        shard_key: 'shard_key (custom sharding)',
        group_by: 'group_by (grouped queries)',
      },
      where,
    );
    if (raw.using !== undefined && raw.using !== null) throw unsupported('`using` (named vectors)');
    if (raw.lookup_from !== undefined && raw.lookup_from !== null) throw unsupported('`lookup_from`');
    const { query, ...rest } = raw;
    if (query === undefined || query === null) {
      if (rest.offset !== undefined && rest.offset !== null && typeof rest.offset !== 'number') {
        throw badRequest(`${where}.offset must be an integer`);
      }
      return { body: { ...rest, offset: undefined }, vector: undefined };
    }
    if (Array.isArray(query)) {
      if (query.length > 0 && Array.isArray(query[0])) throw unsupported('Multivector queries');
      return { body: rest, vector: query };
    }
    if (typeof query === 'number' || typeof query === 'string') {
      throw unsupported('A query by point id (search by the vector of a stored point)');
    }
    if (isObject(query)) {
      if ('nearest' in query) {
        // LangChain's maxMarginalRelevanceSearch sends {nearest, mmr}: refused, never ignored.
        if (query.mmr !== undefined) throw unsupported('MMR (`query.nearest.mmr`, maximal marginal relevance)');
        const extra = Object.keys(query).find((k) => k !== 'nearest');
        if (extra !== undefined) throw badRequest(`${where}.query: unknown field \`${extra}\``);
        if (Array.isArray(query.nearest)) return { body: rest, vector: query.nearest };
        throw unsupported('`nearest` with a point id, a named, sparse or multi vector');
      }
      for (const [key, feature] of Object.entries(QUERY_FEATURES)) if (key in query) throw unsupported(feature);
      if ('indices' in query) throw unsupported('Sparse vectors');
    }
    throw badRequest(`${where}.query must be a vector or {nearest: vector}`);
  }

  async scroll(tenant: Tenant, c: string, raw: unknown): Promise<{ points: PointRecord[]; next_page_offset: PointId | null }> {
    const body = bodyOf(raw);
    refuseUnknown(
      body,
      QDRANT_BODY_FIELDS.scroll,
      {
        order_by: 'order_by (ordering a scroll by a payload field)',
        shard_key: 'shard_key (custom sharding)',
      },
      'body',
    );
    const limit = intParam(body.limit, 'limit', 10, 1, MAX_QUERY_LIMIT);
    const from = body.offset === undefined || body.offset === null ? undefined : offsetId(body.offset);
    const filter = translateFilter(body.filter, 'filter');
    const select = payloadSelector(body.with_payload, true, 'with_payload');
    const values = withVector(body.with_vector, 'with_vector');
    return this.on(c, async () => {
      const page = await this.tables.idsFrom(tenant, c, Object.keys(filter).length === 0 ? undefined : filter, from, limit);
      const rows = await this.tables.readRows(tenant, c, page.ids, values);
      return { points: rows.map((r) => recordOf(r, select)), next_page_offset: page.next === null ? null : toPointId(page.next) };
    });
  }

  async count(tenant: Tenant, c: string, raw: unknown): Promise<{ count: number }> {
    const body = bodyOf(raw);
    refuseUnknown(body, QDRANT_BODY_FIELDS.count, { shard_key: 'shard_key (custom sharding)' }, 'body');
    const filter = translateFilter(body.filter, 'filter');
    return this.on(c, () => this.tables.count(tenant, c, Object.keys(filter).length === 0 ? {} : { filter }));
  }

  /** `{points: [...]}` or `{filter}`: the rows a delete or payload edit reaches. */
  private selectorOf(body: Json): RowTarget {
    const hasPoints = body.points !== undefined && body.points !== null;
    const hasFilter = body.filter !== undefined && body.filter !== null;
    if (hasPoints === hasFilter) throw badRequest('send either points (a list of ids) or filter');
    if (hasPoints) {
      const ids = toStoredIds(body.points, 'points');
      if (ids.length > MAX_IDS_PER_REQUEST) throw badRequest(`points: at most ${MAX_IDS_PER_REQUEST} per request`);
      return { ids };
    }
    return { filter: translateFilter(body.filter, 'filter') };
  }

  async delete(tenant: Tenant, c: string, raw: unknown, wait: boolean): Promise<UpdateResult> {
    const body = bodyOf(raw);
    refuseUnknown(body, QDRANT_BODY_FIELDS.delete, { shard_key: 'shard_key (custom sharding)' }, 'body');
    const target = this.selectorOf(body);
    await this.on(c, () =>
      this.tables.deleteVectors(tenant, c, 'ids' in target ? { ids: [...target.ids] } : { filter: target.filter }),
    );
    return updated(wait);
  }

  async setPayload(tenant: Tenant, c: string, raw: unknown, wait: boolean, overwrite: boolean): Promise<UpdateResult> {
    const body = bodyOf(raw);
    refuseUnknown(body, QDRANT_BODY_FIELDS.setPayload, { shard_key: 'shard_key (custom sharding)' }, 'body');
    if (body.key !== undefined && body.key !== null) throw unsupported('`key` (setting the payload under a nested key)');
    if (!isObject(body.payload)) throw badRequest('payload must be an object');
    const patch = body.payload;
    const target = this.selectorOf(body);
    await this.on(c, () =>
      this.tables.rewriteMetadata(tenant, c, target, (current) =>
        overwrite ? replacePayload(patch, this.limits) : setPayloadKeys(current, patch, this.limits),
      ),
    );
    return updated(wait);
  }

  async deletePayload(tenant: Tenant, c: string, raw: unknown, wait: boolean): Promise<UpdateResult> {
    const body = bodyOf(raw);
    refuseUnknown(body, QDRANT_BODY_FIELDS.deletePayload, { shard_key: 'shard_key (custom sharding)' }, 'body');
    const keys = body.keys;
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) throw badRequest('keys must be a list of strings');
    const target = this.selectorOf(body);
    await this.on(c, () =>
      this.tables.rewriteMetadata(tenant, c, target, (current) => deletePayloadKeys(current, keys, this.limits)),
    );
    return updated(wait);
  }

  async clearPayload(tenant: Tenant, c: string, raw: unknown, wait: boolean): Promise<UpdateResult> {
    const body = bodyOf(raw);
    refuseUnknown(body, QDRANT_BODY_FIELDS.clearPayload, { shard_key: 'shard_key (custom sharding)' }, 'body');
    const target = this.selectorOf(body);
    await this.on(c, () => this.tables.rewriteMetadata(tenant, c, target, () => ({})));
    return updated(wait);
  }

  /** createPayloadIndex / deletePayloadIndex: accepted (filters need no index here), the collection must exist. */
  async payloadIndex(tenant: Tenant, c: string, raw: unknown, wait: boolean): Promise<UpdateResult> {
    if (raw !== undefined) {
      const body = bodyOf(raw);
      refuseUnknown(body, QDRANT_BODY_FIELDS.createIndex, {}, 'body');
      if (typeof body.field_name !== 'string' || body.field_name === '') throw badRequest('field_name must be a payload key');
    }
    await this.on(c, () => this.tables.get(tenant, c));
    return updated(wait);
  }
}

const QUERY_FEATURES: Readonly<Record<string, string>> = {
  recommend: 'Recommend queries',
  discover: 'Discover queries',
  context: 'Context queries',
  order_by: 'order_by queries',
  fusion: 'Fusion queries (rrf, dbsf)',
  rrf: 'Fusion queries (rrf)',
  formula: 'Formula queries (score boosting)',
  sample: 'Random sampling queries',
  mmr: 'MMR (maximal marginal relevance)',
};

/** Scroll's offset: a point id as shown (an integer, a UUID, or an id written through /v1). */
function offsetId(value: unknown): string {
  if (typeof value === 'number') return toStoredId(value, 'offset');
  if (typeof value === 'string' && value !== '') {
    try {
      return toStoredId(value, 'offset');
    } catch {
      return value; // an id written through /v1, as scroll showed it
    }
  }
  throw badRequest('offset must be a point id');
}

/** score_threshold: at least it (similarities), at most it (Euclid: a distance). */
function passes(score: number, threshold: number, metric: Metric): boolean {
  return metric === 'euclidean' ? score <= threshold : score >= threshold;
}

function recordOf(row: RowRead, select: PayloadSelector): PointRecord {
  const payload = select(row.metadata);
  return {
    id: toPointId(row.id),
    ...(payload === undefined ? {} : { payload }),
    ...(row.embedding === undefined ? {} : { vector: row.embedding }),
  };
}

function scoredOf(hit: QueryResultItemDto, select: PayloadSelector, values: boolean): ScoredPoint {
  const payload = select((hit.metadata ?? {}) as Metadata);
  return {
    id: toPointId(hit.id),
    version: 0,
    score: hit.score,
    ...(payload === undefined ? {} : { payload }),
    ...(values && hit.embedding !== undefined ? { vector: hit.embedding } : {}),
  };
}

/** Collection info as the client's CollectionInfo type has it, from the table's description. */
function collectionInfo(t: TableDto): Json {
  const state = t.index_status.state;
  const building = state === 'building' || state === 'loading';
  const details = t.index_status.details;
  const indexed = state === 'exact' || state === 'loading' ? 0 : Math.max(0, t.rows - (details.pending ?? 0));
  return {
    status: building ? 'yellow' : 'green',
    optimizer_status: 'ok',
    indexed_vectors_count: indexed,
    points_count: t.rows,
    segments_count: 1,
    config: {
      params: {
        vectors: { size: t.dimension, distance: DISTANCE_OF[t.metric] },
        shard_number: 1,
        replication_factor: 1,
        write_consistency_factor: 1,
        on_disk_payload: false,
      },
      hnsw_config: {
        m: details.m ?? DEFAULT_HNSW_OPTIONS.m,
        ef_construct: details.ef_construction ?? DEFAULT_HNSW_OPTIONS.efConstruction,
        full_scan_threshold: 10000,
        max_indexing_threads: 0,
        on_disk: false,
      },
      optimizer_config: {
        deleted_threshold: 0.2,
        vacuum_min_vector_number: 1000,
        default_segment_number: 0,
        max_segment_size: null,
        memmap_threshold: null,
        indexing_threshold: 10000,
        flush_interval_sec: 5,
        max_optimization_threads: null,
      },
      wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
      quantization_config: null,
    },
    payload_schema: {},
  };
}
