import { FilterError, type Metadata, type MetadataOptions, parseMetadata } from '../engine/filter';
import { measureJson } from '../engine/json-size';
import { describeOverLimit, type MetadataLimits } from '../tables/metadata-size';

/**
 * What an insert or upsert batch's rows must meet before the table is known (all but the
 * dimension), found in one pass: by the parse worker (parse.worker.ts) for the batches it
 * parses, by checkRows (tables/row-rules.ts) for the others. Pure data, so a worker can
 * send it back; checkRows turns it into the 400 (throwFindings), in the order it always has.
 * No '@app/*' import here: a worker file and what it imports must resolve without aliases.
 */

/** The largest finite float32 as the contract states it: a number past it would be stored as ±Infinity. */
export const FLOAT32_MAX = 3.4028235e38;

/**
 * Every value is a number a float32 holds finitely (|x| ≤ FLOAT32_MAX); 1e39 is finite as a
 * double but would be stored as Infinity. A plain loop: `.every` with a type-guard callback
 * was ~100× slower on 4M elements.
 */
export function allFloat32(values: readonly unknown[]): values is number[] {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    // NaN fails the comparison too
    if (typeof v !== 'number' || !(Math.abs(v) <= FLOAT32_MAX)) return false;
  }
  return true;
}

export interface RowFindings {
  /** Ids of rows whose embedding is not all finite float32 or whose metadata is invalid, in row order. */
  readonly malformed: string[];
  /** The first row whose embedding is not all finite float32. */
  readonly firstMalformed: number | undefined;
  /** Ids of rows over a metadata limit, and the first of them with what the 400 says of it. */
  readonly tooLarge: string[];
  readonly firstTooLarge: { readonly index: number; readonly problem: string } | undefined;
  /** The first invalid metadata (FilterError's message and path). */
  readonly metadataError: { readonly message: string; readonly path: string } | undefined;
  /** Ids given more than once, and the first row that repeats one. */
  readonly dupes: string[];
  readonly firstDupe: number | undefined;
}

export interface CandidateRow {
  readonly id: string;
  readonly embedding: readonly unknown[];
  readonly metadata?: unknown;
}

/** True when a batch with these findings may be written (the dimension aside). */
export const noFindings = (f: RowFindings): boolean =>
  f.firstMalformed === undefined && f.firstTooLarge === undefined && f.metadataError === undefined && f.firstDupe === undefined;

/**
 * Checks every row (none stops the pass, so the 400 can name every offending id); the rows'
 * metadata as checked (`options.allowNull`: null values are allowed, the Qdrant API's rule).
 */
export function inspectRows(
  rows: readonly CandidateRow[],
  limits: MetadataLimits,
  options: MetadataOptions = {},
): { findings: RowFindings; metadata: Array<Metadata | undefined> } {
  const malformed: string[] = [];
  let firstMalformed: number | undefined;
  const metadata: Array<Metadata | undefined> = [];
  let metadataError: { message: string; path: string } | undefined;
  const tooLarge: string[] = [];
  let firstTooLarge: { index: number; problem: string } | undefined;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (!allFloat32(r.embedding)) {
      malformed.push(r.id);
      firstMalformed ??= i;
    }
    if (r.metadata !== undefined) {
      const size = measureJson(r.metadata, limits);
      if (size.over) {
        tooLarge.push(r.id);
        firstTooLarge ??= { index: i, problem: describeOverLimit(size, limits) };
      }
    }
    try {
      metadata.push(r.metadata === undefined ? undefined : parseMetadata(r.metadata, `rows[${i}].metadata`, options));
    } catch (err) {
      if (!(err instanceof FilterError)) throw err;
      metadataError ??= { message: err.message, path: err.path };
      malformed.push(r.id);
      metadata.push(undefined);
    }
  }
  const seen = new Set<string>();
  const dupes: string[] = [];
  const dupeSet = new Set<string>();
  let firstDupe: number | undefined;
  for (let i = 0; i < rows.length; i++) {
    const id = rows[i].id;
    if (seen.has(id)) {
      if (!dupeSet.has(id)) {
        dupeSet.add(id);
        dupes.push(id);
      }
      firstDupe ??= i;
    }
    seen.add(id);
  }
  return { findings: { malformed, firstMalformed, tooLarge, firstTooLarge, metadataError, dupes, firstDupe }, metadata };
}
