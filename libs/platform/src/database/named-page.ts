import { Prisma } from './generated/client';
import { likePrefixPattern } from '../http/name-prefix';

/** A row's place in a newest-first list: `(created_at, id)`, the keyset of the operator's tenant lists. */
export interface KeysetCursor {
  readonly createdAt: Date;
  readonly id: string;
}

/** Which rows of an operator's tenant list a page reads: after or before a cursor, names starting with a prefix. */
export interface NamedPageFilter {
  readonly namePrefix?: string;
  readonly after?: KeysetCursor;
  readonly before?: KeysetCursor;
}

/**
 * The WHERE clause (or nothing) of a page of an operator's tenant list, over the table aliased
 * `alias` with `name`, `created_at` and `id` columns: the name starts with `namePrefix` ignoring
 * case (`lower(name) LIKE lower(pattern)`, which a `lower(name) text_pattern_ops` index serves),
 * and `(created_at, id)` is below `after` / above `before`. Every value is a bound parameter;
 * `alias` is one of the literal aliases the callers' statements use.
 */
export function namedPageWhere(alias: 'a' | 'p', filter: NamedPageFilter): Prisma.Sql {
  const t = Prisma.raw(alias);
  const conditions: Prisma.Sql[] = [];
  if (filter.namePrefix !== undefined) {
    conditions.push(Prisma.sql`lower(${t}.name) LIKE lower(${likePrefixPattern(filter.namePrefix)})`);
  }
  if (filter.after !== undefined) {
    conditions.push(Prisma.sql`(${t}.created_at, ${t}.id) < (${filter.after.createdAt}::timestamptz, ${filter.after.id})`);
  }
  if (filter.before !== undefined) {
    conditions.push(Prisma.sql`(${t}.created_at, ${t}.id) > (${filter.before.createdAt}::timestamptz, ${filter.before.id})`);
  }
  return conditions.length === 0 ? Prisma.empty : Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}`;
}
