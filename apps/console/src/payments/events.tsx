import { type ReactNode, useState } from 'react';
import { get, getConsoleMode, type ListPage, withQuery } from '../api';
import { Async, DataTable, Empty, Field, formatDate, Page } from '../components/ui';
import { Link } from '../router';
import { createdRange } from './filters';
import { PaymentsPager } from './pager';
import type { PaymentEvent } from './types';
import { useStripeList } from './use-stripe-list';

const EVENT_TYPES = [
  'payment.*',
  'payment.succeeded',
  'payment.failed',
  'payment.requires_capture',
  'payment.captured',
  'payment.canceled',
  'refund.succeeded',
];

interface EventFilters {
  type: string;
  from: string;
  to: string;
}
const NO_FILTERS: EventFilters = { type: '', from: '', to: '' };

/** The id of the payment or refund an event carries (its `data`), if any. */
function objectId(data: unknown): string | undefined {
  if (data && typeof data === 'object' && 'id' in data && typeof data.id === 'string') return data.id;
  return undefined;
}

/** The payment a refund event's `data` belongs to. */
function paymentIdOf(data: unknown): string | undefined {
  if (data && typeof data === 'object' && 'payment_id' in data && typeof data.payment_id === 'string') return data.payment_id;
  return undefined;
}

/** A payment's id links to its page; a refund's to its payment's. */
function ObjectLink({ id, paymentId }: { id: string | undefined; paymentId?: string }): ReactNode {
  if (!id) return '—';
  const target = id.startsWith('pay_') ? id : paymentId;
  return target ? (
    <Link to={`/payments/${encodeURIComponent(target)}`}>
      <code>{id}</code>
    </Link>
  ) : (
    <code>{id}</code>
  );
}

/** /events: GET /v2/events, newest first, by type (exact or `prefix.*`) and time, each event's JSON on demand. */
export function EventsPage(): ReactNode {
  const mode = getConsoleMode();
  const [draft, setDraft] = useState<EventFilters>(NO_FILTERS);
  const [filters, setFilters] = useState<EventFilters>(NO_FILTERS);
  const list = useStripeList(
    (cursor) =>
      get<ListPage<PaymentEvent>>(
        withQuery('/v2/events', { limit: 20, type: filters.type.trim(), ...createdRange(filters.from, filters.to), ...cursor }),
      ),
    `${mode} ${JSON.stringify(filters)}`,
  );
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
  const set = (key: keyof EventFilters) => (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value });
  return (
    <Page title="Events">
      <p className="muted">The events your webhook endpoints receive, kept 30 days.</p>
      <form
        className="toolbar payments-filters"
        aria-label="Filter events"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <Field label="Event type" hint="Exact, or a prefix like payment.*">
          {(props) => (
            <>
              <input {...props} list="payments-event-types" value={draft.type} onChange={set('type')} />
              <datalist id="payments-event-types">
                {EVENT_TYPES.map((t) => (
                  <option key={t} value={t} />
                ))}
              </datalist>
            </>
          )}
        </Field>
        <Field label="From">{(props) => <input {...props} type="date" value={draft.from} onChange={set('from')} />}</Field>
        <Field label="To">{(props) => <input {...props} type="date" value={draft.to} onChange={set('to')} />}</Field>
        <div className="payments-filter-actions">
          <button type="submit" className="button">
            Apply filters
          </button>
          <button
            type="button"
            className="button secondary"
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
            <Empty title={filtered ? 'No events match these filters' : `No ${mode} events yet`}>
              Payments and refunds create events (payment.succeeded, refund.succeeded, …).
            </Empty>
          ) : null
        }
      >
        {(page) => (
          <DataTable
            caption={`Events, page ${list.page}`}
            rows={page.data}
            rowKey={(e) => e.id}
            columns={[
              { header: 'Type', cell: (e) => <code>{e.event}</code> },
              { header: 'Object', cell: (e) => <ObjectLink id={objectId(e.data)} paymentId={paymentIdOf(e.data)} /> },
              { header: 'Created', cell: (e) => formatDate(e.timestamp) },
              {
                header: 'Event',
                cell: (e) => (
                  <details className="payments-event-json">
                    <summary>
                      JSON <span className="sr-only">of {e.id}</span>
                    </summary>
                    <pre tabIndex={0} aria-label={`JSON of ${e.id}`}>
                      {JSON.stringify(e, null, 2)}
                    </pre>
                  </details>
                ),
              },
            ]}
          />
        )}
      </Async>
      <PaymentsPager list={list} label="Event pages" />
    </Page>
  );
}
