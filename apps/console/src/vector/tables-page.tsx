import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { get, type ListPage, post } from '../api';
import { Async, DataTable, Empty, Field, Form, formatDate, Modal, Notice, Page, Pager } from '../components/ui';
import { type AsyncState, useAction, useAsync } from '../hooks';
import { Link } from '../router';
import { DeleteTableButton, IndexState, usePolling } from './shared';
import { INDEX_KINDS, type IndexKind, METRICS, type Metric, type Table } from './types';

const INDEX_LABELS: Record<IndexKind, string> = {
  flat: 'flat (exact scan)',
  ivf: 'ivf (inverted lists)',
  hnsw: 'hnsw (graph)',
};

/** Tables shown per page (GET /v1/tables takes up to 100). */
const TABLES_PER_PAGE = 20;

/**
 * GET /v1/tables page by page (`starting_after` = the last name of the page): a stack of
 * cursors so Previous goes back exactly; a page emptied by deletes goes back one.
 */
function useTablePages(): { tables: AsyncState<ListPage<Table>>; pager: ReactNode } {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const tables = useAsync(() => get<ListPage<Table>>('/v1/tables', { limit: TABLES_PER_PAGE, starting_after: cursor }), [cursor]);
  const data = tables.data?.data;
  const last = data?.[data.length - 1];
  useEffect(() => {
    if (data?.length === 0 && cursors.length > 1) setCursors((c) => c.slice(0, -1));
  }, [data, cursors.length]);
  const hasNext = Boolean(tables.data?.has_more && last);
  const pager =
    cursors.length > 1 || hasNext ? (
      <Pager
        label="Table pages"
        page={cursors.length}
        hasPrevious={cursors.length > 1}
        hasNext={hasNext}
        onPrevious={() => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c))}
        onNext={() => last && setCursors((c) => [...c, last.name])}
      />
    ) : null;
  return { tables, pager };
}

/** /tables: the project's tables, a create form and deletion behind a typed confirmation. */
export function TablesPage(): ReactNode {
  const { tables, pager } = useTablePages();
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();
  // Stable, so a poll's re-render does not make the dialog move the focus (Modal depends on onClose).
  const closeCreate = useCallback(() => setCreating(false), []);
  const building = tables.data?.data.some((t) => t.index_status.state === 'building') ?? false;
  usePolling(building, () => tables.reload());
  const rows = tables.data?.data ?? [];
  return (
    <Page
      title="Tables"
      actions={
        <button type="button" className="button" onClick={() => setCreating(true)}>
          Create table
        </button>
      }
    >
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      {creating ? (
        <CreateTableDialog
          onClose={closeCreate}
          onCreated={(table) => {
            setCreating(false);
            setNotice(`Table ${table.name} created.`);
            tables.reload();
          }}
        />
      ) : null}
      <Async
        state={tables}
        empty={(d) =>
          d.data.length === 0 && !pager ? (
            <Empty title="No tables yet">Create a table, then insert vectors into it through the API.</Empty>
          ) : null
        }
      >
        {() => (
          <>
            <DataTable<Table>
              caption="Tables"
              rowKey={(t) => t.name}
              rows={rows}
              columns={[
                { header: 'Name', cell: (t) => <Link to={`/tables/${encodeURIComponent(t.name)}`}>{t.name}</Link> },
                { header: 'Dimension', cell: (t) => t.dimension, align: 'right' },
                { header: 'Index', cell: (t) => t.index },
                { header: 'Metric', cell: (t) => t.metric },
                { header: 'Rows', cell: (t) => t.rows.toLocaleString('en-GB'), align: 'right' },
                { header: 'Index state', cell: (t) => <IndexState status={t.index_status} label={t.name} /> },
                { header: 'Created', cell: (t) => formatDate(t.created_at) },
                {
                  header: 'Actions',
                  cell: (t) => (
                    <DeleteTableButton
                      name={t.name}
                      onDeleted={() => {
                        setNotice(`Table ${t.name} deleted.`);
                        tables.reload();
                      }}
                    />
                  ),
                },
              ]}
            />
            {pager}
          </>
        )}
      </Async>
    </Page>
  );
}

function CreateTableDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (table: Table) => void }): ReactNode {
  const [name, setName] = useState('');
  const [dimension, setDimension] = useState('');
  const [index, setIndex] = useState<IndexKind>('hnsw');
  const [metric, setMetric] = useState<Metric>('cosine');
  const create = useAction(() => post<Table>('/v1/tables', { name, dimension: Number(dimension), index, metric }));
  const submit = async (): Promise<void> => {
    const table = await create.run();
    if (table) onCreated(table);
  };
  return (
    <Modal title="Create a table" onClose={onClose}>
      <Form
        label="Create a table"
        submitLabel="Create table"
        running={create.running}
        error={create.error}
        onSubmit={() => void submit()}
      >
        <Field label="Name" hint="1–64 characters: a–z, 0–9, _ and -">
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" required />}
        </Field>
        <Field label="Dimension" hint="The length of every vector, 1–4096">
          {(p) => (
            <input
              {...p}
              type="number"
              inputMode="numeric"
              min={1}
              max={4096}
              value={dimension}
              onChange={(e) => setDimension(e.target.value)}
              required
            />
          )}
        </Field>
        <Field label="Index" hint="flat answers exactly; ivf and hnsw are approximate indexes for large tables">
          {(p) => (
            <select {...p} value={index} onChange={(e) => setIndex(e.target.value as IndexKind)}>
              {INDEX_KINDS.map((k) => (
                <option key={k} value={k}>
                  {INDEX_LABELS[k]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Metric" hint="How similarity is scored; fixed at creation">
          {(p) => (
            <select {...p} value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
              {METRICS.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          )}
        </Field>
      </Form>
    </Modal>
  );
}
