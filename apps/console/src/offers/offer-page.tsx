import { type ReactNode, useState } from 'react';
import { del, get, type ListPage } from '../api';
import {
  Async,
  Badge,
  type Column,
  ConfirmButton,
  DataTable,
  Details,
  Empty,
  formatDate,
  formatMoney,
  Notice,
  Page,
  Pager,
} from '../components/ui';
import { useAsync, useCursorList } from '../hooks';
import { Link } from '../router';
import { closesIn, formatMajor, typeLabel } from './format';
import type { Allocation, Indication, IndicationList, Offer } from './types';

/** Indications shown per page (the API answers all of an offer's at once; the page slices them). */
const INDICATIONS_PER_PAGE = 10;
const ALLOCATIONS_PER_PAGE = 10;

const offerPath = (id: string): string => `/api/v1/offers/${encodeURIComponent(id)}`;

/** One offer: its details and documents, the partner's indications on it, and their allocations. */
export function OfferPage({ id }: { id: string }): ReactNode {
  const offer = useAsync(() => get<Offer>(offerPath(id)), [id]);
  return (
    <Page
      title={offer.data ? `${offer.data.company} (${offer.data.ticker})` : 'Offer'}
      actions={<Link to="/offers">All offers</Link>}
    >
      <Async state={offer}>
        {(o) => (
          <>
            <OfferDetails offer={o} />
            <Indications offer={o} />
            <Allocations offer={o} />
          </>
        )}
      </Async>
    </Page>
  );
}

