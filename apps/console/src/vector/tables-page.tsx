import { type ReactNode, useCallback, useState } from 'react';
import { get, post } from '../api';
import { Async, DataTable, Empty, Field, Form, formatDate, Modal, Notice, Page } from '../components/ui';
import { useAction, useAsync } from '../hooks';
import { Link } from '../router';
import { DeleteTableButton, IndexState, usePages, usePolling } from './shared';
import { INDEX_KINDS, type IndexKind, METRICS, type Metric, type Table } from './types';

const INDEX_LABELS: Record<IndexKind, string> = {
  flat: 'flat (exact scan)',
  ivf: 'ivf (inverted lists)',
  hnsw: 'hnsw (graph)',
};

/** /tables: the project's tables, a create form and deletion behind a typed confirmation. */
export function TablesPage(): ReactNode {
  const tables = useAsync(() => get<{ data: Table[] }>('/v1/tables'), []);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();
  // Stable, so a poll's re-render does not make the dialog move the focus (Modal depends on onClose).
  const closeCreate = useCallback(() => setCreating(false), []);
  const building = tables.data?.data.some((t) => t.index_status.state === 'building') ?? false;
  usePolling(building, () => tables.reload());
  const { rows, pager } = usePages(tables.data?.data);
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
          d.data.length === 0 ? (
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
