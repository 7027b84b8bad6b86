import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { DomainError } from '@app/platform';

/** Stripe-style list parameters: `limit` 1–100 (default 10), `starting_after` / `ending_before` cursors. */
export class ListQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 10 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'An object id: return objects created before it (the next page).' })
  @IsOptional()
  @IsString()
  starting_after?: string;

  @ApiPropertyOptional({ description: 'An object id: return objects created after it (the previous page).' })
  @IsOptional()
  @IsString()
  ending_before?: string;
}

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

/** Keyset position of an object in a newest-first list. */
export interface Cursor {
  readonly createdAt: Date;
  readonly id: string;
}

export interface PageRequest {
  readonly limit: number;
  readonly after?: Cursor;
  readonly before?: Cursor;
}

export function pageRequest(query: ListQuery, resolve: { after?: Cursor | null; before?: Cursor | null }): PageRequest {
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw new DomainError('parameter_invalid', 'starting_after and ending_before cannot be used together.', {
      param: 'ending_before',
    });
  }
  return {
    limit: query.limit ?? 10,
    ...(resolve.after ? { after: resolve.after } : {}),
    ...(resolve.before ? { before: resolve.before } : {}),
  };
}

/**
 * Prisma `where`/`orderBy` for a newest-first keyset page. `ending_before` reads the rows
 * just newer than the cursor in ascending order; `page()` puts them back newest first.
 */
export function keyset(page: PageRequest): {
  where: object;
  orderBy: Array<Record<string, 'asc' | 'desc'>>;
  take: number;
} {
  if (page.before) {
    const c = page.before;
    return {
      where: { OR: [{ createdAt: { gt: c.createdAt } }, { createdAt: c.createdAt, id: { gt: c.id } }] },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.limit + 1,
    };
  }
  const where = page.after
    ? { OR: [{ createdAt: { lt: page.after.createdAt } }, { createdAt: page.after.createdAt, id: { lt: page.after.id } }] }
    : {};
  return { where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: page.limit + 1 };
}

export function page<Row, T>(rows: Row[], request: PageRequest, url: string, view: (row: Row) => T): ListEnvelope<T> {
  const hasMore = rows.length > request.limit;
  const slice = rows.slice(0, request.limit);
  if (request.before) slice.reverse();
  return { object: 'list', data: slice.map(view), has_more: hasMore, url };
}

export function missingCursor(resource: string, id: string, param: 'starting_after' | 'ending_before'): DomainError {
  return new DomainError('resource_missing', `No such ${resource}: '${id}'`, { param, status: 400 });
}
