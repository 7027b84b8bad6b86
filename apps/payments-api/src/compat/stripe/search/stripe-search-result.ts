import { invalidRequest, missingParam } from '../stripe-error';
import type { StripeParams } from '../stripe-params';
import {
  MAX_QUERY_LENGTH,
  parseSearchQuery,
  type SearchFields,
  type SearchQuery,
  SearchSyntaxError,
} from './stripe-search-query';

/** Stripe's search answer (what the SDK's search auto-pagination reads: has_more and next_page). */
export interface StripeSearchResult<T> {
  readonly object: 'search_result';
  readonly data: T[];
  readonly has_more: boolean;
  readonly next_page: string | null;
  readonly url: string;
  /** only with expand[]=total_count (capped at 10,000, as Stripe's) */
  readonly total_count?: number;
}

/** The parameters every search takes: query (required), limit (1–100, default 10), page, expand. */
export interface SearchParams {
  readonly text: string;
  readonly query: SearchQuery;
  readonly limit: number;
  readonly page?: string;
  readonly totalCount: boolean;
  /** expand[] paths other than total_count (data.<field>) */
  readonly expand: string[];
}

/** Reads a search's parameters; a query that does not parse is a 400 naming the position. Calls p.done(). */
export function searchParams(p: StripeParams, fields: SearchFields): SearchParams {
  const text = p.string('query', { max: MAX_QUERY_LENGTH });
  const limit = p.integer('limit', { min: 1, max: 100 }) ?? 10;
  const page = p.string('page', { max: 1000 });
  const expand = p.expand();
  // an unknown parameter is named before a missing query, as on every other route
  p.done();
  if (text === undefined) throw missingParam('query');
  let query: SearchQuery;
  try {
    query = parseSearchQuery(text, fields);
  } catch (err) {
    if (err instanceof SearchSyntaxError) throw invalidRequest(`${err.message}.`, { code: 'parameter_invalid', param: 'query' });
    throw err;
  }
  return {
    text,
    query,
    limit,
    ...(page === undefined ? {} : { page }),
    totalCount: expand.includes('total_count'),
    expand: expand.filter((x) => x !== 'total_count'),
  };
}

export function searchSchema(item: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['object', 'data', 'has_more', 'next_page', 'url'],
    properties: {
      object: { type: 'string', enum: ['search_result'] },
      data: { type: 'array', items: item },
      has_more: { type: 'boolean' },
      next_page: { type: 'string', nullable: true, description: 'pass as page for the next page (null: no more)' },
      url: { type: 'string' },
      total_count: { type: 'integer', description: 'with expand[]=total_count: the matches, counted up to 10,000' },
    },
  };
}
