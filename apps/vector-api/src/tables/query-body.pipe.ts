import { PlatformValidationPipe } from '@app/platform';
import { Injectable, type PipeTransform, type Type } from '@nestjs/common';
import { checkFilterLimits } from '../engine/filter-limits';
import { VectorError } from '../errors';
import { MAX_DIMENSION } from './dto/table.dto';
import { MAX_QUERIES_PER_BATCH, QueryDto } from './dto/vectors.dto';
import { isPlainObject, KnownFieldsPipe, refuseExtraKeys } from './raw-body';

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
 * Validates a query body (one query or a batch) like the platform's pipe, after checks in
 * time linear in what they admit, so no part of the body can make validation itself slow:
 * each filter's size limits (MAX_FILTER, 400 `filter_too_complex`), the number of keys, the
 * number of queries and the length of each vector. Used with `@RawBody`, since the global
 * pipe would run first on `@Body`.
 */
@Injectable()
export class QueryBodyPipe implements PipeTransform<unknown, Promise<QueryDto>> {
  private readonly inner = new PlatformValidationPipe();

  async transform(value: unknown): Promise<QueryDto> {
    if (isPlainObject(value)) {
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
