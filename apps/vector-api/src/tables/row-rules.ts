import {
  checkMetadataValue,
  type Filter,
  FilterError,
  type Metadata,
  type MetadataOptions,
  type MetadataValue,
  fieldPath,
  parseFilter,
  parseMetadata,
} from '../engine/filter';
import type { ParsedRows } from '../ingest/parse-protocol';
import { allFloat32, FLOAT32_MAX, inspectRows, type RowFindings } from '../ingest/row-findings';
import { FilterLimitError } from '../engine/filter-limits';
import { VectorError } from '../errors';
import type { InsertVectorsDto } from './dto/vectors.dto';
import { measureJson } from '../engine/json-size';
import { describeOverLimit, type MetadataLimits } from './metadata-size';
import type { NewRow } from './tables.repository';

/**
 * The rules a write's rows and a request's filter must meet (platform contract, "Vector
 * service decisions" and "Vector API, more"), checked before anything is written.
 */

/** Ids named in an error body are capped so a 1000-row batch cannot produce a huge error. */
const MAX_IDS_IN_ERROR = 100;

export function idsDetail(ids: readonly string[]): { ids: string[] } {
  return { ids: ids.slice(0, MAX_IDS_IN_ERROR) };
}

export function listIds(ids: readonly string[]): string {
  const shown = ids.slice(0, 10).map((id) => `'${id}'`);
  return ids.length > 10 ? `${shown.join(', ')} and ${ids.length - 10} more` : shown.join(', ');
}

export { allFloat32, FLOAT32_MAX } from '../ingest/row-findings';

/** What an embedding must hold, as the 400 says it. */
const FLOAT32_RULE = `only finite float32 numbers (|x| ≤ ${FLOAT32_MAX})`;

/** What the rows of a table must fit. */
export interface TableShape {
  readonly name: string;
  readonly dimension: number;
}

/** The rows InsertBodyPipe parsed (in a parse thread or not) for a DTO it built. */
const parsedRows = new WeakMap<InsertVectorsDto, ParsedRows>();

export function withParsedRows(dto: InsertVectorsDto, rows: ParsedRows): InsertVectorsDto {
  parsedRows.set(dto, rows);
  return dto;
}

/**
 * Rows checked by checkRows from parsed rows, in their compact form: every embedding one
 * after the other (`dimension` each, float32 little-endian, in base64) and every row's
 * metadata as one JSON array, as the parse made them. createRows writes them from there
 * (tables.repository.ts).
 */
export interface CompactRows {
  readonly vectorsBase64: string;
  readonly dimension: number;
  readonly metadataJson: string;
}

const compactRows = new WeakMap<readonly NewRow[], CompactRows>();

export function compactOf(rows: readonly NewRow[]): CompactRows | undefined {
  return compactRows.get(rows);
}

/**
 * Refuses a batch as its findings say, in the order the rules have always been checked:
 * embeddings that are not finite float32, metadata over a limit, invalid metadata, then the
 * dimension (lengthOf(i): row i's embedding length), then duplicate ids.
 */
function throwFindings(t: TableShape, f: RowFindings, ids: readonly string[], lengthOf: (i: number) => number): void {
  if (f.firstMalformed !== undefined) {
    throw new VectorError(
      'parameter_invalid',
      `Embeddings must contain ${FLOAT32_RULE}; offending ids: ${listIds(f.malformed)}.`,
      {
        param: `rows[${f.firstMalformed}].embedding`,
        details: idsDetail(f.malformed),
      },
    );
  }
  if (f.firstTooLarge) {
    const { index, problem } = f.firstTooLarge;
    throw new VectorError('metadata_too_large', `rows[${index}].metadata ${problem}; offending ids: ${listIds(f.tooLarge)}.`, {
      param: `rows[${index}].metadata`,
      details: idsDetail(f.tooLarge),
    });
  }
  if (f.metadataError) {
    throw new VectorError('parameter_invalid', `${f.metadataError.message}; offending ids: ${listIds(f.malformed)}.`, {
      param: f.metadataError.path,
      details: idsDetail(f.malformed),
    });
  }
  const wrong: string[] = [];
  let firstWrong: number | undefined;
  for (let i = 0; i < ids.length; i++) {
    if (lengthOf(i) === t.dimension) continue;
    wrong.push(ids[i]);
    firstWrong ??= i;
  }
  if (firstWrong !== undefined) {
    throw new VectorError(
      'dimension_mismatch',
      `Table '${t.name}' has dimension ${t.dimension}; embeddings of other lengths: ${listIds(wrong)}.`,
      { param: `rows[${firstWrong}].embedding`, details: idsDetail(wrong) },
    );
  }
  if (f.firstDupe !== undefined) {
    throw new VectorError('parameter_invalid', `Ids appear more than once in the batch: ${listIds(f.dupes)}.`, {
      param: `rows[${f.firstDupe}].id`,
      details: idsDetail(f.dupes),
    });
  }
}

