import type { SchemaObject } from '@nestjs/swagger';
import { MAX_DIMENSION } from '../../tables/dto/table.dto';
import { MAX_BATCH_QUERIES, MAX_IDS_PER_REQUEST, MAX_QUERY_LIMIT, type QDRANT_BODY_FIELDS } from './qdrant.service';

/**
 * The OpenAPI description of the Qdrant-compatible routes (tag `qdrant`). Qdrant fixes their
 * shapes, and several of its fields are unions (a vector or `{nearest}`, `with_payload` as a
 * boolean, a list or `{include}`), so the bodies are described here as JSON Schema and checked
 * by QdrantService (QDRANT_BODY_FIELDS), not by a validated class; docs/decisions.md 271.
 */

/** Qdrant's error body: every error of these routes, 4xx and 5xx (qdrant-error.ts). */
export const QDRANT_ERROR_BODY = {
  name: 'QdrantErrorBody',
  schema: {
    type: 'object',
    description:
      "Every error of the Qdrant-compatible routes (tag qdrant), as Qdrant's REST API answers: the message starts " +
      "with the platform's code when the platform raised it (`rate_limit_exceeded: …`), see docs/qdrant.md.",
    required: ['status'],
    properties: {
      status: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'string', description: 'What went wrong, naming the field or the unsupported feature' } },
      },
      time: { type: 'number', description: 'Seconds' },
    },
  },
} as const;

/** The envelope of a 200 answer around `result`. */
export const envelope = (result: SchemaObject): SchemaObject => ({
  type: 'object',
  required: ['result', 'status', 'time'],
  properties: { result, status: { type: 'string', enum: ['ok'] }, time: { type: 'number', description: 'Seconds' } },
});

export const ANY: SchemaObject = { type: 'object', additionalProperties: true };
export const UPDATE_RESULT: SchemaObject = {
  type: 'object',
  properties: { operation_id: { type: 'integer' }, status: { type: 'string', enum: ['completed', 'acknowledged'] } },
};

const POINT_ID: SchemaObject = {
  oneOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', format: 'uuid' },
  ],
  description: 'An unsigned integer or a UUID (ids written through /v1 are strings)',
};
const IDS: SchemaObject = { type: 'array', items: POINT_ID, maxItems: MAX_IDS_PER_REQUEST };
const VECTOR: SchemaObject = {
  type: 'array',
  items: { type: 'number' },
  description: 'The dense vector (named, sparse and multi vectors are refused)',
};
const FILTER: SchemaObject = {
  type: 'object',
  description:
    'A Qdrant filter: must / should / must_not / min_should of conditions (match value/any/except/text, range, is_empty, is_null, has_id, nested filters); docs/qdrant.md',
};
const PAYLOAD: SchemaObject = {
  type: 'object',
  additionalProperties: true,
  description: 'JSON: nested objects (depth ≤ 8), arrays, null; the metadata limits count every key',
};
const WITH_PAYLOAD: SchemaObject = {
  oneOf: [
    { type: 'boolean' },
    { type: 'array', items: { type: 'string' } },
    { type: 'object', properties: { include: { type: 'array', items: { type: 'string' } } }, required: ['include'] },
    { type: 'object', properties: { exclude: { type: 'array', items: { type: 'string' } } }, required: ['exclude'] },
  ],
  description: 'Top-level payload keys to return',
};
const WITH_VECTOR: SchemaObject = { type: 'boolean', description: 'A list of vector names is refused (named vectors)' };
const LIMIT: SchemaObject = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_QUERY_LIMIT,
  default: 10,
  description: `limit + offset ≤ ${MAX_QUERY_LIMIT}`,
};
const OFFSET: SchemaObject = { type: 'integer', minimum: 0, maximum: MAX_QUERY_LIMIT, default: 0 };
const PARAMS: SchemaObject = {
  type: 'object',
  properties: {
    hnsw_ef: { type: 'integer', description: "The query's effort" },
    exact: { type: 'boolean', description: 'true: exact (flat) search' },
    indexed_only: { type: 'boolean' },
  },
  additionalProperties: false,
};
const NULL_ONLY = (feature: string): SchemaObject => ({
  nullable: true,
  description: `Accepted only as null: ${feature} is refused with a 400 naming it`,
});
const SEARCH: Record<string, SchemaObject> = {
  vector: VECTOR,
  filter: FILTER,
  limit: LIMIT,
  offset: OFFSET,
  with_payload: { ...WITH_PAYLOAD, description: 'Top-level payload keys to return (default false)' },
  with_vector: WITH_VECTOR,
  params: PARAMS,
  score_threshold: { type: 'number', description: 'Cosine and Dot: the lowest score kept; Euclid: the largest distance' },
};
const { vector: _vector, ...SEARCH_BUT_VECTOR } = SEARCH;
const QUERY: Record<string, SchemaObject> = {
  ...SEARCH_BUT_VECTOR,
  query: {
    oneOf: [VECTOR, { type: 'object', properties: { nearest: VECTOR }, required: ['nearest'], additionalProperties: false }],
    description:
      'A vector or {nearest: vector}; without it, a listing like scroll. Point ids, recommend, discover, fusion, MMR are refused',
  },
  using: NULL_ONLY('`using` (named vectors)'),
  lookup_from: NULL_ONLY('`lookup_from`'),
};
const SELECTOR: Record<string, SchemaObject> = {
  points: { ...IDS, description: 'The ids (send points or filter)' },
  filter: { ...FILTER, description: 'The points a filter selects (send points or filter)' },
};
const PAYLOAD_EDIT: Record<string, SchemaObject> = {
  payload: PAYLOAD,
  ...SELECTOR,
  key: NULL_ONLY('`key` (setting the payload under a nested key)'),
};

