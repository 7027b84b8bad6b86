import { endianness } from 'node:os';
// eslint-disable-next-line conventions/import-boundaries -- a parse worker's file imports no '@app/*' alias (below)
import { parseJsonBody } from '../../../../libs/platform/src/http/json-body';
// eslint-disable-next-line conventions/import-boundaries -- the same
import { inspectInput } from '../../../../libs/platform/src/http/validation';
import type { Metadata } from '../engine/filter';
import type { ParsedRows, ParseOptions, ParseOutcome, WireError } from './parse-protocol';
import { type CandidateRow, inspectRows, noFindings } from './row-findings';

/**
 * The whole check of an insert or upsert body that needs no table: the platform's JSON
 * parse (parseJsonBody: invalid JSON, duplicate and prototype keys), InsertBodyPipe's
 * checks in its order (unknown keys of the body, then row by row unknown keys and the
 * metadata's input checks), the shape the validation pipe requires, and the rows' own
 * rules (finite float32 embeddings, metadata limits and values, duplicate ids). Runs in a
 * parse worker (parse.worker.ts) for large bodies and on the event loop for small ones: one
 * function, so both answer alike. Imports no '@app/*' alias (a worker file's rule): the
 * platform's files are reached by their path.
 */

/** Stored embeddings are float32 little-endian: a Float32Array's bytes are those on such a machine. */
const LITTLE_ENDIAN = endianness() === 'LE';

const INSERT_FIELDS: ReadonlySet<string> = new Set(['rows']);
const ROW_FIELDS: ReadonlySet<string> = new Set(['id', 'embedding', 'metadata']);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An object with more keys than `fields` has: the first unknown one's path (refuseExtraKeys
 * of tables/raw-body.ts, which answers parameter_unknown naming it); otherwise undefined.
 */
export function unknownKeyOf(value: unknown, fields: ReadonlySet<string>, path = ''): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length <= fields.size) return undefined;
  const unknown = keys.find((k) => !fields.has(k)) as string;
  return path === '' ? unknown : `${path}.${unknown}`;
}

const unknownParameter = (param: string): WireError => ({
  code: 'parameter_unknown',
  message: `Received unknown parameter: ${param}`,
  param,
});

/** A DomainError of the platform's helpers as data. */
function wire(err: { code: string; message: string; param?: string | undefined }): WireError {
  return { code: err.code, message: err.message, ...(err.param === undefined ? {} : { param: err.param }) };
}

function isDomainLike(err: unknown): err is { code: string; message: string; param?: string } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string';
}

/**
 * An id with a character the validation pipe judges otherwise than by its UTF-16 length
 * (Length counts a surrogate pair once and ignores the variation selectors U+FE0E and U+FE0F)
 * or refuses (NUL, a lone surrogate): such ids are left to the pipe.
 */
function unsureId(id: string): boolean {
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c === 0 || (c >= 0xd800 && c <= 0xdfff) || c === 0xfe0e || c === 0xfe0f) return true;
  }
  return false;
}

/** Whether the validation pipe surely accepts this row as the light body carries it. */
function rowSurelyValid(row: Record<string, unknown>, options: ParseOptions): boolean {
  for (const key in row) if (!ROW_FIELDS.has(key)) return false;
  const { id, embedding, metadata } = row;
  if (typeof id !== 'string' || id.length < 1 || id.length > options.maxIdLength || unsureId(id)) return false;
  if (!Array.isArray(embedding)) return false;
  return metadata === undefined || metadata === null || isPlainObject(metadata);
}

/** Rows of a body whose shape allows building them (plain objects with a string id and an array embedding). */
function candidates(rows: readonly unknown[]): CandidateRow[] | undefined {
  const out: CandidateRow[] = [];
  for (const row of rows) {
    if (!isPlainObject(row) || typeof row.id !== 'string' || !Array.isArray(row.embedding)) return undefined;
    out.push({ id: row.id, embedding: row.embedding as unknown[], metadata: row.metadata });
  }
  return out;
}

/** The rows in compact form, with what checkRows must refuse once it knows the table. */
export function compactRows(rows: readonly CandidateRow[], options: ParseOptions): ParsedRows {
  const { findings, metadata } = inspectRows(rows, options.metadata);
  const offsets = new Uint32Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) offsets[i + 1] = offsets[i] + rows[i].embedding.length;
  const vectors = new Float32Array(offsets[rows.length]);
  // Rows with a value that is not a finite float32 are refused (findings), so their place stays 0.
  if (findings.firstMalformed === undefined) {
    for (let i = 0; i < rows.length; i++) vectors.set(rows[i].embedding as number[], offsets[i]);
  }
  const ok = noFindings(findings);
  return {
    ids: rows.map((r) => r.id),
    offsets,
    vectors,
    metadata: ok ? metadata : [],
    vectorsBase64:
      ok && LITTLE_ENDIAN ? Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength).toString('base64') : '',
    metadataJson: ok ? JSON.stringify(metadata.map((m: Metadata | undefined) => m ?? null)) : '',
    findings,
  };
}

/** Parses and checks an insert or upsert body (see above). */
export function parseInsertBody(body: Uint8Array, options: ParseOptions): ParseOutcome {
  let value: unknown;
  try {
    value = parseJsonBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  } catch (err) {
    if (isDomainLike(err)) return { kind: 'error', error: wire(err) };
    throw err;
  }
  const extra = unknownKeyOf(value, INSERT_FIELDS);
  if (extra !== undefined) return { kind: 'error', error: unknownParameter(extra) };
  const rows = isPlainObject(value) && Array.isArray(value.rows) ? (value.rows as unknown[]) : undefined;
  let sure = rows !== undefined && rows.length >= 1 && rows.length <= options.maxRows;
  if (rows) {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (!isPlainObject(row)) {
        sure = false;
        continue;
      }
      const rowExtra = unknownKeyOf(row, ROW_FIELDS, `rows[${i}]`);
      if (rowExtra !== undefined) return { kind: 'error', error: unknownParameter(rowExtra) };
      if (isPlainObject(row.metadata)) {
        const problem = inspectInput(row.metadata, `rows[${i}].metadata`);
        if (problem) return { kind: 'error', error: wire(problem) };
      }
      if (sure && !rowSurelyValid(row, options)) sure = false;
    }
  }
  if (sure && rows) return { kind: 'rows', rows: compactRows(candidates(rows) as CandidateRow[], options) };
  // Left to the validation pipe, on the light body InsertBodyPipe always gave it. The pipe
  // refuses what is not an object first (null stands for any such body), then runs
  // inspectInput, done here so that only a body of bounded depth is sent as JSON.
  if (!isPlainObject(value)) return { kind: 'validate', light: 'null' };
  const lightValue = rows
    ? {
        ...value,
        rows: rows.map((row) => {
          if (!isPlainObject(row)) return row;
          let lifted = row;
          if (Array.isArray(row.embedding)) lifted = { ...lifted, embedding: [] };
          if (isPlainObject(row.metadata)) lifted = { ...lifted, metadata: {} };
          return lifted;
        }),
      }
    : value;
  const problem = inspectInput(lightValue, '');
  if (problem) return { kind: 'error', error: wire(problem) };
  const light = JSON.stringify(lightValue);
  const shaped = rows && rows.length <= options.maxRows ? candidates(rows) : undefined;
  if (shaped) return { kind: 'validate', light, rows: compactRows(shaped, options) };
  return { kind: 'validate', light, body };
}
