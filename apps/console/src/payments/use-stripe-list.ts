import { useEffect, useState } from 'react';
import type { ListPage } from '../api';
import { type CursorList, useAsync } from '../hooks';

export type PageCursor = { readonly starting_after: string } | { readonly ending_before: string } | Record<string, never>;

/** The same paging surface as useCursorList's (page, hasPrevious/hasNext, previous/next). */
export type StripeList<T> = CursorList<T>;

/**
 * A Stripe-style list paged both ways with the API's own cursors: Next asks for the page
 * `starting_after` the last object, Previous for the page `ending_before` the first one (so
 * objects created meanwhile show up when going back). `resetKey` (filters, mode) starts over.
 */
export function useStripeList<T extends { id: string }>(
  fetchPage: (cursor: PageCursor) => Promise<ListPage<T>>,
  resetKey: string,
): StripeList<T> {
  const [position, setPosition] = useState<{ cursor: PageCursor; page: number }>({ cursor: {}, page: 1 });
  useEffect(() => setPosition({ cursor: {}, page: 1 }), [resetKey]);
  const state = useAsync(() => fetchPage(position.cursor), [position, resetKey]);
  const rows = state.data?.data ?? [];
  const first = rows[0];
  const last = rows[rows.length - 1];
  const backwards = 'ending_before' in position.cursor;
  // going back: has_more says whether newer pages remain; the page we came from is older
  const hasPrevious = position.page > 1 && Boolean(first) && (!backwards || Boolean(state.data?.has_more));
  const hasNext = Boolean(last) && (backwards || Boolean(state.data?.has_more));
  return {
    ...state,
    page: position.page,
    hasPrevious,
    hasNext,
    next: () => last && setPosition((p) => ({ cursor: { starting_after: last.id }, page: p.page + 1 })),
    previous: () => first && setPosition((p) => ({ cursor: { ending_before: first.id }, page: Math.max(1, p.page - 1) })),
  };
}