/**
 * Validates a whole insert or upsert batch first; any bad row rejects it, naming every
 * offending id. `options.allowNull`: metadata values may be null (the Qdrant-compatible
 * API); it applies to rows given as objects (`dto.rows`): rows InsertBodyPipe parsed (the
 * `/v1` body) were checked without it.
 */
export function checkRows(t: TableShape, dto: InsertVectorsDto, limits: MetadataLimits, options?: MetadataOptions): NewRow[] {
  const parsed = parsedRows.get(dto);
  if (parsed) {
    const { ids, offsets, vectors, metadata } = parsed;
    throwFindings(t, parsed.findings, ids, (i) => offsets[i + 1] - offsets[i]);
    const rows: NewRow[] = ids.map((id, i) => ({
      id,
      embedding: vectors.subarray(offsets[i], offsets[i + 1]),
      metadata: metadata[i],
    }));
    if (parsed.vectorsBase64 !== '' || ids.length === 0) {
      compactRows.set(rows, { vectorsBase64: parsed.vectorsBase64, dimension: t.dimension, metadataJson: parsed.metadataJson });
    }
    return rows;
  }
  const rows = dto.rows;
  const { findings, metadata } = inspectRows(rows, limits, options);
  throwFindings(
    t,
    findings,
    rows.map((r) => r.id),
    (i) => rows[i].embedding.length,
  );
  return rows.map((r, i) => ({ id: r.id, embedding: r.embedding as number[], metadata: metadata[i] }));
}

/** A query vector or a replacement embedding: finite numbers of the table's dimension. */
export function checkVector(t: TableShape, vector: readonly unknown[], param: string): number[] {
  if (!allFloat32(vector)) throw new VectorError('parameter_invalid', `${param} must contain ${FLOAT32_RULE}.`, { param });
  if (vector.length !== t.dimension) {
    throw new VectorError(
      'dimension_mismatch',
      `${param} has ${vector.length} values; table '${t.name}' has dimension ${t.dimension}.`,
      { param },
    );
  }
  return vector;
}

/** The API's filter as the engine's, or the 400 that names what is wrong with it. */
export function toFilter(raw: Record<string, unknown>, path = 'filter'): Filter {
  try {
    return parseFilter(raw, path);
  } catch (err) {
    if (err instanceof FilterLimitError) throw new VectorError('filter_too_complex', err.message, { param: err.path });
    if (err instanceof FilterError) throw new VectorError('parameter_invalid', err.message, { param: err.path });
    throw err;
  }
}

/** A FilterError as the 400 parameter_invalid naming its path. */
function asInvalid<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof FilterError) throw new VectorError('parameter_invalid', err.message, { param: err.path });
    throw err;
  }
}

