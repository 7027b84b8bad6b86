import { type ReactNode, useEffect, useState } from 'react';
import { type ApiError, type ConsoleSessionInfo, get, getConsoleMode, post, setConsoleMode, setCsrfToken } from './api';
import type { ConsoleDefinition } from './console-types';
import { ErrorBanner, Loading, Page } from './components/ui';
import { offersConsole } from './offers';
import { paymentsConsole } from './payments';
import { Link, navigate, Router, useLocation } from './router';
import { vectorConsole } from './vector';

const CONSOLES: Record<ConsoleSessionInfo['service'], ConsoleDefinition> = {
  'offers-api': offersConsole,
  'vector-api': vectorConsole,
  'payments-api': paymentsConsole,
};

type State =
  | { readonly kind: 'loading' }
  | { readonly kind: 'signed-in'; readonly session: ConsoleSessionInfo }
  | { readonly kind: 'signed-out'; readonly error?: ApiError; readonly reason: 'no-session' | 'link' | 'signed-out' };

/** The whole console: signs in with the link in the URL fragment, then shows the service's console. */
export function App(): ReactNode {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const { path } = useLocation();

  useEffect(() => {
    let cancelled = false;
    const start = async (): Promise<void> => {
      const token = /(?:^|&)token=([^&]+)/.exec(window.location.hash.slice(1))?.[1];
      if (path === '/sign-in' && token) {
        // the fragment never reaches a server; drop it from the address bar and history at once
        window.history.replaceState(null, '', window.location.pathname);
        try {
          const session = await post<ConsoleSessionInfo>('/console/sign-in', { token });
          if (cancelled) return;
          setCsrfToken(session.csrf_token);
          setState({ kind: 'signed-in', session });
          navigate(CONSOLES[session.service].home, { replace: true });
        } catch (err) {
          if (!cancelled) setState({ kind: 'signed-out', reason: 'link', error: err as ApiError });
        }
        return;
      }
      try {
        const session = await get<ConsoleSessionInfo>('/console/session');
        if (cancelled) return;
        setCsrfToken(session.csrf_token);
        setState({ kind: 'signed-in', session });
        if (path === '/' || path === '/sign-in') navigate(CONSOLES[session.service].home, { replace: true });
      } catch (err) {
        if (!cancelled) setState({ kind: 'signed-out', reason: 'no-session', error: err as ApiError });
      }
    };
    void start();
    return () => {
      cancelled = true;
    };
    // runs once: later navigation happens inside the signed-in console
    // (a sign-in link opened in a signed-in tab reloads the page, which runs this again)
  }, []);

  if (state.kind === 'loading') return <Loading label="Opening the console…" />;
  if (state.kind === 'signed-out') return <SignedOut reason={state.reason} error={state.error} />;
  return <Shell session={state.session} onSignedOut={() => setState({ kind: 'signed-out', reason: 'signed-out' })} />;
}

function SignedOut({ reason, error }: { reason: 'no-session' | 'link' | 'signed-out'; error?: ApiError }): ReactNode {
  const title =
    reason === 'link'
      ? 'This sign-in link cannot be used'
      : reason === 'signed-out'
        ? 'You are signed out'
        : 'Sign in to the console';
  return (
    <main id="main" className="signed-out">
      <Page title={title}>
        {reason === 'link' ? <ErrorBanner error={error} title="The link was refused" /> : null}
        {reason === 'signed-out' ? (
          <p>Your session has ended on the server. Close this tab, or open a new sign-in link.</p>
        ) : null}
        {reason === 'no-session' ? (
          <>
            <p>The console opens with a one-time sign-in link from your operator (it is valid for 15 minutes and works once).</p>
            {error && error.code !== 'console_session_invalid' ? <ErrorBanner error={error} /> : null}
          </>
        ) : null}
      </Page>
    </main>
  );
}

function Shell({ session, onSignedOut }: { session: ConsoleSessionInfo; onSignedOut: () => void }): ReactNode {
  const definition = CONSOLES[session.service];
  const { path } = useLocation();
  const [signOutError, setSignOutError] = useState<ApiError | undefined>();
  const [mode, setMode] = useState(getConsoleMode());
  const signOut = async (): Promise<void> => {
    try {
      await post('/console/sign-out', {});
      onSignedOut();
    } catch (err) {
      setSignOutError(err as ApiError);
    }
  };
  const switchMode = (next: 'test' | 'live'): void => {
    setConsoleMode(next);
    setMode(next);
    navigate(definition.home);
  };
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">{definition.title}</span>
        <span className="tenant" title={session.tenant.id}>
          {session.tenant.name}
        </span>
        {session.service === 'payments-api' ? (
          <div className="mode-toggle" role="group" aria-label="Mode">
            {(['test', 'live'] as const).map((m) => (
              <button
                key={m}
                type="button"
                className={`button ${m === mode ? '' : 'secondary'}`}
                aria-pressed={m === mode}
                onClick={() => switchMode(m)}
              >
                {m === 'test' ? 'Test mode' : 'Live mode'}
              </button>
            ))}
          </div>
        ) : null}
        <button type="button" className="button secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav className="sidebar" aria-label="Console">
        <ul>
          {definition.nav.map((item) => {
            const current = path === item.to || (item.prefix !== undefined && path.startsWith(item.prefix));
            return (
              <li key={item.to}>
                <Link to={item.to} aria-current={current ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <ErrorBanner error={signOutError} title="Sign-out failed" />
        <Router
          routes={definition.routes}
          fallback={
            <Page title="Page not found">
              <p>
                There is no such page. <Link to={definition.home}>Go to the start page</Link>.
              </p>
            </Page>
          }
        />
      </main>
    </div>
  );
}
