import { type ReactNode, useState } from 'react';
import { ApiError, get, type ListPage, post } from '../api';
import { Async, Badge, DataTable, Empty, Field, Form, formatDate, Page, SecretOnce } from '../components/ui';
import { useAction, useAsync } from '../hooks';
import { Link } from '../router';
import { EventPicker, EventsSummary } from './event-picker';
import { endpointsApi, type WebhookEndpoint, type WebhookEventType, type WebhookPaths } from './types';

/** Settings → Webhooks: the endpoints, and a form to add one (its signing secret is shown once). */
export function EndpointsPage({ paths }: { paths: WebhookPaths }): ReactNode {
  const base = endpointsApi(paths);
  const endpoints = useAsync(() => get<ListPage<WebhookEndpoint>>(base), [base]);
  const [created, setCreated] = useState<WebhookEndpoint | undefined>();
  const [adding, setAdding] = useState(false);
  return (
    <Page
      title="Webhooks"
      actions={
        <>
          <Link to={`${paths.pathBase}/event-types`} className="button secondary">
            Event catalogue
          </Link>
          {adding ? null : (
            <button type="button" className="button" onClick={() => setAdding(true)}>
              Add endpoint
            </button>
          )}
        </>
      }
    >
      {created?.secret ? (
        <div className="panel">
          <SecretOnce label={`Signing secret of ${created.url}`} secret={created.secret} />
          <p>
            <Link to={`${paths.pathBase}/${created.id}`}>Open the new endpoint</Link>
          </p>
        </div>
      ) : null}
      {adding ? (
        <CreateEndpoint
          paths={paths}
          onCancel={() => setAdding(false)}
          onCreated={(e) => {
            setCreated(e);
            setAdding(false);
            endpoints.reload();
          }}
        />
      ) : null}
      <Async
        state={endpoints}
        empty={(list) =>
          list.data.length === 0 ? (
            <Empty title="No webhook endpoints yet">Add one to receive events as they happen.</Empty>
          ) : null
        }
      >
        {(list) => (
          <DataTable
            caption="Webhook endpoints"
            rows={list.data}
            rowKey={(e) => e.id}
            columns={[
              {
                header: 'URL',
                cell: (e) => (
                  <Link to={`${paths.pathBase}/${e.id}`} className="wh-url">
                    {e.url}
                  </Link>
                ),
              },
              { header: 'Description', cell: (e) => e.description ?? '—' },
              { header: 'Events', cell: (e) => <EventsSummary events={e.events} /> },
              {
                header: 'Status',
                cell: (e) => (
                  <span>
                    <Badge value={e.status} />
                    {e.disabled_reason ? <span className="muted small"> {e.disabled_reason}</span> : null}
                  </span>
                ),
              },
              { header: 'Failing since', cell: (e) => (e.failing_since ? formatDate(e.failing_since) : '—') },
            ]}
          />
        )}
      </Async>
    </Page>
  );
}

function CreateEndpoint({
  paths,
  onCreated,
  onCancel,
}: {
  paths: WebhookPaths;
  onCreated: (endpoint: WebhookEndpoint) => void;
  onCancel: () => void;
}): ReactNode {
  const base = endpointsApi(paths);
  const kinds = useAsync(() => get<ListPage<WebhookEventType>>(`${base}/event-types`), [base]);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(['*']);
  const [rate, setRate] = useState('');
  const create = useAction(() => {
    // the API reads an empty list as "all": say so instead of surprising
    if (events.length === 0) throw new ApiError(0, 'parameter_invalid', 'Choose at least one event, or all events.', 'events');
    return post<WebhookEndpoint>(base, {
      url: url.trim(),
      events,
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(rate.trim() ? { rate_limit_per_second: Number(rate) } : {}),
    });
  });
  const submit = async (): Promise<void> => {
    const endpoint = await create.run();
    if (endpoint) onCreated(endpoint);
  };
  return (
    <div className="panel">
      <h2>New endpoint</h2>
      <Form
        label="New webhook endpoint"
        submitLabel="Create endpoint"
        running={create.running}
        error={create.error}
        onSubmit={() => void submit()}
      >
        <Field label="Endpoint URL" hint="Where events are POSTed (https in production)">
          {(p) => <input {...p} type="url" value={url} onChange={(e) => setUrl(e.target.value)} required autoComplete="off" />}
        </Field>
        <Field label="Description">
          {(p) => <input {...p} value={description} maxLength={500} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <Async state={kinds}>{(list) => <EventPicker kinds={list.data} value={events} onChange={setEvents} />}</Async>
        <Field label="Rate limit (deliveries per second)" hint="Optional; deliveries beyond it wait, none are dropped">
          {(p) => (
            <input
              {...p}
              type="number"
              min={1}
              max={10000}
              inputMode="numeric"
              value={rate}
              onChange={(e) => setRate(e.target.value)}
            />
          )}
        </Field>
      </Form>
      <button type="button" className="button ghost" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
