import { type ReactNode, useState } from 'react';
import { get, getConsoleMode, type ListPage, post, withQuery } from '../api';
import { Async, DataTable, Details, Empty, Field, Form, formatDate, Modal, Notice, Page } from '../components/ui';
import { useAction, useAsync } from '../hooks';
import { Link, navigate } from '../router';
import { PaymentsPager } from './pager';
import { fetchPayments, PaymentsTable } from './payments-list';
import type { Customer } from './types';
import { useStripeList } from './use-stripe-list';

/** /customers: the mode's customers, newest first, an email filter, and "New customer". */
export function CustomersPage(): ReactNode {
  const mode = getConsoleMode();
  const [draft, setDraft] = useState('');
  const [email, setEmail] = useState('');
  const [creating, setCreating] = useState(false);
  const [version, setVersion] = useState(0);
  const list = useStripeList(
    (cursor) => get<ListPage<Customer>>(withQuery('/v2/customers', { limit: 20, email: email || undefined, ...cursor })),
    `${mode} ${email} ${version}`,
  );
  return (
    <Page
      title="Customers"
      actions={
        <button type="button" className="button" onClick={() => setCreating(true)}>
          New customer
        </button>
      }
    >
      <form
        className="toolbar"
        aria-label="Filter customers"
        onSubmit={(event) => {
          event.preventDefault();
          setEmail(draft.trim());
        }}
      >
        <Field label="Email">
          {(props) => <input {...props} type="email" value={draft} onChange={(e) => setDraft(e.target.value)} />}
        </Field>
        <button type="submit" className="button secondary">
          Filter
        </button>
      </form>
      <Async
        state={list}
        empty={(page) =>
          page.data.length === 0 && list.page === 1 ? (
            <Empty title={email ? `No customer with the email ${email}` : `No ${mode} customers yet`}>
              Create one with “New customer”, or with POST /v2/customers.
            </Empty>
          ) : null
        }
      >
        {(page) => (
          <DataTable
            caption={`Customers, page ${list.page}`}
            rows={page.data}
            rowKey={(c) => c.id}
            columns={[
              {
                header: 'Name',
                cell: (c) => <Link to={`/customers/${encodeURIComponent(c.id)}`}>{c.name ?? c.email ?? c.id}</Link>,
              },
              { header: 'Email', cell: (c) => c.email ?? '—' },
              { header: 'Description', cell: (c) => c.description ?? '—' },
              { header: 'ID', cell: (c) => <code>{c.id}</code> },
              { header: 'Created', cell: (c) => formatDate(c.created) },
            ]}
          />
        )}
      </Async>
      <PaymentsPager list={list} label="Customer pages" />
      {creating ? (
        <NewCustomer
          onClose={() => setCreating(false)}
          onCreated={(c) => {
            setCreating(false);
            setVersion((n) => n + 1);
            navigate(`/customers/${encodeURIComponent(c.id)}?created=1`);
          }}
        />
      ) : null}
    </Page>
  );
}

/** "key=value" lines → metadata (the API checks its limits). */
function parseMetadata(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const at = line.indexOf('=');
    if (at <= 0) return `“${line}” is not key=value.`;
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

function NewCustomer({ onClose, onCreated }: { onClose: () => void; onCreated: (c: Customer) => void }): ReactNode {
  const [form, setForm] = useState({ email: '', name: '', description: '', metadata: '' });
  const [invalid, setInvalid] = useState<string | undefined>();
  const create = useAction((body: object) => post<Customer>('/v2/customers', body));
  const submit = async (): Promise<void> => {
    const metadata = parseMetadata(form.metadata);
    if (typeof metadata === 'string') {
      setInvalid(metadata);
      return;
    }
    setInvalid(undefined);
    const body = {
      ...(form.email.trim() ? { email: form.email.trim() } : {}),
      ...(form.name.trim() ? { name: form.name.trim() } : {}),
      ...(form.description.trim() ? { description: form.description.trim() } : {}),
      ...(Object.keys(metadata).length ? { metadata } : {}),
    };
    const customer = await create.run(body);
    if (customer) onCreated(customer);
  };
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <Modal title="New customer" onClose={onClose}>
      <Form
        label="New customer"
        submitLabel="Create customer"
        running={create.running}
        error={create.error}
        onSubmit={() => void submit()}
      >
        <Field label="Email">{(props) => <input {...props} type="email" value={form.email} onChange={set('email')} />}</Field>
        <Field label="Name">{(props) => <input {...props} value={form.name} onChange={set('name')} />}</Field>
        <Field label="Description">
          {(props) => <input {...props} value={form.description} onChange={set('description')} />}
        </Field>
        <Field label="Metadata" hint={invalid ?? 'One key=value per line (optional).'}>
          {(props) => (
            <textarea
              {...props}
              rows={3}
              value={form.metadata}
              onChange={set('metadata')}
              aria-invalid={invalid ? true : undefined}
            />
          )}
        </Field>
      </Form>
    </Modal>
  );
}

/** /customers/:id: the customer and its payments. */
export function CustomerPage({ id }: { id: string }): ReactNode {
  const mode = getConsoleMode();
  const customer = useAsync(() => get<Customer>(`/v2/customers/${encodeURIComponent(id)}`), [id, mode]);
  const payments = useStripeList((cursor) => fetchPayments({ customer: id }, cursor), `${mode} ${id}`);
  const created = new URLSearchParams(window.location.search).get('created') === '1';
  return (
    <Page title="Customer" actions={<Link to="/customers">All customers</Link>}>
      {created ? <Notice tone="success">Customer created.</Notice> : null}
      <Async state={customer}>
        {(c) => (
          <section className="panel" aria-labelledby="customer-title">
            <h2 id="customer-title" className="payments-panel-title">
              {c.name ?? c.email ?? c.id}
            </h2>
            <Details
              items={[
                ['ID', <code key="id">{c.id}</code>],
                ['Email', c.email ?? '—'],
                ['Name', c.name ?? '—'],
                ['Description', c.description ?? '—'],
                ['Metadata', Object.keys(c.metadata).length ? <code key="md">{JSON.stringify(c.metadata)}</code> : '—'],
                ['Mode', c.livemode ? 'live' : 'test'],
                ['Created', formatDate(c.created)],
              ]}
            />
          </section>
        )}
      </Async>
      <section aria-labelledby="customer-payments">
        <h2 id="customer-payments">Payments</h2>
        <Async
          state={payments}
          empty={(page) =>
            page.data.length === 0 && payments.page === 1 ? <Empty title="No payments for this customer" /> : null
          }
        >
          {(page) => <PaymentsTable rows={page.data} caption="Payments of this customer" showCustomer={false} />}
        </Async>
        <PaymentsPager list={payments} label="Customer payment pages" />
      </section>
    </Page>
  );
}
