import type { CollectionHit } from '../engine/vector-collection';
import { VectorError } from '../errors';

/**
 * Bounded answers (platform contract, third round; issue 31): the size of a query or batch
 * answer is estimated from its actual hits before anything else is read or built, and an
 * answer over VECTOR_MAX_RESPONSE_BYTES is refused with 400 `response_too_large`, never
 * attempted (a 7-query batch over rows of 20 MB metadata used to fail in JSON.stringify with
 * a 500 after 6.9 s).
 */

/**
 * Bytes of one embedding value as the answer writes it: a float32 read back as a double
 * prints up to 17 significant digits (`0.12345679104328156`), plus sign, exponent and comma.
 */
export const EMBEDDING_VALUE_BYTES = 20;

/** `{"id":,"score":}` with the score's digits: what a hit costs besides its id, metadata and embedding. */
const HIT_BYTES = 40;
/** `,"metadata":` */
const METADATA_KEY_BYTES = 12;
/** `,"embedding":[]` */
const EMBEDDING_KEY_BYTES = 15;
/** `{"results":[],"latency_ms":}` and the like. */
const ENVELOPE_BYTES = 64;

export interface AnswerSize {
  readonly total: number;
  readonly metadata: number;
  readonly embeddings: number;
  readonly hits: number;
}

/** The estimated size of an answer holding these hits (embeddings of `dimension` values when `withValues`). */
export function estimateAnswer(
  results: readonly (readonly CollectionHit[])[],
  withMetadata: boolean,
  withValues: boolean,
  dimension: number,
): AnswerSize {
  let total = ENVELOPE_BYTES;
  let metadata = 0;
  let hits = 0;
  for (const list of results) {
    total += 3;
    for (const h of list) {
      hits++;
      total += HIT_BYTES + Buffer.byteLength(h.id) + 3;
      if (withMetadata) metadata += METADATA_KEY_BYTES + h.metadataBytes;
    }
  }
  const embeddings = withValues ? hits * (EMBEDDING_KEY_BYTES + dimension * EMBEDDING_VALUE_BYTES) : 0;
  return { total: total + metadata + embeddings, metadata, embeddings, hits };
}

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * Throws 400 `response_too_large` when the answer would pass `limit`, naming what to lower:
 * the embeddings (include_values) when they are most of it, else the metadata
 * (include_metadata: false) or n, and the batch's size for a batch.
 */
export function checkAnswerSize(size: AnswerSize, limit: number, queries: number | undefined): void {
  if (size.total <= limit) return;
  const what: string[] = [];
  let param = 'n';
  if (size.embeddings > 0) {
    what.push(`include_values (the embeddings are ${mb(size.embeddings)} of it)`);
    if (size.embeddings * 2 >= size.total) param = 'include_values';
  }
  what.push(size.metadata > 0 ? `n, or include_metadata: false (the metadata is ${mb(size.metadata)})` : 'n');
  if (queries !== undefined) {
    what.push(`the batch size (${queries} queries: send fewer per request)`);
    if (param === 'n') param = 'queries';
  }
  throw new VectorError(
    'response_too_large',
    `This answer would be about ${mb(size.total)} (${size.hits} hits), over VECTOR_MAX_RESPONSE_BYTES (${mb(limit)}): lower ${what.join('; or ')}.`,
    { param },
  );
}
