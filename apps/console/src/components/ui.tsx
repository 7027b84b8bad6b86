import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import type { ApiError } from '../api';
import { minorDigits } from './minor-digits';

/** A page: its heading (and the document title), actions beside it, then its content. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }): ReactNode {
  useEffect(() => {
    document.title = `${title} · Console`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** The API's error, as it said it (message, code, request id), announced to screen readers. */
export function ErrorBanner({ error, title }: { error: ApiError | undefined; title?: string }): ReactNode {
  if (!error) return null;
  return (
    <div className="banner banner-error" role="alert">
      <strong>{title ?? 'Something went wrong'}</strong>
      <p className="error-message">{error.message}</p>
      <p className="muted small">
        {error.code}
        {error.param ? ` · ${error.param}` : ''}
        {error.requestId ? ` · request ${error.requestId}` : ''}
      </p>
    </div>
  );
}

export function Notice({ children, tone = 'info' }: { children: ReactNode; tone?: 'info' | 'success' | 'warning' }): ReactNode {
  return (
    <div className={`banner banner-${tone}`} role="status">
      {children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }): ReactNode {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }): ReactNode {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children ? <div className="muted">{children}</div> : null}
    </div>
  );
}

/** Loading, error and empty states of one request, then its content. */
export function Async<T>({
  state,
  empty,
  children,
}: {
  state: { data: T | undefined; error: ApiError | undefined; loading: boolean };
  empty?: (data: T) => ReactNode | null;
  children: (data: T) => ReactNode;
}): ReactNode {
  if (state.error) return <ErrorBanner error={state.error} />;
  if (state.data === undefined) return <Loading />;
  const isEmpty = empty?.(state.data);
  return <div aria-busy={state.loading}>{isEmpty ?? children(state.data)}</div>;
}

export interface Column<T> {
  readonly header: string;
  readonly cell: (row: T) => ReactNode;
  readonly align?: 'right';
}

/** A table of rows with a caption (visually hidden unless shown) and header cells. */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  caption: string;
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
}): ReactNode {
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.align === 'right' ? 'num' : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.header} className={c.align === 'right' ? 'num' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Previous / Next for a cursor list. */
export function Pager({
  page,
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
  label = 'Pages',
}: {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  label?: string;
}): ReactNode {
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button secondary" onClick={onPrevious} disabled={!hasPrevious}>
        Previous
      </button>
      <span className="muted">Page {page}</span>
      <button type="button" className="button secondary" onClick={onNext} disabled={!hasNext}>
        Next
      </button>
    </nav>
  );
}

/** A labelled form field: the label is tied to the control by id. */
export function Field({
  label,
  hint,
  children,
}: {
  label: string;
  hint?: string;
  children: (props: { id: string; 'aria-describedby'?: string }) => ReactNode;
}): ReactNode {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(hint ? { 'aria-describedby': hintId } : {}) })}
      {hint ? (
        <p id={hintId} className="hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** A form that shows the API's error above its submit button and disables it while running. */
export function Form({
  onSubmit,
  submitLabel,
  running,
  error,
  children,
  label,
}: {
  onSubmit: () => void;
  submitLabel: string;
  running: boolean;
  error: ApiError | undefined;
  children: ReactNode;
  label: string;
}): ReactNode {
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form className="form" onSubmit={submit} aria-label={label} noValidate>
      {children}
      <ErrorBanner error={error} />
      <div className="form-actions">
        <button type="submit" className="button" disabled={running}>
          {running ? 'Working…' : submitLabel}
        </button>
      </div>
    </form>
  );
}

/** A modal dialog: focus moves in, Tab stays inside, Escape closes, focus returns to the opener. */
export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }): ReactNode {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  // the latest onClose, so that a parent passing a new function on each render does not re-run
  // the effect below (which would move the focus back to the first control at every keystroke)
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const dialog = ref.current;
    const focusables = (): HTMLElement[] =>
      dialog
        ? Array.from(
            dialog.querySelectorAll<HTMLElement>('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])'),
          ).filter((el) => !el.hasAttribute('disabled'))
        : [];
    (focusables()[0] ?? dialog)?.focus();
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') {
        event.preventDefault();
        close.current();
      } else if (event.key === 'Tab') {
        const items = focusables();
        const first = items[0];
        const last = items[items.length - 1];
        if (!first || !last) return;
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          first.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      opener?.focus();
    };
  }, []);
  return (
    <div className="modal-backdrop">
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={ref} tabIndex={-1}>
        <header className="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="button ghost" onClick={onClose} aria-label="Close">
            ×
          </button>
        </header>
        {children}
      </div>
    </div>
  );
}

/** A destructive action behind a confirmation dialog. */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  tone = 'danger',
}: {
  label: string;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  tone?: 'danger' | 'primary';
}): ReactNode {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [running, setRunning] = useState(false);
  const confirm = async (): Promise<void> => {
    setRunning(true);
    setError(undefined);
    try {
      await onConfirm();
      setOpen(false);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setRunning(false);
    }
  };
  return (
    <>
      <button type="button" className={`button ${tone === 'danger' ? 'danger' : 'secondary'}`} onClick={() => setOpen(true)}>
        {label}
      </button>
      {open ? (
        <Modal title={title} onClose={() => setOpen(false)}>
          <div className="modal-body">{message}</div>
          <ErrorBanner error={error} />
          <div className="form-actions">
            <button type="button" className="button secondary" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button
              type="button"
              className={`button ${tone === 'danger' ? 'danger' : ''}`}
              onClick={() => void confirm()}
              disabled={running}
            >
              {running ? 'Working…' : confirmLabel}
            </button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}

/** A secret shown once (a new key, token or signing secret), with a copy button. */
export function SecretOnce({ label, secret }: { label: string; secret: string }): ReactNode {
  const [copied, setCopied] = useState(false);
  const copy = (): void => {
    void navigator.clipboard?.writeText(secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div className="secret" role="status">
      <p>
        <strong>{label}</strong> — copy it now: it is shown only once.
      </p>
      <div className="secret-row">
        <code className="secret-value" data-testid="secret-value">
          {secret}
        </code>
        <button type="button" className="button secondary" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </div>
  );
}

export function Badge({ value }: { value: string }): ReactNode {
  return <span className={`badge badge-${value.replace(/[^a-z_]/gi, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

/** A definition list of an object's fields. */
export function Details({ items }: { items: ReadonlyArray<readonly [string, ReactNode]> }): ReactNode {
  return (
    <dl className="details">
      {items.map(([term, value]) => (
        <div key={term} className="details-row">
          <dt>{term}</dt>
          <dd>{value ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** Minor units → "12.34 EUR" (integer arithmetic on the digits, no float sums). */
export function formatMoney(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = String(Math.abs(minor)).padStart(digits + 1, '0');
  const whole = digits ? abs.slice(0, -digits) : abs;
  const frac = digits ? `.${abs.slice(-digits)}` : '';
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac} ${currency.toUpperCase()}`;
}
