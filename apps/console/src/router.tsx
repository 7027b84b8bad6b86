import { type AnchorHTMLAttributes, type MouseEvent, type ReactNode, useEffect, useState } from 'react';

/** Every console path is under this base (the service serves index.html for all of them). */
export const BASE = '/console';

/** The path inside the console: `/console/offers/x` → `/offers/x`. */
function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

const listeners = new Set<() => void>();

/** Goes to a console path (`/offers/x?y=1`) without reloading. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${to}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

/** The current console path and query; re-renders on navigation and on back/forward. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = (): void => setTick((n) => n + 1);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return { path: currentPath(), query: new URLSearchParams(window.location.search) };
}

/** A route: a pattern like `/offers/:id` and what renders it with its parameters. */
export interface Route {
  readonly path: string;
  readonly render: (params: Record<string, string>) => ReactNode;
}

/** The parameters of `path` matched against `pattern`, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/').filter(Boolean);
  const b = path.split('/').filter(Boolean);
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    const p = a[i];
    const v = b[i];
    if (p.startsWith(':')) params[p.slice(1)] = decodeURIComponent(v);
    else if (p !== v) return null;
  }
  return params;
}

export function Router({ routes, fallback }: { routes: readonly Route[]; fallback: ReactNode }): ReactNode {
  const { path } = useLocation();
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params) return route.render(params);
  }
  return fallback;
}

/** An in-console link: a real <a href> (keyboard, open in new tab) that navigates without reloading. */
export function Link({
  to,
  children,
  ...rest
}: { to: string; children: ReactNode } & AnchorHTMLAttributes<HTMLAnchorElement>): ReactNode {
  const onClick = (event: MouseEvent<HTMLAnchorElement>): void => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={`${BASE}${to}`} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
