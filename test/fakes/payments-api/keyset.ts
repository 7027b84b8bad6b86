import type { Cursor, PageRequest } from '../../../apps/payments-api/src/common/list';

const ascending = (a: Cursor, b: Cursor): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The rows a repository's keyset query returns (common/list.ts `keyset`): newest first after
 * `after`, or oldest first just newer than `before`; `limit + 1` rows so the caller sees `has_more`.
 */
export function keysetRows<R extends Cursor>(rows: readonly R[], page: PageRequest): R[] {
  const { before, after } = page;
  const selected = before
    ? rows.filter((r) => ascending(r, before) > 0).sort(ascending)
    : rows.filter((r) => !after || ascending(r, after) < 0).sort((a, b) => ascending(b, a));
  return selected.slice(0, page.limit + 1);
}
