import { type ReactNode, useState } from 'react';
import { get, getConsoleMode, type ListPage, withQuery } from '../api';
import { Async, Badge, DataTable, Empty, Field, formatDate, formatMoney, Page } from '../components/ui';
import { Link } from '../router';
import { PaymentsPager } from './pager';
import { createdRange } from './filters';
import { type PageCursor, useStripeList } from './use-stripe-list';
import { PAYMENT_STATUSES, type Payment } from './types';
import { VolumeChart } from './volume-chart';

interface PaymentFilters {
  status: string;
  customer: string;
  from: string;
  to: string;
}

const NO_FILTERS: PaymentFilters = { status: '', customer: '', from: '', to: '' };

/** A page of payments, newest first, with the list route's filters (docs/payments.md, Lists). */
export function fetchPayments(filters: { status?: string; customer?: string; from?: string; to?: string }, cursor: PageCursor) {
  return get<ListPage<Payment>>(
    withQuery('/v2/payments', {
      limit: 20,
      status: filters.status,
      customer_id: filters.customer?.trim(),
      ...createdRange(filters.from, filters.to),
      ...cursor,
    }),
  );
}

/** The payments table (also on a customer's page). */
export function PaymentsTable({
  rows,
  caption,
  showCustomer = true,
}: {
  rows: readonly Payment[];
  caption: string;
  showCustomer?: boolean;
}): ReactNode {
  return (
    <DataTable
      caption={caption}
      rows={rows}
      rowKey={(p) => p.id}
      columns={[
        {
          header: 'Amount',
          align: 'right',
          cell: (p) => (
            <Link
              to={`/payments/${encodeURIComponent(p.id)}`}
              aria-label={`Payment ${p.id}: ${formatMoney(p.amount, p.currency)}`}
            >
              {formatMoney(p.amount, p.currency)}
            </Link>
          ),
        },
        { header: 'Currency', cell: (p) => p.currency.toUpperCase() },
        { header: 'Status', cell: (p) => <Badge value={p.refunded ? 'refunded' : p.status} /> },
        ...(showCustomer
          ? [
              {
                header: 'Customer',
                cell: (p: Payment) =>
                  p.customer_id === null ? (
                    '—'
                  ) : (
                    <Link to={`/customers/${encodeURIComponent(p.customer_id)}`}>{p.customer_id}</Link>
                  ),
              },
            ]
          : []),
        { header: 'Description', cell: (p) => p.description ?? <span className="muted">—</span> },
        { header: 'Created', cell: (p) => formatDate(p.created) },
      ]}
    />
  );
}

/** /payments: the volume chart, then every payment of the mode with filters and pages. */
export function PaymentsPage(): ReactNode {
  const mode = getConsoleMode();
  const [draft, setDraft] = useState<PaymentFilters>(NO_FILTERS);
  const [filters, setFilters] = useState<PaymentFilters>(NO_FILTERS);
  const list = useStripeList((cursor) => fetchPayments(filters, cursor), `${mode} ${JSON.stringify(filters)}`);
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
  const set = (key: keyof PaymentFilters) => (event: { target: { value: string } }) =>
    setDraft({ ...draft, [key]: event.target.value });
  return (
    <Page title="Payments">
      <VolumeChart />
      <form
        className="toolbar payments-filters"
        aria-label="Filter payments"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <Field label="Status">
          {(props) => (
            <select {...props} value={draft.status} onChange={set('status')}>
              <option value="">All</option>
              {PAYMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Customer ID">
          {(props) => <input {...props} value={draft.customer} onChange={set('customer')} placeholder="cus_…" />}
        </Field>
        <Field label="Created from">
          {(props) => <input {...props} type="date" value={draft.from} onChange={set('from')} />}
        </Field>
        <Field label="Created to">{(props) => <input {...props} type="date" value={draft.to} onChange={set('to')} />}</Field>
        <div className="payments-filter-actions">
          <button type="submit" className="button">
            Apply filters
          </button>
          <button
            type="button"
            className="button secondary"
            disabled={!filtered && JSON.stringify(draft) === JSON.stringify(NO_FILTERS)}
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <Async
        state={list}
        empty={(page) =>
          page.data.length === 0 && list.page === 1 ? (
            <Empty title={filtered ? 'No payments match these filters' : `No ${mode} payments yet`}>
              {filtered
                ? 'Change or clear the filters.'
                : mode === 'live'
                  ? 'Live payments show here once the account charges with its live key.'
                  : 'Payments made with your test secret key (POST /v2/payments) show here.'}
            </Empty>
          ) : null
        }
      >
        {(page) => <PaymentsTable rows={page.data} caption={`Payments, page ${list.page}`} />}
      </Async>
      <PaymentsPager list={list} label="Payments pages" />
    </Page>
  );
}