/**
 * A body: the fields QdrantService reads (others are refused: additionalProperties false).
 * test/platform/openapi-document.e2e-spec.ts checks them against QDRANT_BODY_FIELDS.
 */
function body(properties: Record<string, SchemaObject>, required: string[] = [], description?: string): SchemaObject {
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(description === undefined ? {} : { description }),
  };
}

const batchOf = (item: SchemaObject): SchemaObject => ({
  type: 'array',
  items: item,
  maxItems: MAX_BATCH_QUERIES,
});

export const QDRANT_BODIES = {
  create: body(
    {
      vectors: {
        type: 'object',
        properties: {
          size: { type: 'integer', minimum: 1, maximum: MAX_DIMENSION },
          distance: { type: 'string', enum: ['Cosine', 'Dot', 'Euclid'], description: 'Manhattan is refused' },
          on_disk: { type: 'boolean' },
          hnsw_config: { type: 'object' },
          datatype: { type: 'string', enum: ['float32'] },
        },
        required: ['size', 'distance'],
        additionalProperties: false,
      },
      hnsw_config: { type: 'object', description: '`m` and `ef_construct` map to the index options' },
      optimizers_config: { type: 'object', description: 'Accepted, nothing to tune' },
      wal_config: { type: 'object', description: 'Accepted, nothing to tune' },
      shard_number: { type: 'integer', maximum: 1, description: 'More than 1 is refused (sharding)' },
      replication_factor: { type: 'integer', maximum: 1, description: 'More than 1 is refused (replication)' },
      write_consistency_factor: { type: 'integer', description: 'Accepted' },
      on_disk_payload: { type: 'boolean', description: 'Accepted' },
      strict_mode_config: { type: 'object', description: 'Accepted' },
      metadata: { type: 'object', description: 'Accepted' },
    },
    ['vectors'],
    'An hnsw table; sparse_vectors, sharding_method, init_from and quantization_config are refused, named',
  ),
  upsert: body(
    {
      points: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: POINT_ID, vector: VECTOR, payload: PAYLOAD },
          required: ['id', 'vector'],
          additionalProperties: false,
        },
      },
      batch: {
        type: 'object',
        properties: {
          ids: { type: 'array', items: POINT_ID, minItems: 1 },
          vectors: { type: 'array', items: VECTOR },
          payloads: { type: 'array', items: { ...PAYLOAD, nullable: true } },
        },
        required: ['ids', 'vectors'],
        additionalProperties: false,
      },
    },
    [],
    'points, or the columnar batch (one of them); any number of points within the insert body limit',
  ),
  retrieve: body({ ids: IDS, with_payload: WITH_PAYLOAD, with_vector: WITH_VECTOR }, ['ids']),
  query: body(QUERY),
  queryBatch: body({ searches: batchOf(body(QUERY)) }, ['searches']),
  search: body(SEARCH, ['vector']),
  searchBatch: body({ searches: batchOf(body(SEARCH, ['vector'])) }, ['searches']),
  delete: body(SELECTOR, [], 'points or filter, one of them'),
  scroll: body({
    filter: FILTER,
    limit: { type: 'integer', minimum: 1, maximum: MAX_QUERY_LIMIT, default: 10 },
    offset: { ...POINT_ID, description: 'The next_page_offset of the previous page' },
    with_payload: WITH_PAYLOAD,
    with_vector: WITH_VECTOR,
  }),
  count: body({ filter: FILTER, exact: { type: 'boolean', description: 'Counts are always exact' } }),
  setPayload: body(PAYLOAD_EDIT, ['payload'], 'payload, and points or filter'),
  overwritePayload: body(PAYLOAD_EDIT, ['payload'], 'payload, and points or filter'),
  deletePayload: body(
    { keys: { type: 'array', items: { type: 'string' } }, ...SELECTOR },
    ['keys'],
    'keys, and points or filter',
  ),
  clearPayload: body(SELECTOR, [], 'points or filter, one of them'),
  createIndex: body(
    { field_name: { type: 'string', minLength: 1 }, field_schema: { description: 'Accepted (filters need no index)' } },
    ['field_name'],
  ),
} as const satisfies Record<keyof typeof QDRANT_BODY_FIELDS, SchemaObject>;
