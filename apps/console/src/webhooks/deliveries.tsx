import { type ReactNode, useEffect, useRef, useState } from 'react';
import { get, type ListPage, post, withQuery } from '../api';
import { BarChart } from '../components/charts';
import { Async, Badge, DataTable, Empty, ErrorBanner, Field, formatDate, Pager } from '../components/ui';
import { useAction, useAsync, useCursorList } from '../hooks';
import type { DeliveryStatus, StatsGranularity, WebhookAttempt, WebhookDelivery, WebhookEndpointStats } from './types';

const PAGE_SIZE = 10;

/**
 * The endpoint's delivery log: the chart of attempts that succeeded and failed over time
 * (counted by the API's stats route, not from this page), and the deliveries, newest first,
 * each with its attempts and a Retry. While a delivery is about to be tried, the log refreshes.
 */
export function DeliveryLog({ url, version }: { url: string; version: number }): ReactNode {
  const [status, setStatus] = useState<'' | DeliveryStatus>('');
  const list = useCursorList<WebhookDelivery>(
    (startingAfter) =>
      get<ListPage<WebhookDelivery>>(withQuery(`${url}/deliveries`, { limit: PAGE_SIZE, status, starting_after: startingAfter })),
    `${url}|${status}`,
  );
  const [retried, setRetried] = useState(0);
  const retry = useAction(async (deliveryId: string) => {
    await post<WebhookDelivery>(`${url}/deliveries/${encodeURIComponent(deliveryId)}/retry`);
    setRetried((n) => n + 1);
  });

  // something else changed the log (a test event, a recovery, a retry): read it again
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    list.reload();
  }, [version, retried]);

  // a delivery about to be tried: look again shortly, so its attempt shows without a manual refresh
  const soon = (list.data?.data ?? []).some(
    (d) => d.status === 'pending' && (d.next_attempt_at === null || new Date(d.next_attempt_at).getTime() - Date.now() < 60_000),
  );
  useEffect(() => {
    if (!soon || list.loading) return undefined;
    const timer = window.setTimeout(() => list.reload(), 1_000);
    return () => window.clearTimeout(timer);
  }, [soon, list.data, list.loading]);

  return (
    <>
      <DeliveryChart url={url} refreshKey={list.data} />
      <section className="panel" aria-labelledby="wh-deliveries-title">
        <div className="wh-section-head">
          <h2 id="wh-deliveries-title">Deliveries</h2>
          <div className="toolbar">
            <Field label="Status">
              {(p) => (
                <select {...p} value={status} onChange={(e) => setStatus(e.target.value as '' | DeliveryStatus)}>
                  <option value="">All</option>
                  <option value="pending">Pending</option>
                  <option value="succeeded">Succeeded</option>
                  <option value="failed">Failed</option>
                </select>
              )}
            </Field>
            <button type="button" className="button secondary" onClick={() => list.reload()}>
              Refresh
            </button>
          </div>
        </div>
        <ErrorBanner error={retry.error} title="The delivery could not be retried" />
        <Async
          state={list}
          empty={(page) =>
            page.data.length === 0 ? (
              <Empty title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
                Events sent to this endpoint, and test events, are listed here.
              </Empty>
            ) : null
          }
        >
          {(page) => (
            <DataTable
              caption="Deliveries of this endpoint"
              rows={page.data}
              rowKey={(d) => d.id}
              columns={[
                {
                  header: 'Event',
                  cell: (d) => (
                    <span>
                      <code>{d.event}</code>
                      <br />
                      <span className="muted small mono">{d.id}</span>
                    </span>
                  ),
                },
                { header: 'Status', cell: (d) => <Badge value={d.status} /> },
                { header: 'Attempts', cell: (d) => <Attempts delivery={d} /> },
                { header: 'Created', cell: (d) => formatDate(d.created_at) },
                { header: 'Next retry', cell: (d) => (d.next_attempt_at ? formatDate(d.next_attempt_at) : '—') },
                {
                  header: 'Actions',
                  cell: (d) => (
                    <button
                      type="button"
                      className="button secondary"
                      onClick={() => void retry.run(d.id)}
                      disabled={retry.running}
                      aria-label={`Retry delivery ${d.id}`}
                    >
                      Retry
                    </button>
                  ),
                },
              ]}
            />
          )}
        </Async>
        <Pager
          label="Deliveries pages"
          page={list.page}
          hasPrevious={list.hasPrevious}
          hasNext={list.hasNext}
          onPrevious={() => list.previous()}
          onNext={() => list.next()}
        />
      </section>
    </>
  );
}

