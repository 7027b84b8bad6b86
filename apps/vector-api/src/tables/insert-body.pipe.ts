import { DomainError, inspectInput, parseJsonBody, type PlatformErrorCode, PlatformValidationPipe } from '@app/platform';
import { Injectable, type OnModuleDestroy, type PipeTransform } from '@nestjs/common';
import { VectorConfig } from '../config';
import { parseInsertBody } from '../ingest/parse-insert';
import { ParsePool } from '../ingest/parse-pool';
import type { ParsedRows, ParseOptions, ParseOutcome } from '../ingest/parse-protocol';
import { InsertVectorsDto, MAX_ID_LENGTH, MAX_ROWS_PER_INSERT, VectorRowDto } from './dto/vectors.dto';
import { isPlainObject, refuseExtraKeys } from './raw-body';
import { withParsedRows } from './row-rules';

const INSERT_FIELDS: ReadonlySet<string> = new Set(['rows']);
const ROW_FIELDS: ReadonlySet<string> = new Set(['id', 'embedding', 'metadata']);

/** The parse threads of insert and upsert bodies (VECTOR_INSERT_PARSE_WORKERS), closed with the app. */
@Injectable()
export class InsertParsePool extends ParsePool implements OnModuleDestroy {
  constructor(config: VectorConfig) {
    super(config.VECTOR_INSERT_PARSE_WORKERS);
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }
}

/**
 * The insert and upsert body (the route takes it raw, `@RawJsonBody()`), parsed and checked
 * off the event loop (issue 32): a body of VECTOR_INSERT_PARSE_INLINE_BYTES or more goes to
 * a parse thread (ingest/parse.worker.ts), which answers with its rows in compact form (ids,
 * one Float32Array of every embedding, the metadata and its JSON for the INSERT) or with the
 * 400; a smaller one is parsed here by the same function (ingest/parse-insert.ts). Either way
 * the answers are the platform parser's and this pipe's as before: the JSON parse and key
 * checks, unknown keys, the metadata's input checks, then the validation pipe, which runs
 * here on the light body (embeddings and metadata emptied) only when the parse could not
 * settle the shape alone. The rows' own rules (float32, metadata limits, duplicate ids, the
 * dimension) are answered by checkRows once the table is known, from what the parse found.
 *
 * Why the light body: Nest's ValidationPipe and class-transformer walk every array element
 * several times (gap closing, prototype-key stripping, binary detection, copying); for 1000
 * × 4096 numbers that took ~16 s per request, and copying an object costs them O(keys²).
 */
@Injectable()
export class InsertBodyPipe implements PipeTransform<unknown, Promise<InsertVectorsDto>> {
  private readonly inner = new PlatformValidationPipe();
  private readonly options: ParseOptions;

  constructor(
    private readonly config: VectorConfig,
    private readonly pool: InsertParsePool,
  ) {
    this.options = {
      maxRows: MAX_ROWS_PER_INSERT,
      maxIdLength: MAX_ID_LENGTH,
      metadata: { maxBytes: config.VECTOR_METADATA_MAX_BYTES, maxKeys: config.VECTOR_METADATA_MAX_KEYS },
    };
  }

  async transform(value: unknown): Promise<InsertVectorsDto> {
    // No body at all: the validation pipe answers as for any route.
    if (!(value instanceof Uint8Array)) return this.onEventLoop(value);
    const outcome: ParseOutcome =
      this.pool.size > 0 && value.byteLength >= this.config.VECTOR_INSERT_PARSE_INLINE_BYTES
        ? await this.pool.parse(value, this.options)
        : parseInsertBody(value, this.options);
    if (outcome.kind === 'error') {
      const { message, param } = outcome.error;
      // The parse forwards a DomainError's code as it was raised (parse-insert.ts): typed as one.
      const code: PlatformErrorCode = outcome.error.code as PlatformErrorCode;
      throw new DomainError(code, message, param === undefined ? {} : { param });
    }
    if (outcome.kind === 'rows') return dtoOf(outcome.rows);
    await this.validate(JSON.parse(outcome.light));
    if (outcome.rows) return dtoOf(outcome.rows);
    // A shape the parse could not build rows from, yet valid: the body parsed here, as before.
    return this.onEventLoop(parseJsonBody(Buffer.from(outcome.body ?? new Uint8Array(0))));
  }

  private async validate(light: unknown): Promise<InsertVectorsDto> {
    return (await this.inner.transform(light, { type: 'body', metatype: InsertVectorsDto, data: undefined })) as InsertVectorsDto;
  }

  /** The parsed body checked on the event loop (the pipe of issue 31, for bodies the parse leaves to it). */
  private async onEventLoop(value: unknown): Promise<InsertVectorsDto> {
    const embeddings = new Map<number, unknown[]>();
    const metadata = new Map<number, Record<string, unknown>>();
    let light = value;
    if (isPlainObject(value)) refuseExtraKeys(value, INSERT_FIELDS);
    if (isPlainObject(value) && Array.isArray(value.rows)) {
      const rows: unknown[] = value.rows;
      light = {
        ...value,
        rows: rows.map((row, i) => {
          if (!isPlainObject(row)) return row;
          refuseExtraKeys(row, ROW_FIELDS, `rows[${i}]`);
          let lifted = row;
          if (Array.isArray(row.embedding)) {
            embeddings.set(i, row.embedding);
            lifted = { ...lifted, embedding: [] };
          }
          if (isPlainObject(row.metadata)) {
            const problem = inspectInput(row.metadata, `rows[${i}].metadata`);
            if (problem) throw problem;
            metadata.set(i, row.metadata);
            lifted = { ...lifted, metadata: {} };
          }
          return lifted;
        }),
      };
    }
    const dto = await this.validate(light);
    dto.rows.forEach((row, i) => {
      const embedding = embeddings.get(i);
      if (embedding !== undefined) row.embedding = embedding;
      const meta = metadata.get(i);
      if (meta !== undefined) row.metadata = meta;
    });
    return dto;
  }
}

/** An InsertVectorsDto carrying the parsed rows (checkRows reads them); `rows` as objects only if someone asks. */
function dtoOf(parsed: ParsedRows): InsertVectorsDto {
  const dto = withParsedRows(new InsertVectorsDto(), parsed);
  let rows: VectorRowDto[] | undefined;
  Object.defineProperty(dto, 'rows', {
    enumerable: true,
    get: () =>
      (rows ??= parsed.ids.map((id, i) =>
        Object.assign(new VectorRowDto(), {
          id,
          embedding: Array.from(parsed.vectors.subarray(parsed.offsets[i], parsed.offsets[i + 1])),
          ...(parsed.metadata[i] === undefined ? {} : { metadata: parsed.metadata[i] }),
        }),
      )),
    set: (value: VectorRowDto[]) => {
      rows = value;
    },
  });
  return dto;
}
