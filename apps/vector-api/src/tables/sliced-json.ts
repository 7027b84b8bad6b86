import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';
import { map, type Observable } from 'rxjs';
import { queryAnswerJson } from './answer-json';
import type { BatchQueryResponseDto, QueryResponseDto } from './dto/vectors.dto';

/**
 * Large answers written in slices (issue 31, "Large answers starve everyone else"): one
 * JSON.stringify of an 84 MB answer held the event loop for the whole string, and every
 * other tenant's request waited. An answer the service measured (withAnswerSize) at
 * STREAM_FROM_BYTES or more is sent as a stream of ~SLICE_BYTES pieces, the event loop
 * getting a turn between them; the bytes are exactly JSON.stringify's (only the framing
 * differs: chunked, without Content-Length). Smaller answers go the usual way.
 */
export const STREAM_FROM_BYTES = 256 * 1024;
const SLICE_BYTES = 64 * 1024;
/** Levels split into pieces (answer → results → a query's hits); deeper values are stringified whole. */
const SPLIT_DEPTH = 3;

const answerSizes = new WeakMap<object, number>();

/** Records the estimated size of an answer in bytes, for SlicedJsonInterceptor; returns the answer. */
export function withAnswerSize<T extends object>(answer: T, bytes: number): T {
  answerSizes.set(answer, bytes);
  return answer;
}

const omitted = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** JSON.stringify(value) in pieces whose concatenation is exactly it (for JSON data: plain objects, arrays, scalars). */
export function* jsonPieces(value: unknown, depth = SPLIT_DEPTH): Generator<string> {
  if (
    depth === 0 ||
    value === null ||
    typeof value !== 'object' ||
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) {
      if (i > 0) yield ',';
      yield* jsonPieces(omitted(items[i]) ? null : items[i], depth - 1);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [key, v] of Object.entries(value)) {
    if (omitted(v)) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonPieces(v, depth - 1);
  }
  yield '}';
}

/** The pieces joined into slices of about SLICE_BYTES, giving the event loop a turn before each. */
async function* slices(value: unknown): AsyncGenerator<string> {
  let parts: string[] = [];
  let length = 0;
  for (const piece of jsonPieces(value)) {
    parts.push(piece);
    length += piece.length;
    if (length >= SLICE_BYTES) {
      yield parts.join('');
      parts = [];
      length = 0;
      await nextTurn();
    }
  }
  if (parts.length > 0) yield parts.join('');
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends answers the service measured as large in slices (see the module comment). */
@Injectable()
export class SlicedJsonInterceptor implements NestInterceptor {
  /** The route's compiled serializer for an answer sent whole; JSON.stringify (Fastify's default) without one. */
  protected serializer(): ((body: object) => string) | undefined {
    return undefined;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const serialize = this.serializer();
    return next.handle().pipe(
      map((body: unknown) => {
        if (typeof body !== 'object' || body === null) return body;
        const bytes = answerSizes.get(body);
        if (bytes === undefined || bytes < STREAM_FROM_BYTES) {
          if (serialize !== undefined) {
            // Fastify calls a reply's serializer instead of JSON.stringify; anything else sent on
            // this reply (nothing, unless a later step replaced the answer) still gets JSON.stringify.
            const reply = context.switchToHttp().getResponse<FastifyReply>();
            reply
              .type(JSON_TYPE)
              .serializer((payload: unknown) => (payload === body ? serialize(body) : JSON.stringify(payload)));
          }
          return body;
        }
        return new StreamableFile(Readable.from(slices(body), { objectMode: false }), { type: JSON_TYPE });
      }),
    );
  }
}

/**
 * POST …/query: a whole answer written by its compiled serializer (answer-json.ts), a large
 * one in slices as every SlicedJsonInterceptor route.
 */
@Injectable()
export class QueryAnswerInterceptor extends SlicedJsonInterceptor {
  protected override serializer(): (body: object) => string {
    return (body) => queryAnswerJson(body as QueryResponseDto | BatchQueryResponseDto);
  }
}
