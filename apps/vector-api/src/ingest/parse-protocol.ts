import type { Metadata } from '../engine/filter';
import type { RowFindings } from './row-findings';

/**
 * The messages between the event loop and the insert parse workers (parse.worker.ts). The
 * body's bytes go to the worker and the rows' embeddings and metadata text come back as
 * transferred ArrayBuffers (moved, not copied); the rest is structured-cloned.
 */

/** What the parse of an insert body must know besides its bytes. */
export interface ParseOptions {
  readonly maxRows: number;
  readonly maxIdLength: number;
  readonly metadata: { readonly maxBytes: number; readonly maxKeys: number };
}

/** Event loop → worker: parse and check one body (`body` is transferred). */
export interface ParseRequest {
  readonly id: number;
  readonly body: Uint8Array;
  readonly options: ParseOptions;
}

/** An error as the platform renders it (a DomainError's code, message and param). */
export interface WireError {
  readonly code: string;
  readonly message: string;
  readonly param?: string | undefined;
}

/**
 * A batch's rows in compact form. Row i's embedding is `vectors[offsets[i] .. offsets[i + 1])`
 * (float32, exactly as stored); `vectorsBase64` is those bytes (little-endian) in base64 and
 * `metadataJson` the JSON array of every row's metadata (null for none), both as the INSERT
 * statement takes them (strings: Prisma turns a bytes parameter into base64 and back on the
 * event loop). `findings` say what checkRows must refuse once it knows the table
 * (tables/row-rules.ts); with findings, the two strings are empty.
 */
export interface ParsedRows {
  readonly ids: string[];
  readonly offsets: Uint32Array;
  readonly vectors: Float32Array;
  readonly metadata: Array<Metadata | undefined>;
  readonly vectorsBase64: string;
  readonly metadataJson: string;
  readonly findings: RowFindings;
}

/**
 * The outcome of a parse:
 * - `rows`: the body is valid as far as the route's pipe checks it; its rows.
 * - `error`: the 400 the platform's parser or the pipe's first checks give (exactly theirs).
 * - `validate`: a body of a shape the worker does not settle alone; `light` is the JSON of
 *   the body with each array embedding and object metadata emptied (as InsertBodyPipe
 *   validates it), for the platform's validation pipe on the event loop (JSON, not a cloned
 *   object: the pipe wants objects of the event loop's own realm, which Jest's differs from);
 *   `rows` when the shape allowed building them, otherwise `body`, the bytes back, for the
 *   event loop's own parse.
 */
export type ParseOutcome =
  | { readonly kind: 'rows'; readonly rows: ParsedRows }
  | { readonly kind: 'error'; readonly error: WireError }
  | { readonly kind: 'validate'; readonly light: string; readonly rows?: ParsedRows; readonly body?: Uint8Array };

/** Worker → event loop. `failed`: the worker itself broke (a bug): the request answers 500. */
export type ParseReply =
  { readonly id: number; readonly outcome: ParseOutcome } | { readonly id: number; readonly failed: string };

/** The buffers of an outcome to transfer rather than copy. */
export function transferablesOf(outcome: ParseOutcome): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  const rows = outcome.kind === 'error' ? undefined : outcome.rows;
  if (rows) out.push(rows.vectors.buffer as ArrayBuffer, rows.offsets.buffer as ArrayBuffer);
  if (outcome.kind === 'validate' && outcome.body) out.push(outcome.body.buffer as ArrayBuffer);
  return out;
}
