import { type ReactNode, useState } from 'react';
import { get, getConsoleMode, type ListPage, post, withQuery } from '../api';
import {
  Async,
  Badge,
  ConfirmButton,
  DataTable,
  Details,
  Empty,
  Field,
  Form,
  formatDate,
  formatMoney,
  Notice,
  Page,
} from '../components/ui';
import { useAction, useAsync } from '../hooks';
import { Link } from '../router';
import { moneyInput, parseMoney } from './money';
import { PaymentsPager } from './pager';
import { CANCELLATION_REASONS, type Payment, REFUND_REASONS, type Refund } from './types';
import { type StripeList, useStripeList } from './use-stripe-list';

/** /payments/:id: the payment's amounts, its refunds, and what can be done with it. */
export function PaymentPage({ id }: { id: string }): ReactNode {
  const mode = getConsoleMode();
  const payment = useAsync(() => get<Payment>(`/v2/payments/${encodeURIComponent(id)}`), [id, mode]);
  const [refundsVersion, setRefundsVersion] = useState(0);
  const changed = (): void => {
    payment.reload();
    setRefundsVersion((n) => n + 1);
  };
  return (
    <Page title="Payment" actions={<Link to="/payments">All payments</Link>}>
      <Async state={payment}>
        {(p) => (
          <>
            <PaymentSummary payment={p} />
            {p.status === 'requires_capture' ? <AuthorizationActions payment={p} onChanged={changed} /> : null}
            {p.status === 'succeeded' ? <RefundForm payment={p} onRefunded={changed} /> : null}
            <Refunds payment={p} version={refundsVersion} />
          </>
        )}
      </Async>
    </Page>
  );
}

function PaymentSummary({ payment: p }: { payment: Payment }): ReactNode {
  const money = (n: number): string => formatMoney(n, p.currency);
  return (
    <section className="panel" aria-labelledby="payment-summary">
      <h2 id="payment-summary" className="payments-panel-title">
        {money(p.amount)} <Badge value={p.refunded ? 'refunded' : p.status} />
      </h2>
      {p.failure_message ? (
        <p className="payments-failure">
          {p.failure_message} <span className="muted">({[p.failure_code, p.decline_code].filter(Boolean).join(', ')})</span>
        </p>
      ) : null}
      <Details
        items={[
          ['ID', <code key="id">{p.id}</code>],
          ['Amount', money(p.amount)],
          ['Received', money(p.amount_received)],
          ['Refunded', money(p.amount_refunded)],
          ['Capturable', money(p.amount_capturable)],
          ['Capture before', p.capture_before ? formatDate(p.capture_before) : '—'],
          ['Capture method', p.capture_method],
          [
            'Customer',
            p.customer_id === null ? (
              '—'
            ) : (
              <Link key="customer" to={`/customers/${encodeURIComponent(p.customer_id)}`}>
                {p.customer_id}
              </Link>
            ),
          ],
          ['Description', p.description ?? '—'],
          ['Payment method', <code key="pm">{p.payment_method}</code>],
          ['Captured', formatDate(p.captured_at)],
          ['Canceled', p.canceled_at ? `${formatDate(p.canceled_at)} (${p.cancellation_reason ?? '—'})` : '—'],
          ['Metadata', Object.keys(p.metadata).length ? <code key="md">{JSON.stringify(p.metadata)}</code> : '—'],
          ['Mode', p.livemode ? 'live' : 'test'],
          ['Created', formatDate(p.created)],
        ]}
      />
    </section>
  );
}

