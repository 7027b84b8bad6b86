import { PlatformValidationPipe } from '@app/platform';
import { Injectable, type PipeTransform, type Type } from '@nestjs/common';
import { checkFilterLimits } from '../engine/filter-limits';
import { VectorError } from '../errors';
import { MAX_DIMENSION } from './dto/table.dto';
import { MAX_QUERIES_PER_BATCH, QueryDto } from './dto/vectors.dto';
import { isPlainObject, KnownFieldsPipe, refuseExtraKeys } from './raw-body';
import { allFloat32 } from './row-rules';

const QUERY_FIELDS: ReadonlySet<string> = new Set([
  'vector',
  'n',
  'filter',
  'index',
  'queries',
  'include_values',
  'include_metadata',
]);
const BATCH_ITEM_FIELDS: ReadonlySet<string> = new Set(['vector', 'n', 'filter']);

/** 400 filter_too_complex before anything walks a filter over its size limits. */
function checkFilter(filter: unknown, path: string): void {
  if (filter === undefined) return;
  const tooLarge = checkFilterLimits(filter, path);
  if (tooLarge) throw new VectorError('filter_too_complex', tooLarge.message, { param: tooLarge.path });
}

/** No table has more than MAX_DIMENSION dimensions: a longer vector is refused before it is validated. */
function checkVectorLength(vector: unknown, path: string): void {
  if (Array.isArray(vector) && vector.length > MAX_DIMENSION) {
    throw new VectorError(
      'dimension_mismatch',
      `${path} has ${vector.length} values; no table has more than ${MAX_DIMENSION} dimensions.`,
      { param: path },
    );
  }
}

/**
 * The checks in time linear in what they admit, before the platform's pipe walks the body:
 * unknown keys, each filter's size limits (MAX_FILTER, 400 `filter_too_complex`), the
 * number of queries and the length of each vector.
 */
export function checkQueryBody(value: Record<string, unknown>): void {
  refuseExtraKeys(value, QUERY_FIELDS);
  checkFilter(value.filter, 'filter');
  checkVectorLength(value.vector, 'vector');
  // The pipe's own size check comes after it has walked the array: refuse a huge batch first.
  if (Array.isArray(value.queries) && value.queries.length <= MAX_QUERIES_PER_BATCH) {
    value.queries.forEach((q: unknown, i: number) => {
      if (!isPlainObject(q)) return;
      refuseExtraKeys(q, BATCH_ITEM_FIELDS, `queries[${i}]`);
      checkFilter(q.filter, `queries[${i}].filter`);
      checkVectorLength(q.vector, `queries[${i}].vector`);
    });
  } else if (Array.isArray(value.queries)) {
    throw new VectorError('parameter_invalid', `queries must contain no more than ${MAX_QUERIES_PER_BATCH} elements.`, {
      param: 'queries',
    });
  }
}

/** What the platform's pipe sees instead of a vector already checked (IsArray holds for it as for the vector). */
const CHECKED: readonly number[] = Object.freeze([]);

/**
 * The body with each vector that holds only finite float32 numbers replaced by an empty
 * array, and those vectors (null where a query's was left as sent). Such a vector passes
 * every check of the platform's pipe whatever its values (IsArray, the input walk, which
 * looks for strings, depth and keys), so the pipe need not walk it: the walk cost an object
 * and a path string per value, class-transformer's copy a call per value. Any other vector
 * is left in place and the pipe answers for it exactly as before.
 */
function setVectorsAside(body: Record<string, unknown>): {
  body: Record<string, unknown>;
  vector: number[] | null;
  queries: Array<number[] | null> | null;
} {
  let vector: number[] | null = null;
  let queries: Array<number[] | null> | null = null;
  let copy = body;
  if (Array.isArray(body.vector) && allFloat32(body.vector)) {
    vector = body.vector;
    copy = { ...body, vector: CHECKED };
  }
  if (Array.isArray(body.queries)) {
    const items = body.queries as unknown[];
    const aside: Array<number[] | null> = new Array<number[] | null>(items.length).fill(null);
    const replaced = items.map((q, i) => {
      if (!isPlainObject(q) || !Array.isArray(q.vector) || !allFloat32(q.vector)) return q;
      aside[i] = q.vector;
      return { ...q, vector: CHECKED };
    });
    if (aside.some((v) => v !== null)) {
      queries = aside;
      copy = { ...copy, queries: replaced };
    }
  }
  return { body: copy, vector, queries };
}

/**
 * Validates a query body (one query or a batch) like the platform's pipe, after checks in
 * time linear in what they admit, so no part of the body can make validation itself slow:
 * each filter's size limits (MAX_FILTER, 400 `filter_too_complex`), the number of keys, the
 * number of queries and the length of each vector. Used with `@RawBody`, since the global
 * pipe would run first on `@Body`. Vectors of finite float32 numbers are checked in one
 * pass here and set aside while the platform's pipe validates the rest of the body's shape
 * (setVectorsAside); the DTO it returns holds them as sent.
 */
@Injectable()
export class QueryBodyPipe implements PipeTransform<unknown, Promise<QueryDto>> {
  private readonly inner = new PlatformValidationPipe();

  async transform(value: unknown): Promise<QueryDto> {
    if (isPlainObject(value)) {
      checkQueryBody(value);
      const aside = setVectorsAside(value);
      const dto = (await this.inner.transform(aside.body, { type: 'body', metatype: QueryDto, data: undefined })) as QueryDto;
      if (aside.vector !== null) dto.vector = aside.vector;
      if (aside.queries !== null && dto.queries) {
        for (let i = 0; i < dto.queries.length; i++) {
          const v = aside.queries[i];
          if (v !== null && v !== undefined) dto.queries[i].vector = v;
        }
      }
      return dto;
    }
    return (await this.inner.transform(value, { type: 'body', metatype: QueryDto, data: undefined })) as QueryDto;
  }
}

/**
 * A flat body with an optional `filter` (delete by filter, count): unknown keys and a filter
 * over its size limits are refused before the platform's pipe validates the rest.
 */
export function filterBodyPipe<T extends object>(
  metatype: Type<T>,
  fields: ReadonlyArray<keyof T & string>,
  optional = false,
): KnownFieldsPipe<T> {
  return new KnownFieldsPipe(metatype, fields, { optional, check: (body) => checkFilter(body.filter, 'filter') });
}
