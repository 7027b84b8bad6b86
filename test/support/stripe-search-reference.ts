/**
 * An obviously correct, in-memory reading of Stripe's search query language (docs/stripe.md,
 * "Search") that the `/v1/…/search` routes' SQL is compared with. It shares nothing with
 * apps/payments-api/src/compat/stripe/search/stripe-search-sql.ts but the parsed query's type.
 */
import type { SearchClause, SearchQuery } from '../../apps/payments-api/src/compat/stripe/search/stripe-search-query';

/** One searchable object: its fields (text, integers, null when empty), created (ms) and metadata. */
export interface SearchRecord {
  readonly id: string;
  readonly createdMs: number;
  readonly fields: Readonly<Record<string, string | number | null>>;
  readonly metadata: Readonly<Record<string, string>>;
}

function matches(record: SearchRecord, clause: SearchClause): boolean {
  const raw: string | number | null =
    clause.field === 'metadata'
      ? (record.metadata[clause.key ?? ''] ?? null)
      : clause.field === 'created'
        ? Math.floor(record.createdMs / 1000)
        : (record.fields[clause.field] ?? null);
  const v = clause.value;
  if (v.kind === 'null') return raw === null;
  if (raw === null) return false;
  if (v.kind === 'number') {
    if (typeof raw !== 'number') return false;
    switch (clause.operator) {
      case '>':
        return raw > v.value;
      case '>=':
        return raw >= v.value;
      case '<':
        return raw < v.value;
      case '<=':
        return raw <= v.value;
      case ':':
      case '~':
        return raw === v.value;
    }
  }
  const have = String(raw).toLowerCase();
  const want = v.value.toLowerCase();
  return clause.operator === '~' ? have.includes(want) : have === want;
}

/** The ids of the records the query finds, newest first (ties: the greater id first), as the routes answer. */
export function referenceSearch(records: readonly SearchRecord[], query: SearchQuery): string[] {
  const hit = (r: SearchRecord): boolean => {
    const each = query.clauses.map((c) => matches(r, c) !== c.negated);
    return query.combinator === 'AND' ? each.every(Boolean) : each.some(Boolean);
  };
  return records
    .filter(hit)
    .sort((a, b) => b.createdMs - a.createdMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((r) => r.id);
}
