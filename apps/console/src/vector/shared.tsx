import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { del } from '../api';
import { Badge, ErrorBanner, Modal, Pager } from '../components/ui';
import type { ApiError } from '../api';
import { type IndexStatus, tablePath } from './types';

/** Client-side pages of a list the API answers whole (tokens): 20 at a time. */
export function usePages<T>(items: readonly T[] | undefined, size = 20): { rows: readonly T[]; pager: ReactNode } {
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil((items?.length ?? 0) / size));
  useEffect(() => {
    if (page > pages) setPage(pages);
  }, [page, pages]);
  const current = Math.min(page, pages);
  const rows = (items ?? []).slice((current - 1) * size, current * size);
  const pager =
    pages > 1 ? (
      <Pager
        page={current}
        hasPrevious={current > 1}
        hasNext={current < pages}
        onPrevious={() => setPage(current - 1)}
        onNext={() => setPage(current + 1)}
      />
    ) : null;
  return { rows, pager };
}

/** Runs `tick` every `ms` while `active` (an index building): the page follows the build. */
export function usePolling(active: boolean, tick: () => void, ms = 3000): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return undefined;
    const timer = window.setInterval(() => latest.current(), ms);
    return () => window.clearInterval(timer);
  }, [active, ms]);
}

/** The index state as a badge, with the build's progress while it builds. */
export function IndexState({ status, label }: { status: IndexStatus; label: string }): ReactNode {
  const progress = status.details['progress'];
  const pending = status.details['pending'];
  return (
    <span className="vector-index-state">
      <Badge value={status.state} />
      {status.state === 'building' && typeof progress === 'number' ? (
        <>
          <progress max={1} value={progress} aria-label={`${label}: index build progress`} />
          <span className="small">
            {Math.floor(progress * 100)} %
            {typeof pending === 'number' ? ` · ${pending.toLocaleString('en-GB')} rows pending` : ''}
          </span>
        </>
      ) : null}
    </span>
  );
}

/**
 * Deleting a table takes its rows with it, so the dialog asks for the table's name (as
 * cloud consoles do) before the Delete button works.
 */
export function DeleteTableButton({ name, onDeleted }: { name: string; onDeleted: () => void }): ReactNode {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  // Stable: Modal re-runs its focus handling when onClose changes, which would pull the focus
  // out of the name field at every keystroke.
  const close = useCallback((): void => {
    setOpen(false);
    setTyped('');
    setError(undefined);
  }, []);
  const confirm = async (): Promise<void> => {
    if (typed !== name) return;
    setRunning(true);
    setError(undefined);
    try {
      await del(tablePath(name));
      close();
      onDeleted();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setRunning(false);
    }
  };
  const inputId = `delete-${name}`;
  return (
    <>
      <button type="button" className="button danger" onClick={() => setOpen(true)} aria-label={`Delete table ${name}`}>
        Delete
      </button>
      {open ? (
        <Modal title={`Delete table ${name}`} onClose={close}>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void confirm();
            }}
          >
            <div className="modal-body">
              <p>
                The table <strong>{name}</strong> and all its rows will be deleted. This cannot be undone.
              </p>
              <div className="field">
                <label htmlFor={inputId}>Type the table's name to confirm</label>
                <input
                  id={inputId}
                  value={typed}
                  onChange={(event) => setTyped(event.target.value)}
                  autoComplete="off"
                  spellCheck={false}
                />
              </div>
            </div>
            <ErrorBanner error={error} title="The table was not deleted" />
            <div className="form-actions">
              <button type="button" className="button secondary" onClick={close}>
                Cancel
              </button>
              <button type="submit" className="button danger" disabled={typed !== name || running}>
                {running ? 'Deleting…' : 'Delete this table'}
              </button>
            </div>
          </form>
        </Modal>
      ) : null}
    </>
  );
}

/** A mistake the console catches before asking the API (a vector of the wrong length, bad JSON). */
export function FieldError({ id, message }: { id: string; message: string | undefined }): ReactNode {
  if (!message) return null;
  return (
    <p id={id} className="vector-field-error" role="alert">
      {message}
    </p>
  );
}
