import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ApiError, post } from '../api';
import { DataTable, ErrorBanner, Field } from '../components/ui';
import { FieldError } from './shared';
import { compactJson, type Fetched, type QueryAnswer, type QueryHit, type Table, tablePath } from './types';

type Mode = 'id' | 'vector';

/** A field's hint and, when there is one, its error. */
const describedBy = (...ids: Array<string | undefined>): string | undefined => ids.filter(Boolean).join(' ') || undefined;

interface Problems {
  readonly source?: string;
  readonly n?: string;
  readonly filter?: string;
}

/** The pasted vector: a JSON array of `dimension` finite numbers, or why not. */
export function parseVector(text: string, dimension: number): number[] | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'The vector is not valid JSON: paste an array of numbers, like [0.1, -0.2, 0.3].';
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    return 'The vector must be a JSON array of finite numbers, like [0.1, -0.2, 0.3].';
  }
  if (value.length !== dimension) {
    return `The vector has ${value.length} ${value.length === 1 ? 'value' : 'values'}; this table's dimension is ${dimension}: paste exactly ${dimension} numbers.`;
  }
  return value as number[];
}

/**
 * The table page's query box: by a stored row's id (its embedding is fetched, then queried
 * with) or by a pasted vector; top n; an optional metadata filter, which the API checks (its
 * message is shown as it is).
 */