/** A delivery's attempts, in a disclosure: status code, latency, time, response excerpt or error. */
function Attempts({ delivery }: { delivery: WebhookDelivery }): ReactNode {
  if (delivery.attempts.length === 0) return <span className="muted">{delivery.attempt_count} attempts</span>;
  return (
    <details className="wh-attempts">
      <summary>
        {delivery.attempts.length === 1 ? '1 attempt' : `${delivery.attempts.length} attempts`}
        <span className="sr-only"> of delivery {delivery.id}</span>
      </summary>
      <ol>
        {delivery.attempts.map((a, i) => (
          <li key={`${a.created_at}-${i}`}>
            <AttemptLine attempt={a} />
          </li>
        ))}
      </ol>
    </details>
  );
}

function AttemptLine({ attempt }: { attempt: WebhookAttempt }): ReactNode {
  const ok = attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300;
  return (
    <div className="wh-attempt">
      <span className={ok ? 'wh-code wh-ok' : 'wh-code wh-fail'}>
        {attempt.status_code === null ? 'No answer' : `HTTP ${attempt.status_code}`}
      </span>{' '}
      <span>{attempt.duration_ms} ms</span> <span className="muted small">{formatDate(attempt.created_at)}</span>
      {attempt.response_excerpt ? (
        <div>
          <span className="muted small">Response: </span>
          <code className="wh-excerpt">{attempt.response_excerpt}</code>
        </div>
      ) : null}
      {attempt.error ? <div className="wh-error">Error: {attempt.error}</div> : null}
    </div>
  );
}

/** Counts are whole; the axis of a small maximum has half steps (0.5, 1.5), shown as such rather than rounded twice. */
const countLabel = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1));

const WINDOWS: Record<StatsGranularity, string> = { hour: 'Last 24 hours, per hour', day: 'Last 7 days, per day' };

function bucketLabel(start: string, granularity: StatsGranularity): string {
  const d = new Date(start);
  return granularity === 'hour'
    ? d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
}

/** Successes and failures per hour (24 h) or per day (7 days), from GET …/{id}/stats. */
export function DeliveryChart({ url, refreshKey }: { url: string; refreshKey: unknown }): ReactNode {
  const [granularity, setGranularity] = useState<StatsGranularity>('hour');
  const stats = useAsync(
    () => get<WebhookEndpointStats>(withQuery(`${url}/stats`, { granularity })),
    [url, granularity, refreshKey],
  );
  return (
    <section className="panel" aria-labelledby="wh-chart-title">
      <div className="wh-section-head">
        <h2 id="wh-chart-title">Delivery attempts</h2>
        <div className="toolbar">
          <Field label="Period">
            {(p) => (
              <select {...p} value={granularity} onChange={(e) => setGranularity(e.target.value as StatsGranularity)}>
                <option value="hour">{WINDOWS.hour}</option>
                <option value="day">{WINDOWS.day}</option>
              </select>
            )}
          </Field>
        </div>
      </div>
      <Async state={stats}>
        {(s) => {
          const succeeded = s.buckets.reduce((n, b) => n + b.succeeded, 0);
          const failed = s.buckets.reduce((n, b) => n + b.failed, 0);
          return (
            <>
              <p className="wh-totals">
                <span>
                  <strong>{succeeded}</strong> succeeded
                </span>
                <span>
                  <strong>{failed}</strong> failed
                </span>
              </p>
              <BarChart
                title={`Delivery attempts, ${WINDOWS[s.granularity].toLowerCase()}`}
                labels={s.buckets.map((b) => bucketLabel(b.start, s.granularity))}
                series={[
                  { name: 'Succeeded', values: s.buckets.map((b) => b.succeeded), tone: 'series-success' },
                  { name: 'Failed', values: s.buckets.map((b) => b.failed), tone: 'series-failure' },
                ]}
                format={countLabel}
              />
            </>
          );
        }}
      </Async>
    </section>
  );
}