/** The 400 metadata_too_large when the new metadata is over a limit; else the metadata. */
function withinLimits(merged: Metadata, limits: MetadataLimits, what: string): Metadata {
  const size = measureJson(merged, limits);
  if (size.over) {
    throw new VectorError('metadata_too_large', `The ${what} metadata ${describeOverLimit(size, limits)}.`, {
      param: 'metadata',
    });
  }
  return merged;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `patch` merged into `target` (JSON Merge Patch, RFC 7396): a key with null is removed, a
 * key with an object merges into the stored object recursively (an object replaces a
 * value that is not one), any other value replaces. `depth` is the object depth of
 * `target` (the metadata is 1); the patch's values are checked on the way, null refused
 * except as a removal. Recursion follows the patch's objects, checked ≤ METADATA_MAX_DEPTH.
 */
function mergePatch(
  target: Record<string, MetadataValue> | undefined,
  patch: Record<string, unknown>,
  path: string,
  depth: number,
): Record<string, MetadataValue> {
  const merged: Record<string, MetadataValue> = { ...(target ?? {}) };
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    const p = `${path}.${key}`;
    if (value === null) {
      delete merged[key];
    } else if (isObject(value)) {
      checkMetadataValue(value, p, depth, { allowNull: true }); // the depth and types; nulls are removals
      const stored = merged[key];
      merged[key] = mergePatch(isObject(stored) ? stored : undefined, value, p, depth + 1);
    } else {
      checkMetadataValue(value, p, depth);
      merged[key] = value as MetadataValue;
    }
  }
  return merged;
}

/**
 * Stored metadata with a PATCH's changes merged in (JSON Merge Patch, RFC 7396, as
 * Pinecone's update): a key with a value sets it, a key with null removes it, a nested
 * object merges into the stored object recursively.
 */
export function mergeMetadata(stored: Metadata | undefined, patch: Record<string, unknown>, limits: MetadataLimits): Metadata {
  const merged = asInvalid(() => mergePatch(stored, patch, 'metadata', 1));
  return withinLimits(merged, limits, 'merged');
}

/**
 * Qdrant's set_payload: the patch's top-level keys replace the stored ones (shallow; null
 * is a value, kept), the others stay. The result is checked against the limits.
 */
export function setPayloadKeys(current: Metadata | undefined, patch: Record<string, unknown>, limits: MetadataLimits): Metadata {
  const size = measureJson(patch, limits);
  if (size.over) {
    throw new VectorError('metadata_too_large', `The payload ${describeOverLimit(size, limits)}.`, { param: 'payload' });
  }
  const checked = asInvalid(() => parseMetadata(patch, 'payload', { allowNull: true }));
  return withinLimits({ ...(current ?? {}), ...checked }, limits, 'new');
}

/** Qdrant's overwrite_payload (and an upserted point's payload): a whole new payload, nulls allowed, within the limits. */
export function replacePayload(payload: unknown, limits: MetadataLimits, path = 'payload'): Metadata {
  const size = measureJson(payload, limits);
  if (size.over) {
    throw new VectorError('metadata_too_large', `The payload ${describeOverLimit(size, limits)}.`, { param: path });
  }
  return asInvalid(() => parseMetadata(payload, path, { allowNull: true }));
}

/**
 * Qdrant's delete_payload: each key removed; a dotted key (`a.b`) removes the top-level key
 * of that name if there is one, and the nested key `b` of the object `a` (through arrays of
 * objects on the way, as a field path walks). The stored metadata is not changed in place.
 */
export function deletePayloadKeys(current: Metadata | undefined, keys: readonly string[], limits: MetadataLimits): Metadata {
  const copy = JSON.parse(JSON.stringify(current ?? {})) as Record<string, unknown>;
  for (const raw of keys) {
    const key = fieldPath(raw);
    removePath(copy, key, 0);
  }
  return withinLimits(copy as Metadata, limits, 'new');
}

/** Removes what the path `path.slice(start)` names below `value` (a copy: mutated). */
function removePath(value: unknown, path: string, start: number): void {
  if (Array.isArray(value)) {
    for (const element of value) removePath(element, path, start);
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (!path.startsWith(key, start)) continue;
    const end = start + key.length;
    if (end === path.length) delete value[key];
    else if (path.charCodeAt(end) === 46 /* . */) removePath(value[key], path, end + 1);
  }
}