export function QueryBox({
  table,
  onQueried,
  similarTo,
}: {
  table: Table;
  onQueried: () => void;
  /** Set by "Find similar" in Browse rows: query by that row's id at once (`seq` tells repeated clicks apart). */
  similarTo?: { readonly id: string; readonly seq: number };
}): ReactNode {
  const ids = useId();
  const [mode, setMode] = useState<Mode>('id');
  const [rowId, setRowId] = useState('');
  const [vectorText, setVectorText] = useState('');
  const [n, setN] = useState('10');
  const [filterText, setFilterText] = useState('');
  const [problems, setProblems] = useState<Problems>({});
  const [error, setError] = useState<ApiError | undefined>();
  const [running, setRunning] = useState(false);
  const [answer, setAnswer] = useState<(QueryAnswer & { asked: string }) | undefined>();

  const section = useRef<HTMLElement>(null);
  const run = async (asked: { mode: Mode; rowId: string } = { mode, rowId }): Promise<void> => {
    const { mode, rowId } = asked;
    const found: { -readonly [K in keyof Problems]: Problems[K] } = {};
    const top = Number(n);
    if (!Number.isInteger(top) || top < 1 || top > 1000) found.n = 'Top n must be a whole number from 1 to 1000.';
    let filter: unknown = undefined;
    if (filterText.trim() !== '') {
      try {
        filter = JSON.parse(filterText);
      } catch {
        found.filter = 'The filter is not valid JSON, e.g. {"lang": "en", "year": {"$gte": 2020}}.';
      }
    }
    let vector: number[] | undefined;
    if (mode === 'vector') {
      const parsed = parseVector(vectorText, table.dimension);
      if (typeof parsed === 'string') found.source = parsed;
      else vector = parsed;
    } else if (rowId.trim() === '') {
      found.source = 'Enter the id of a row stored in this table (Browse rows below lists them).';
    }
    setProblems(found);
    setError(undefined);
    if (Object.keys(found).length > 0) return;
    setRunning(true);
    try {
      if (mode === 'id') {
        const fetched = await post<Fetched>(tablePath(table.name, '/fetch'), { ids: [rowId], include_values: true });
        const embedding = fetched.rows[0]?.embedding;
        if (!embedding) {
          setProblems({ source: `No row with the id '${rowId}' in this table.` });
          return;
        }
        vector = embedding;
      }
      const result = await post<QueryAnswer>(tablePath(table.name, '/query'), {
        vector,
        n: top,
        ...(filter === undefined ? {} : { filter }),
      });
      setAnswer({ ...result, asked: mode === 'id' ? `row ${rowId}` : 'the pasted vector' });
      onQueried();
    } catch (err) {
      setAnswer(undefined);
      setError(err instanceof ApiError ? err : new ApiError(0, 'console_error', String(err)));
    } finally {
      setRunning(false);
    }
  };

  useEffect(() => {
    if (!similarTo) return;
    setMode('id');
    setRowId(similarTo.id);
    section.current?.scrollIntoView({ block: 'start' });
    void run({ mode: 'id', rowId: similarTo.id });
    // runs once per click (seq), with the row asked for
  }, [similarTo?.seq]);

  const sourceErrorId = `${ids}-source-error`;
  const nErrorId = `${ids}-n-error`;
  const filterErrorId = `${ids}-filter-error`;
  return (
    <section className="panel vector-panel" aria-labelledby={`${ids}-title`} ref={section}>
      <h2 id={`${ids}-title`}>Query</h2>
      <form
        className="vector-query"
        aria-label="Query the table"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <fieldset className="vector-mode">
          <legend>Query by</legend>
          <label className="checkbox">
            <input type="radio" name={`${ids}-mode`} checked={mode === 'id'} onChange={() => setMode('id')} />A stored row's id
          </label>
          <label className="checkbox">
            <input type="radio" name={`${ids}-mode`} checked={mode === 'vector'} onChange={() => setMode('vector')} />A pasted
            vector
          </label>
        </fieldset>
        {mode === 'id' ? (
          <Field label="Row id" hint="The row's own embedding is the query: the row itself comes first">
            {(p) => (
              <>
                <input
                  {...p}
                  aria-describedby={describedBy(p['aria-describedby'], problems.source ? sourceErrorId : undefined)}
                  aria-invalid={problems.source ? true : undefined}
                  value={rowId}
                  onChange={(e) => setRowId(e.target.value)}
                  autoComplete="off"
                  spellCheck={false}
                />
                <FieldError id={sourceErrorId} message={problems.source} />
              </>
            )}
          </Field>
        ) : (
          <Field label="Vector" hint={`A JSON array of ${table.dimension} numbers`}>
            {(p) => (
              <>
                <textarea
                  {...p}
                  aria-describedby={describedBy(p['aria-describedby'], problems.source ? sourceErrorId : undefined)}
                  aria-invalid={problems.source ? true : undefined}
                  value={vectorText}
                  onChange={(e) => setVectorText(e.target.value)}
                  spellCheck={false}
                  rows={3}
                />
                <FieldError id={sourceErrorId} message={problems.source} />
              </>
            )}
          </Field>
        )}
        <div className="vector-query-row">
          <Field label="Top n" hint="1–1000 results">
            {(p) => (
              <>
                <input
                  {...p}
                  aria-describedby={describedBy(p['aria-describedby'], problems.n ? nErrorId : undefined)}
                  aria-invalid={problems.n ? true : undefined}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={1000}
                  value={n}
                  onChange={(e) => setN(e.target.value)}
                />
                <FieldError id={nErrorId} message={problems.n} />
              </>
            )}
          </Field>
          <Field label="Filter (optional)" hint='Metadata filter as JSON, e.g. {"lang": "en", "year": {"$gte": 2020}}'>
            {(p) => (
              <>
                <textarea
                  {...p}
                  aria-describedby={describedBy(p['aria-describedby'], problems.filter ? filterErrorId : undefined)}
                  aria-invalid={problems.filter ? true : undefined}
                  value={filterText}
                  onChange={(e) => setFilterText(e.target.value)}
                  spellCheck={false}
                  rows={2}
                />
                <FieldError id={filterErrorId} message={problems.filter} />
              </>
            )}
          </Field>
        </div>
        <ErrorBanner error={error} title="The query was refused" />
        <div className="form-actions">
          <button type="submit" className="button" disabled={running}>
            {running ? 'Querying…' : 'Run query'}
          </button>
        </div>
      </form>
      {answer ? (
        <div className="vector-results">
          <p role="status">
            {answer.results.length} {answer.results.length === 1 ? 'result' : 'results'} for {answer.asked} in{' '}
            <strong>{answer.latency_ms} ms</strong> (engine time)
          </p>
          {answer.results.length > 0 ? (
            <DataTable<QueryHit>
              caption="Query results"
              rowKey={(h) => h.id}
              rows={answer.results}
              columns={[
                { header: 'Rank', cell: (h) => answer.results.indexOf(h) + 1, align: 'right' },
                { header: 'Id', cell: (h) => <code>{h.id}</code> },
                { header: 'Score', cell: (h) => h.score.toFixed(4), align: 'right' },
                { header: 'Metadata', cell: (h) => <code className="vector-json">{compactJson(h.metadata)}</code> },
              ]}
            />
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
