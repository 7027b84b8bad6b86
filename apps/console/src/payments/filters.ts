import type { Query } from '../api';

/**
 * Date inputs (YYYY-MM-DD, read as UTC days) → `created[gte]` / `created[lte]`: from the start
 * of the first day to the end of the last.
 */
export function createdRange(from: string | undefined, to: string | undefined): Query {
  return {
    'created[gte]': from ? `${from}T00:00:00.000Z` : undefined,
    'created[lte]': to ? `${to}T23:59:59.999Z` : undefined,
  };
}
