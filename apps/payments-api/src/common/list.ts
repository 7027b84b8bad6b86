import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { type ApiErrorRef, PageLimit } from '@app/platform';
import { PaymentsError } from '../errors';

/** Stripe-style list parameters: `limit` 1–100 (default 10), `starting_after` / `ending_before` cursors. */
export class ListQuery {
  @PageLimit(10)
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

/** What a list's parameters can be refused with besides their schema (resolvePage): `@ApiErrors(...LIST_ERRORS)`. */
export const LIST_ERRORS: readonly ApiErrorRef[] = [
  { code: 'resource_missing', status: 400, when: 'starting_after or ending_before names no object of yours' },
  { code: 'parameter_invalid', when: 'starting_after with ending_before' },
];

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

/**
 * Turns list parameters into a page request, resolving the cursor ids through `cursorOf`
 * (which only finds the caller's own objects); an unknown cursor is a 400 naming it.
 */
export async function resolvePage(
  query: ListQuery,
  resource: string,
  cursorOf: (id: string) => Promise<Cursor | null>,
): Promise<PageRequest> {
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw new PaymentsError('parameter_invalid', 'starting_after and ending_before cannot be used together.', {
      param: 'ending_before',
    });
  }
  const resolve = async (id: string | undefined, param: 'starting_after' | 'ending_before'): Promise<Cursor | undefined> => {
    if (id === undefined) return undefined;
    const cursor = await cursorOf(id);
    if (!cursor) throw new PaymentsError('resource_missing', `No such ${resource}: '${id}'`, { param, status: 400 });
    return cursor;
  };
  const after = await resolve(query.starting_after, 'starting_after');
  const before = await resolve(query.ending_before, 'ending_before');
  return { limit: query.limit ?? 10, ...(after ? { after } : {}), ...(before ? { before } : {}) };
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
