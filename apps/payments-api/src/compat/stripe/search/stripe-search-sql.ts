import { Prisma } from '@app/platform';
import type { SearchClause, SearchQuery, SearchValue } from './stripe-search-query';

/**
 * How a searchable field is read in SQL: `text` (compared case-insensitively), `integer`,
 * `time` (a timestamptz compared as whole Unix seconds, as `/v1` shows it), `metadata` (a jsonb
 * object searched by key), `none` (a field this API does not keep: always empty, e.g. a
 * customer's phone).
 */
export type SearchColumn =
  | { readonly kind: 'text'; readonly sql: Prisma.Sql }
  | { readonly kind: 'integer'; readonly sql: Prisma.Sql }
  | { readonly kind: 'time'; readonly sql: Prisma.Sql }
  | { readonly kind: 'metadata'; readonly sql: Prisma.Sql }
  | { readonly kind: 'none' };

export type SearchColumns = Readonly<Record<string, SearchColumn>>;

const TRUE = Prisma.sql`TRUE`;
const FALSE = Prisma.sql`FALSE`;

const second = (s: number): Date => new Date(s * 1000);

/** `col op n` on a time column, `n` in Unix seconds: the row's second (floor) compared with n, as index-friendly bounds. */
function timeClause(col: Prisma.Sql, op: SearchClause['operator'], n: number): Prisma.Sql {
  switch (op) {
    case '>':
      return Prisma.sql`${col} >= ${second(n + 1)}`;
    case '>=':
      return Prisma.sql`${col} >= ${second(n)}`;
    case '<':
      return Prisma.sql`${col} < ${second(n)}`;
    case '<=':
      return Prisma.sql`${col} < ${second(n + 1)}`;
    case ':':
    case '~': // (numbers take no ~: the parser refuses it)
      return Prisma.sql`(${col} >= ${second(n)} AND ${col} < ${second(n + 1)})`;
  }
}

function integerClause(col: Prisma.Sql, op: SearchClause['operator'], n: number): Prisma.Sql {
  switch (op) {
    case '>':
      return Prisma.sql`${col} > ${n}`;
    case '>=':
      return Prisma.sql`${col} >= ${n}`;
    case '<':
      return Prisma.sql`${col} < ${n}`;
    case '<=':
      return Prisma.sql`${col} <= ${n}`;
    case ':':
    case '~': // (numbers take no ~: the parser refuses it)
      return Prisma.sql`${col} = ${n}`;
  }
}

/** A nullable text expression matched by `:` (case-insensitive) or `~` (case-insensitive substring); NULL never matches. */
function textClause(expr: Prisma.Sql, op: SearchClause['operator'], value: SearchValue): Prisma.Sql {
  if (value.kind === 'null') return Prisma.sql`${expr} IS NULL`;
  const text = String(value.value);
  if (op === '~') return Prisma.sql`COALESCE(strpos(lower(${expr}), lower(${text}::text)) > 0, FALSE)`;
  return Prisma.sql`COALESCE(lower(${expr}) = lower(${text}::text), FALSE)`;
}

/** One clause, never NULL (so NOT of it is exactly "does not match"). The parser checked operator and value. */
function clauseSql(clause: SearchClause, columns: SearchColumns): Prisma.Sql {
  const column = columns[clause.field];
  if (column === undefined) throw new Error(`no column for search field ${clause.field}`);
  const { operator: op, value } = clause;
  let sql: Prisma.Sql;
  switch (column.kind) {
    case 'none':
      sql = value.kind === 'null' ? TRUE : FALSE;
      break;
    case 'metadata':
      sql = textClause(Prisma.sql`(${column.sql} ->> ${clause.key ?? ''}::text)`, op, value);
      break;
    case 'text':
      sql = textClause(column.sql, op, value);
      break;
    case 'integer':
      sql = value.kind === 'number' ? integerClause(column.sql, op, value.value) : FALSE;
      break;
    case 'time':
      sql = value.kind === 'number' ? timeClause(column.sql, op, value.value) : FALSE;
      break;
  }
  return clause.negated ? Prisma.sql`NOT (${sql})` : Prisma.sql`(${sql})`;
}

/** The query as one parameterized SQL condition over `columns` (every value a bind parameter). */
export function searchCondition(query: SearchQuery, columns: SearchColumns): Prisma.Sql {
  const parts = query.clauses.map((c) => clauseSql(c, columns));
  return Prisma.sql`(${Prisma.join(parts, query.combinator === 'AND' ? ' AND ' : ' OR ')})`;
}
