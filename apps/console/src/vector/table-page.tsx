import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { get, post } from '../api';
import { LineChart } from '../components/charts';
import { Async, DataTable, Details, Empty, ErrorBanner, Field, formatDate, Loading, Page, Pager } from '../components/ui';
import { useAsync } from '../hooks';
import { Link, navigate } from '../router';
import { QueryBox } from './query-box';
import { DeleteTableButton, IndexState, usePolling } from './shared';
import { compactJson, type Fetched, type IdsPage, type Table, type TableStats, tablePath } from './types';

const BROWSE_PAGE = 20;

/** /tables/:name: the table, its query box, its query latency, and its rows. */
export function TablePage({ name }: { name: string }): ReactNode {
  const table = useAsync(() => get<Table>(tablePath(name)), [name]);
  usePolling(table.data?.index_status.state === 'building', () => table.reload());
  const [statsTick, setStatsTick] = useState(0);
  const refreshStats = useCallback(() => setStatsTick((n) => n + 1), []);
  const [similarTo, setSimilarTo] = useState<{ id: string; seq: number } | undefined>();
  const findSimilar = useCallback((id: string) => setSimilarTo((s) => ({ id, seq: (s?.seq ?? 0) + 1 })), []);
  return (
    <Page
      title={`Table ${name}`}
      actions={table.data ? <DeleteTableButton name={name} onDeleted={() => navigate('/tables')} /> : undefined}
    >
      <p className="muted small">
        <Link to="/tables">← All tables</Link>
      </p>
      <Async state={table}>
        {(t) => (
          <>
            <div className="vector-overview">
              <TableDetails table={t} />
              <LatencyChart name={name} tick={statsTick} />
            </div>
            <QueryBox table={t} onQueried={refreshStats} similarTo={similarTo} />
            <BrowseRows name={name} onFindSimilar={findSimilar} />
          </>
        )}
      </Async>
    </Page>
  );
}

function TableDetails({ table }: { table: Table }): ReactNode {
  const details = Object.entries(table.index_status.details);
  return (
    <section className="panel vector-panel" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      <Details
        items={[
          ['Dimension', table.dimension],
          ['Index', table.index],
          ['Metric', table.metric],
          ['Rows', table.rows.toLocaleString('en-GB')],
          ['Index state', <IndexState key="state" status={table.index_status} label={table.name} />],
          ['Created', formatDate(table.created_at)],
        ]}
      />
      {details.length > 0 ? (
        <details className="vector-index-details">
          <summary>Index parameters and counters</summary>
          <Details
            items={details.map(([k, v]) => [k, Number.isInteger(v) ? v.toLocaleString('en-GB') : v.toFixed(3)] as const)}
          />
        </details>
      ) : null}
    </section>
  );
}

const timeLabel = (iso: string): string =>
  new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });

/** p50 / p95 query latency per minute over the last hour (GET …/stats), refreshed after each query. */
function LatencyChart({ name, tick }: { name: string; tick: number }): ReactNode {
  const stats = useAsync(() => get<TableStats>(tablePath(name, '/stats')), [name, tick]);
  return (
    <section className="vector-latency" aria-labelledby="latency-title">
      <h2 id="latency-title" className="sr-only">
        Query latency
      </h2>
      <Async
        state={stats}
        empty={(s) =>
          s.query_latency.length === 0 ? (
            <Empty title="Query latency: no queries in the last hour">
              Run a query below, or through the API, to see its latency here.
            </Empty>
          ) : null
        }
      >
        {(s) => (
          <>
            <LineChart
              title={`Query latency of ${name} per minute (UTC), milliseconds`}
              labels={s.query_latency.map((b) => timeLabel(b.start))}
              series={[
                { name: 'p50', values: s.query_latency.map((b) => b.p50_ms), tone: 'series-1' },
                { name: 'p95', values: s.query_latency.map((b) => b.p95_ms), tone: 'series-2' },
              ]}
              format={(v) => (v >= 10 ? v.toFixed(0) : v.toFixed(2))}
            />
            <p className="muted small">
              Engine time of each query, over the last {s.window_minutes} minutes (
              {s.query_latency.reduce((a, b) => a + b.queries, 0)} queries), as measured by the instance that answered this page.
            </p>
          </>
        )}
      </Async>
    </section>
  );
}

interface BrowsePage {
  readonly rows: Fetched['rows'];
  readonly next: string | null;
}

/** Rows by id order, a page at a time (GET …/vectors with cursor and prefix, then POST …/fetch for their metadata). */
function BrowseRows({ name, onFindSimilar }: { name: string; onFindSimilar: (id: string) => void }): ReactNode {
  const [prefixInput, setPrefixInput] = useState('');
  const [prefix, setPrefix] = useState('');
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  useEffect(() => setCursors([undefined]), [prefix, name]);
  const cursor = cursors[cursors.length - 1];
  const page = useAsync(async (): Promise<BrowsePage> => {
    const ids = await get<IdsPage>(tablePath(name, '/vectors'), { limit: BROWSE_PAGE, cursor, prefix });
    if (ids.ids.length === 0) return { rows: [], next: ids.next_cursor };
    const fetched = await post<Fetched>(tablePath(name, '/fetch'), { ids: ids.ids });
    return { rows: fetched.rows, next: ids.next_cursor };
  }, [name, prefix, cursor]);
  const next = page.data?.next ?? null;
  return (
    <section aria-labelledby="browse-title">
      <h2 id="browse-title">Browse rows</h2>
      <form
        className="toolbar"
        aria-label="Filter rows by id prefix"
        onSubmit={(event) => {
          event.preventDefault();
          setPrefix(prefixInput);
        }}
      >
        <Field label="Id prefix">
          {(p) => (
            <input
              {...p}
              value={prefixInput}
              onChange={(e) => setPrefixInput(e.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
          )}
        </Field>
        <button type="submit" className="button secondary">
          Show rows
        </button>
      </form>
      {page.error ? <ErrorBanner error={page.error} /> : null}
      {!page.data && !page.error ? <Loading /> : null}
      {page.data && page.data.rows.length === 0 ? (
        <Empty title={prefix ? `No rows with ids starting with ${prefix}` : 'This table has no rows yet'}>
          Insert rows through the API (POST /v1/tables/{name}/insert).
        </Empty>
      ) : null}
      {page.data && page.data.rows.length > 0 ? (
        <div aria-busy={page.loading}>
          <DataTable
            caption="Rows"
            rowKey={(r) => r.id}
            rows={page.data.rows}
            columns={[
              { header: 'Id', cell: (r) => <code>{r.id}</code> },
              { header: 'Metadata', cell: (r) => <code className="vector-json">{compactJson(r.metadata)}</code> },
              {
                header: 'Actions',
                cell: (r) => (
                  <button
                    type="button"
                    className="button secondary"
                    onClick={() => onFindSimilar(r.id)}
                    aria-label={`Find similar to ${r.id}`}
                  >
                    Find similar
                  </button>
                ),
              },
            ]}
          />
        </div>
      ) : null}
      {page.data && (cursors.length > 1 || next) ? (
        <Pager
          label="Row pages"
          page={cursors.length}
          hasPrevious={cursors.length > 1}
          hasNext={next !== null}
          onPrevious={() => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c))}
          onNext={() => next && setCursors((c) => [...c, next])}
        />
      ) : null}
    </section>
  );
}
