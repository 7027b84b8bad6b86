import { type ReactNode, useState } from 'react';
import { get } from '../api';
import { Async, Badge, type Column, DataTable, Empty, Field, Pager, Page, formatDate } from '../components/ui';
import { useAsync } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import { closesIn, formatMajor, TYPE_LABELS, typeLabel } from './format';
import { OFFER_STATUSES, OFFER_TYPES, type Offer, type OfferList } from './types';

const PAGE_SIZES = [10, 20, 50, 100] as const;
const DEFAULT_LIMIT = 20;

/** The list's filters, kept in the address (so Back from an offer returns to the same page). */
interface Filters {
  readonly status: string;
  readonly type: string;
  /** ISO time with offset, or ''. */
  readonly modifiedAfter: string;
  readonly limit: number;
  readonly page: number;
}

function readFilters(query: URLSearchParams): Filters {
  const limit = Number(query.get('limit'));
  const page = Number(query.get('page'));
  const status = query.get('status') ?? '';
  const type = query.get('type') ?? '';
  return {
    status: (OFFER_STATUSES as readonly string[]).includes(status) ? status : '',
    type: (OFFER_TYPES as readonly string[]).includes(type) ? type : '',
    modifiedAfter: query.get('modified_after') ?? '',
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
}

function hrefOf(filters: Filters): string {
  const params = new URLSearchParams();
  if (filters.status) params.set('status', filters.status);
  if (filters.type) params.set('type', filters.type);
  if (filters.modifiedAfter) params.set('modified_after', filters.modifiedAfter);
  if (filters.limit !== DEFAULT_LIMIT) params.set('limit', String(filters.limit));
  if (filters.page > 1) params.set('page', String(filters.page));
  const qs = params.toString();
  return qs ? `/offers?${qs}` : '/offers';
}

/** `datetime-local` value (local time, no zone) ↔ the ISO time with Z the API needs. */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const local = new Date(d.getTime() - d.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
function fromLocalInput(value: string): string {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

const COLUMNS: readonly Column<Offer>[] = [
  {
    header: 'Offer',
    cell: (o) => (
      <>
        <Link to={`/offers/${encodeURIComponent(o.id)}`}>{o.company}</Link>
        <span className="muted small offers-ticker">{o.ticker}</span>
      </>
    ),
  },
  { header: 'Type', cell: (o) => typeLabel(o.type) },
  { header: 'Status', cell: (o) => <Badge value={o.status} /> },
  {
    header: 'Closes',
    cell: (o) => (
      <time dateTime={o.closes_at} title={formatDate(o.closes_at)}>
        {closesIn(o.closes_at, o.status)}
      </time>
    ),
  },
  { header: 'Minimum', cell: (o) => formatMajor(o.minimum_investment, o.currency), align: 'right' },
  { header: 'Maximum', cell: (o) => formatMajor(o.maximum_investment, o.currency), align: 'right' },
];

/** Offers in the partner's distribution agreement: filters above, the table, numbered pages. */
export function OffersListPage(): ReactNode {
  const { query } = useLocation();
  const filters = readFilters(query);
  const key = hrefOf(filters);
  const state = useAsync(
    () =>
      get<OfferList>('/api/v1/offers', {
        status: filters.status,
        type: filters.type,
        modified_after: filters.modifiedAfter,
        limit: filters.limit,
        page: filters.page,
      }),
    [key],
  );
  const go = (next: Partial<Filters>): void => navigate(hrefOf({ ...filters, ...next }));
  return (
    <Page title="Offers">
      <FilterForm key={key} filters={filters} onApply={(next) => go({ ...next, page: 1 })} />
      <Async
        state={state}
        empty={(list) =>
          list.total === 0 ? (
            <Empty title="No offers match">
              {filters.status || filters.type || filters.modifiedAfter
                ? 'Change or clear the filters to see more offers.'
                : 'Offers appear here once the operator adds them to your distribution agreement.'}
            </Empty>
          ) : null
        }
      >
        {(list) => {
          const first = (filters.page - 1) * filters.limit + 1;
          const last = first + list.offers.length - 1;
          return (
            <>
              <p className="muted small" aria-live="polite">
                {list.offers.length === 0
                  ? `No offers on page ${filters.page} (${list.total} in all).`
                  : `Offers ${first}–${last} of ${list.total}`}
              </p>
              <DataTable caption="Offers" columns={COLUMNS} rows={list.offers} rowKey={(o) => o.id} />
              <Pager
                label="Offer pages"
                page={filters.page}
                hasPrevious={filters.page > 1}
                hasNext={filters.page * filters.limit < list.total}
                onPrevious={() => go({ page: filters.page - 1 })}
                onNext={() => go({ page: filters.page + 1 })}
              />
            </>
          );
        }}
      </Async>
    </Page>
  );
}

function FilterForm({ filters, onApply }: { filters: Filters; onApply: (next: Omit<Filters, 'page'>) => void }): ReactNode {
  const [status, setStatus] = useState(filters.status);
  const [type, setType] = useState(filters.type);
  const [modified, setModified] = useState(toLocalInput(filters.modifiedAfter));
  const [limit, setLimit] = useState(filters.limit);
  const apply = (event: { preventDefault(): void }): void => {
    event.preventDefault();
    onApply({ status, type, modifiedAfter: fromLocalInput(modified), limit });
  };
  return (
    <form className="toolbar offers-filters" aria-label="Filter offers" onSubmit={apply}>
      <Field label="Status">
        {(props) => (
          <select {...props} value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Live and upcoming</option>
            {OFFER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s[0]?.toUpperCase()}
                {s.slice(1)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Type">
        {(props) => (
          <select {...props} value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">All types</option>
            {OFFER_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Changed after" hint="Any status unless one is chosen; oldest change first.">
        {(props) => <input {...props} type="datetime-local" value={modified} onChange={(e) => setModified(e.target.value)} />}
      </Field>
      <Field label="Per page">
        {(props) => (
          <select {...props} value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="offers-filter-actions">
        <button type="submit" className="button">
          Apply filters
        </button>
        <button
          type="button"
          className="button secondary"
          onClick={() => onApply({ status: '', type: '', modifiedAfter: '', limit: DEFAULT_LIMIT })}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
