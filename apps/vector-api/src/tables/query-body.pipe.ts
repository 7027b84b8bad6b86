import { PlatformValidationPipe } from '@app/platform';
import { Injectable, type PipeTransform } from '@nestjs/common';
import { checkFilterLimits } from '../engine/filter-limits';
import { VectorError } from '../errors';
import { MAX_DIMENSION } from './dto/table.dto';
import { QueryDto } from './dto/vectors.dto';
import { isPlainObject, refuseExtraKeys } from './raw-body';

const QUERY_FIELDS: ReadonlySet<string> = new Set(['vector', 'n', 'filter', 'index']);

/**
 * Validates a query body like the platform's pipe, after checks in time linear in what
 * they admit, so no part of the body can make validation itself slow: the filter's size
 * limits (MAX_FILTER, 400 `filter_too_complex`), the number of top-level keys, and the
 * length of `vector` (no table has more than MAX_DIMENSION dimensions). Used with
 * `@RawBody`, since the global pipe would run first on `@Body`.
 */
@Injectable()
export class QueryBodyPipe implements PipeTransform<unknown, Promise<QueryDto>> {
  private readonly inner = new PlatformValidationPipe();

  async transform(value: unknown): Promise<QueryDto> {
    if (isPlainObject(value)) {
      refuseExtraKeys(value, QUERY_FIELDS);
      if (value.filter !== undefined) {
        const tooLarge = checkFilterLimits(value.filter);
        if (tooLarge) throw new VectorError('filter_too_complex', tooLarge.message, { param: tooLarge.path });
      }
      if (Array.isArray(value.vector) && value.vector.length > MAX_DIMENSION) {
        throw new VectorError(
          'dimension_mismatch',
          `vector has ${value.vector.length} values; no table has more than ${MAX_DIMENSION} dimensions.`,
          { param: 'vector' },
        );
      }
    }
    return (await this.inner.transform(value, { type: 'body', metatype: QueryDto, data: undefined })) as QueryDto;
  }
}
