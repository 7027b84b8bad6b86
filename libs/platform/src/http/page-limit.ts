import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * A list's `limit` query parameter: an integer from 1 to `max` (100 in every list of the
 * contract; 101 → 400), documented with its default. The default itself is applied where the
 * list is read (each contract has its own, e.g. 20 or 10).
 */
export function PageLimit(defaultValue: number, max = 100): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: max, default: defaultValue }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(max),
  );
}
