import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, type ListPage } from './api';

export interface AsyncState<T> {
  readonly data: T | undefined;
  readonly error: ApiError | undefined;
  readonly loading: boolean;
  reload(): void;
}

function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'console_error', err instanceof Error ? err.message : String(err));
}

/** Runs `load` when `deps` change (and on reload()); the latest answer wins. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const run = useRef(0);
  useEffect(() => {
    const id = ++run.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => id === run.current && setState({ data, loading: false }),
      (err: unknown) => id === run.current && setState({ error: asApiError(err), loading: false }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** An action (a button's request): its running state and error, for forms and buttons. */
export function useAction<A extends unknown[], T>(
  action: (...args: A) => Promise<T>,
): { run: (...args: A) => Promise<T | undefined>; running: boolean; error: ApiError | undefined; clear(): void } {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = async (...args: A): Promise<T | undefined> => {
    setRunning(true);
    setError(undefined);
    try {
      return await action(...args);
    } catch (err) {
      setError(asApiError(err));
      return undefined;
    } finally {
      setRunning(false);
    }
  };
  return { run, running, error, clear: () => setError(undefined) };
}

export interface CursorList<T> extends AsyncState<ListPage<T>> {
  readonly page: number;
  readonly hasPrevious: boolean;
  readonly hasNext: boolean;
  next(): void;
  previous(): void;
}

/**
 * Cursor pagination over a Stripe-style list (`starting_after` = the last id of the page):
 * a stack of cursors so Previous goes back exactly. `resetKey` (e.g. the filters) starts over.
 */
export function useCursorList<T extends { id: string }>(
  fetchPage: (startingAfter: string | undefined) => Promise<ListPage<T>>,
  resetKey: string,
): CursorList<T> {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  useEffect(() => setCursors([undefined]), [resetKey]);
  const cursor = cursors[cursors.length - 1];
  const state = useAsync(() => fetchPage(cursor), [cursor, resetKey]);
  const last = state.data?.data[state.data.data.length - 1];
  return {
    ...state,
    page: cursors.length,
    hasPrevious: cursors.length > 1,
    hasNext: Boolean(state.data?.has_more && last),
    next: () => last && setCursors((c) => [...c, last.id]),
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
  };
}