function OfferDetails({ offer }: { offer: Offer }): ReactNode {
  return (
    <section className="panel" aria-labelledby="offer-details">
      <h2 id="offer-details">Details</h2>
      <Details
        items={[
          ['Status', <Badge key="s" value={offer.status} />],
          ['Type', typeLabel(offer.type)],
          ['Offer id', <code key="id">{offer.id}</code>],
          ['Price per share', formatMajor(offer.price_per_share, offer.currency, 4)],
          ['Minimum investment', formatMajor(offer.minimum_investment, offer.currency)],
          ['Maximum investment', formatMajor(offer.maximum_investment, offer.currency)],
          ['Shares offered', offer.shares_offered.toLocaleString('en-GB')],
          ['Opens', formatDate(offer.opens_at)],
          [
            'Closes',
            <span key="c">
              {formatDate(offer.closes_at)} <span className="muted">({closesIn(offer.closes_at, offer.status)})</span>
            </span>,
          ],
          ['Last changed', formatDate(offer.updated_at)],
        ]}
      />
      <h3 className="offers-subheading">Documents</h3>
      {offer.documents.length === 0 ? (
        <p className="muted">No documents for this offer.</p>
      ) : (
        <ul className="offers-documents">
          {offer.documents.map((d) => (
            <li key={`${d.type}-${d.url}`}>
              {/* another origin: a plain link the user may follow, never fetched by the console */}
              <a href={d.url} target="_blank" rel="noopener noreferrer">
                {d.title}
                <span className="sr-only"> (opens in a new tab)</span>
              </a>{' '}
              <span className="muted small">{d.type.replace(/_/g, ' ')}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Indications({ offer }: { offer: Offer }): ReactNode {
  const list = useAsync(() => get<IndicationList>(`${offerPath(offer.id)}/indications`), [offer.id]);
  const [page, setPage] = useState(1);
  const [done, setDone] = useState<string | undefined>();
  const cancel = async (indication: Indication): Promise<void> => {
    const after = await del<Indication>(`${offerPath(offer.id)}/indications/${encodeURIComponent(indication.id)}`);
    setDone(`The indication of ${after.investor_id} is ${after.status}.`);
    list.reload();
  };
  const columns: readonly Column<Indication>[] = [
    { header: 'Investor', cell: (i) => <span className="mono">{i.investor_id}</span> },
    { header: 'Amount', cell: (i) => formatMoney(i.amount, i.currency), align: 'right' },
    { header: 'Status', cell: (i) => <Badge value={i.status} /> },
    { header: 'Submitted', cell: (i) => formatDate(i.created_at) },
    { header: 'Terms', cell: (i) => i.terms_version },
    {
      header: 'Actions',
      cell: (i) =>
        i.status === 'received' && offer.status === 'live' ? (
          <ConfirmButton
            label="Cancel indication"
            title="Cancel this indication?"
            message={
              <p>
                The indication of <strong>{i.investor_id}</strong> for {formatMoney(i.amount, i.currency)} is withdrawn from the
                offer. This cannot be undone: the investor would have to submit a new one.
              </p>
            }
            confirmLabel="Cancel indication"
            onConfirm={() => cancel(i)}
          />
        ) : (
          <span className="muted small">—</span>
        ),
    },
  ];
  return (
    <section className="panel" aria-labelledby="offer-indications">
      <h2 id="offer-indications">Indications</h2>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <Async
        state={list}
        empty={(l) =>
          l.indications.length === 0 ? (
            <Empty title="No indications yet">Your investors' indications on this offer appear here.</Empty>
          ) : null
        }
      >
        {(l) => {
          const pages = Math.max(1, Math.ceil(l.indications.length / INDICATIONS_PER_PAGE));
          const current = Math.min(page, pages);
          const rows = l.indications.slice((current - 1) * INDICATIONS_PER_PAGE, current * INDICATIONS_PER_PAGE);
          return (
            <>
              <p className="muted small">
                {l.total} indication{l.total === 1 ? '' : 's'}
              </p>
              <DataTable caption="Indications" columns={columns} rows={rows} rowKey={(i) => i.id} />
              <Pager
                label="Indication pages"
                page={current}
                hasPrevious={current > 1}
                hasNext={current < pages}
                onPrevious={() => setPage(current - 1)}
                onNext={() => setPage(current + 1)}
              />
            </>
          );
        }}
      </Async>
    </section>
  );
}

const ALLOCATION_COLUMNS: readonly Column<Allocation>[] = [
  { header: 'Investor', cell: (a) => <span className="mono">{a.investor_id}</span> },
  { header: 'Outcome', cell: (a) => <Badge value={a.outcome} /> },
  { header: 'Shares requested', cell: (a) => a.shares_requested.toLocaleString('en-GB'), align: 'right' },
  { header: 'Shares allocated', cell: (a) => a.shares_allocated.toLocaleString('en-GB'), align: 'right' },
  { header: 'Amount allocated', cell: (a) => formatMajor(a.amount_allocated, a.currency), align: 'right' },
  { header: 'Refunded', cell: (a) => formatMoney(a.amount_refunded, a.currency), align: 'right' },
  { header: 'Allocated', cell: (a) => formatDate(a.created_at) },
];

function Allocations({ offer }: { offer: Offer }): ReactNode {
  const list = useCursorList<Allocation>(
    (startingAfter) =>
      get<ListPage<Allocation>>('/api/v1/allocations', {
        offer_id: offer.id,
        limit: ALLOCATIONS_PER_PAGE,
        starting_after: startingAfter,
      }),
    offer.id,
  );
  return (
    <section className="panel" aria-labelledby="offer-allocations">
      <h2 id="offer-allocations">Allocations</h2>
      <Async
        state={list}
        empty={(page) =>
          page.data.length === 0 && list.page === 1 ? (
            <Empty title="No allocations yet">
              {offer.status === 'closed'
                ? 'The operator has not allocated this offer yet.'
                : 'Allocations are made after the offer closes.'}
            </Empty>
          ) : null
        }
      >
        {(page) => (
          <>
            <DataTable caption="Allocations" columns={ALLOCATION_COLUMNS} rows={page.data} rowKey={(a) => a.id} />
            <Pager
              label="Allocation pages"
              page={list.page}
              hasPrevious={list.hasPrevious}
              hasNext={list.hasNext}
              onPrevious={() => list.previous()}
              onNext={() => list.next()}
            />
          </>
        )}
      </Async>
    </section>
  );
}