/** Refund: the amount (default what is left) and a reason; the API checks the limit and says why it refuses. */
function RefundForm({ payment: p, onRefunded }: { payment: Payment; onRefunded: () => void }): ReactNode {
  const remaining = p.amount_received - p.amount_refunded;
  const [amount, setAmount] = useState(moneyInput(Math.max(remaining, 0), p.currency));
  const [reason, setReason] = useState('');
  const [invalid, setInvalid] = useState<string | undefined>();
  const [done, setDone] = useState<Refund | undefined>();
  const action = useAction((minor: number) =>
    post<Refund>('/v2/refunds', { payment_id: p.id, amount: minor, ...(reason ? { reason } : {}) }),
  );
  const submit = async (): Promise<void> => {
    const parsed = parseMoney(amount, p.currency);
    if ('error' in parsed) {
      setInvalid(parsed.error);
      setDone(undefined);
      action.clear();
      return;
    }
    setInvalid(undefined);
    setDone(undefined);
    const refund = await action.run(parsed.minor);
    if (refund) {
      setDone(refund);
      onRefunded();
    }
  };
  return (
    <section className="panel" aria-labelledby="refund-title">
      <h2 id="refund-title" className="payments-panel-title">
        Refund
      </h2>
      <p className="muted">
        {remaining > 0
          ? `${formatMoney(remaining, p.currency)} can still be refunded.`
          : 'Everything received has been refunded.'}
      </p>
      {done ? <Notice tone="success">Refunded {formatMoney(done.amount, done.currency)}.</Notice> : null}
      <Form
        label="Refund this payment"
        submitLabel="Refund"
        running={action.running}
        error={action.error}
        onSubmit={() => void submit()}
      >
        <div className="payments-form-row">
          <Field label={`Amount (${p.currency.toUpperCase()})`} hint={invalid}>
            {(props) => (
              <input
                {...props}
                inputMode="decimal"
                value={amount}
                aria-invalid={invalid ? true : undefined}
                onChange={(e) => setAmount(e.target.value)}
              />
            )}
          </Field>
          <Field label="Reason">
            {(props) => (
              <select {...props} value={reason} onChange={(e) => setReason(e.target.value)}>
                <option value="">None</option>
                {REFUND_REASONS.map((r) => (
                  <option key={r} value={r}>
                    {r.replace(/_/g, ' ')}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
      </Form>
    </section>
  );
}

/** Capture (in full or in part) or cancel an authorization (status requires_capture). */
function AuthorizationActions({ payment: p, onChanged }: { payment: Payment; onChanged: () => void }): ReactNode {
  const [amount, setAmount] = useState(moneyInput(p.amount_capturable, p.currency));
  const [invalid, setInvalid] = useState<string | undefined>();
  const [reason, setReason] = useState<string>('requested_by_customer');
  const capture = useAction((minor: number) =>
    post<Payment>(`/v2/payments/${encodeURIComponent(p.id)}/capture`, { amount_to_capture: minor }),
  );
  const submit = async (): Promise<void> => {
    const parsed = parseMoney(amount, p.currency);
    if ('error' in parsed) {
      setInvalid(parsed.error);
      capture.clear();
      return;
    }
    setInvalid(undefined);
    if (await capture.run(parsed.minor)) onChanged();
  };
  return (
    <section className="panel" aria-labelledby="authorization-title">
      <h2 id="authorization-title" className="payments-panel-title">
        Authorization
      </h2>
      <p className="muted">
        {formatMoney(p.amount_capturable, p.currency)} is authorized
        {p.capture_before ? ` until ${formatDate(p.capture_before)}` : ''}. Capture takes the money (the rest is released); cancel
        releases all of it.
      </p>
      <Form
        label="Capture this payment"
        submitLabel="Capture"
        running={capture.running}
        error={capture.error}
        onSubmit={() => void submit()}
      >
        <Field label={`Amount to capture (${p.currency.toUpperCase()})`} hint={invalid}>
          {(props) => (
            <input
              {...props}
              inputMode="decimal"
              value={amount}
              aria-invalid={invalid ? true : undefined}
              onChange={(e) => setAmount(e.target.value)}
            />
          )}
        </Field>
      </Form>
      <div className="form-actions">
        <ConfirmButton
          label="Cancel authorization"
          title="Cancel this authorization?"
          confirmLabel="Cancel authorization"
          message={
            <>
              <p>
                {formatMoney(p.amount_capturable, p.currency)} is released to the customer; the payment cannot be captured
                afterwards.
              </p>
              <Field label="Cancellation reason">
                {(props) => (
                  <select {...props} value={reason} onChange={(e) => setReason(e.target.value)}>
                    {CANCELLATION_REASONS.map((r) => (
                      <option key={r} value={r}>
                        {r.replace(/_/g, ' ')}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </>
          }
          onConfirm={async () => {
            await post<Payment>(`/v2/payments/${encodeURIComponent(p.id)}/cancel`, { cancellation_reason: reason });
            onChanged();
          }}
        />
      </div>
    </section>
  );
}

function Refunds({ payment: p, version }: { payment: Payment; version: number }): ReactNode {
  const list = useStripeList(
    (cursor) => get<ListPage<Refund>>(withQuery('/v2/refunds', { payment_id: p.id, limit: 10, ...cursor })),
    `${p.id} ${version}`,
  );
  return (
    <section aria-labelledby="refunds-title">
      <h2 id="refunds-title">Refunds</h2>
      <RefundsTable list={list} currency={p.currency} />
    </section>
  );
}

function RefundsTable({ list, currency }: { list: StripeList<Refund>; currency: string }): ReactNode {
  return (
    <>
      <Async state={list} empty={(page) => (page.data.length === 0 && list.page === 1 ? <Empty title="No refunds" /> : null)}>
        {(page) => (
          <DataTable
            caption="Refunds of this payment"
            rows={page.data}
            rowKey={(r) => r.id}
            columns={[
              { header: 'Amount', align: 'right', cell: (r) => formatMoney(r.amount, r.currency || currency) },
              { header: 'Status', cell: (r) => <Badge value={r.status} /> },
              { header: 'Reason', cell: (r) => (r.reason ? r.reason.replace(/_/g, ' ') : '—') },
              { header: 'ID', cell: (r) => <code>{r.id}</code> },
              { header: 'Created', cell: (r) => formatDate(r.created) },
            ]}
          />
        )}
      </Async>
      <PaymentsPager list={list} label="Refund pages" />
    </>
  );
}
