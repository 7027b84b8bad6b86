import type { BatchQueryResponseDto, QueryResponseDto, QueryResultItemDto } from './dto/vectors.dto';

/**
 * The query answer's JSON, written by a serializer compiled by hand from its schema
 * (QueryResponseDto, BatchQueryResponseDto; issue 32, "serialize responses through a
 * compiled schema"): the envelope, each hit's `id` and `score` are written directly in the
 * schema's order, and only the free-form values (a hit's `metadata`, its `embedding`) go
 * through JSON.stringify, which writes an arbitrary object faster than anything compiled.
 *
 * Like a schema serializer, it writes the schema's properties only. For an answer the
 * service builds (exactly those properties, in that order), the bytes are exactly
 * JSON.stringify's (a property test checks it): a string through JSON.stringify, a number
 * as JSON writes it (`null` when not finite), a property whose value is undefined left out.
 */

const number = (x: number): string => (Number.isFinite(x) ? `${x}` : 'null');

function hit(h: QueryResultItemDto): string {
  let s = `{"id":${JSON.stringify(h.id)},"score":${number(h.score)}`;
  if (h.metadata !== undefined) s += `,"metadata":${JSON.stringify(h.metadata)}`;
  if (h.embedding !== undefined) s += `,"embedding":${JSON.stringify(h.embedding)}`;
  return `${s}}`;
}

function hits(list: readonly QueryResultItemDto[]): string {
  let s = '[';
  for (let i = 0; i < list.length; i++) s += i === 0 ? hit(list[i]) : `,${hit(list[i])}`;
  return `${s}]`;
}

/** JSON of one query's answer or a batch's (`results` of lists), as JSON.stringify writes it. */
export function queryAnswerJson(answer: QueryResponseDto | BatchQueryResponseDto): string {
  const results = answer.results as ReadonlyArray<QueryResultItemDto | readonly QueryResultItemDto[]>;
  let s = '{"results":[';
  for (let i = 0; i < results.length; i++) {
    const r = results[i];
    if (i > 0) s += ',';
    s += Array.isArray(r) ? hits(r as readonly QueryResultItemDto[]) : hit(r as QueryResultItemDto);
  }
  return `${s}],"latency_ms":${number(answer.latency_ms)}}`;
}
