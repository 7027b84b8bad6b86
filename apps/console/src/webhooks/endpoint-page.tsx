import { type ReactNode, useState } from 'react';
import { ApiError, del, get, type ListPage, patch, post } from '../api';
import {
  Async,
  Badge,
  ConfirmButton,
  Details,
  ErrorBanner,
  Field,
  Form,
  formatDate,
  Modal,
  Notice,
  Page,
  SecretOnce,
} from '../components/ui';
import { useAction, useAsync } from '../hooks';
import { Link, navigate } from '../router';
import { DeliveryLog } from './deliveries';
import { EventPicker, EventsSummary, localToIso, toLocalInput } from './event-picker';
import {
  endpointsApi,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookPaths,
  type WebhookRecovery,
} from './types';

/** One endpoint: details, edit, enable, rotate secret, delete; test events, recovery, the chart and its deliveries. */
export function EndpointPage({ paths, id }: { paths: WebhookPaths; id: string }): ReactNode {
  const url = `${endpointsApi(paths)}/${encodeURIComponent(id)}`;
  const endpoint = useAsync(() => get<WebhookEndpoint>(url), [url]);
  const kinds = useAsync(() => get<ListPage<WebhookEventType>>(`${endpointsApi(paths)}/event-types`), [paths.apiBase]);
  const [secret, setSecret] = useState<string | undefined>();
  const [editing, setEditing] = useState(false);
  // bumped whenever something may have added or changed deliveries: the list and chart reload
  const [version, setVersion] = useState(0);
  const changed = (): void => setVersion((v) => v + 1);
  const enable = useAction(async () => {
    await post<WebhookEndpoint>(`${url}/enable`);
    endpoint.reload();
  });

  return (
    <Page title="Webhook endpoint" actions={<Link to={paths.pathBase}>All endpoints</Link>}>
      <Async state={endpoint}>
        {(e) => (
          <>
            {secret ? (
              <div className="panel">
                <SecretOnce label="New signing secret" secret={secret} />
                {e.previous_secret_expires_at ? (
                  <p className="muted">The previous secret also signs until {formatDate(e.previous_secret_expires_at)}.</p>
                ) : null}
              </div>
            ) : null}
            <div className="panel">
              <h2 className="wh-url">{e.url}</h2>
              <Details
                items={[
                  ['ID', <code key="id">{e.id}</code>],
                  ['Description', e.description ?? '—'],
                  ['Events', <EventsSummary key="ev" events={e.events} />],
                  [
                    'Status',
                    <span key="st">
                      <Badge value={e.status} />
                      {e.disabled_reason ? <span className="muted"> {e.disabled_reason}</span> : null}
                    </span>,
                  ],
                  ['Failing since', e.failing_since ? formatDate(e.failing_since) : '—'],
                  ['Rate limit', e.rate_limit_per_second === null ? 'None' : `${e.rate_limit_per_second} per second`],
                  ['Previous secret valid until', e.previous_secret_expires_at ? formatDate(e.previous_secret_expires_at) : '—'],
                  ['Created', formatDate(e.created_at)],
                ]}
              />
              <div className="toolbar wh-actions">
                <button type="button" className="button secondary" onClick={() => setEditing(true)}>
                  Edit
                </button>
                {e.status === 'disabled' ? (
                  <button type="button" className="button" onClick={() => void enable.run()} disabled={enable.running}>
                    Enable
                  </button>
                ) : null}
                <ConfirmButton
                  label="Rotate secret"
                  title="Rotate the signing secret?"
                  message={<p>A new secret signs from now on; the previous one keeps signing during a grace period.</p>}
                  confirmLabel="Rotate secret"
                  tone="primary"
                  onConfirm={async () => {
                    const rotated = await post<WebhookEndpoint>(`${url}/rotate-secret`);
                    setSecret(rotated.secret);
                    endpoint.reload();
                  }}
                />
                <ConfirmButton
                  label="Delete"
                  title="Delete this endpoint?"
                  message={<p>It stops receiving events at once, and its delivery log is deleted. This cannot be undone.</p>}
                  confirmLabel="Delete endpoint"
                  onConfirm={async () => {
                    await del(url);
                    navigate(paths.pathBase);
                  }}
                />
              </div>
              <ErrorBanner error={enable.error} />
            </div>
            {editing ? (
              <EditEndpoint
                url={url}
                endpoint={e}
                kinds={kinds.data?.data ?? []}
                onClose={() => setEditing(false)}
                onSaved={() => {
                  setEditing(false);
                  endpoint.reload();
                }}
              />
            ) : null}
            <div className="grid-2">
              <SendTest url={url} kinds={kinds.data?.data ?? []} disabled={e.status === 'disabled'} onSent={changed} />
              <Recover url={url} failingSince={e.failing_since} disabled={e.status === 'disabled'} onRecovered={changed} />
            </div>
            <DeliveryLog url={url} version={version} />
          </>
        )}
      </Async>
    </Page>
  );
}

function EditEndpoint({
  url,
  endpoint,
  kinds,
  onClose,
  onSaved,
}: {
  url: string;
  endpoint: WebhookEndpoint;
  kinds: readonly WebhookEventType[];
  onClose: () => void;
  onSaved: () => void;
}): ReactNode {
  const [target, setTarget] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const [events, setEvents] = useState<string[]>([...endpoint.events]);
  const [disabled, setDisabled] = useState(endpoint.status === 'disabled');
  const save = useAction(async () => {
    if (events.length === 0) throw new ApiError(0, 'parameter_invalid', 'Choose at least one event, or all events.', 'events');
    await patch<WebhookEndpoint>(url, {
      url: target.trim(),
      events,
      description: description.trim() ? description.trim() : null,
      ...(disabled !== (endpoint.status === 'disabled') ? { disabled } : {}),
    });
    onSaved();
  });
  return (
    <Modal title="Edit endpoint" onClose={onClose}>
      <Form
        label="Edit webhook endpoint"
        submitLabel="Save"
        running={save.running}
        error={save.error}
        onSubmit={() => void save.run()}
      >
        <Field label="Endpoint URL">
          {(p) => <input {...p} type="url" value={target} onChange={(e) => setTarget(e.target.value)} required />}
        </Field>
        <Field label="Description">
          {(p) => <input {...p} value={description} maxLength={500} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <EventPicker kinds={kinds} value={events} onChange={setEvents} />
        <label className="checkbox">
          <input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} />
          <span>Disabled (nothing is sent while disabled)</span>
        </label>
      </Form>
    </Modal>
  );
}

function SendTest({
  url,
  kinds,
  disabled,
  onSent,
}: {
  url: string;
  kinds: readonly WebhookEventType[];
  disabled: boolean;
  onSent: () => void;
}): ReactNode {
  const [kind, setKind] = useState('');
  const [sent, setSent] = useState<WebhookDelivery | undefined>();
  const send = useAction(async () => {
    const delivery = await post<WebhookDelivery>(`${url}/test`, kind ? { event: kind } : {});
    setSent(delivery);
    onSent();
  });
  return (
    <div className="panel">
      <h2>Send a test event</h2>
      <Form
        label="Send a test event"
        submitLabel="Send test event"
        running={send.running}
        error={send.error}
        onSubmit={() => void send.run()}
      >
        <Field label="Event kind" hint="An example payload of this kind, marked test, signed and delivered as usual">
          {(p) => (
            <select {...p} value={kind} onChange={(e) => setKind(e.target.value)}>
              <option value="">Default ({kinds[0]?.type ?? 'first kind'})</option>
              {kinds.map((k) => (
                <option key={k.type} value={k.type}>
                  {k.type}
                </option>
              ))}
            </select>
          )}
        </Field>
        {disabled ? <p className="hint">The endpoint is disabled: enable it to send.</p> : null}
      </Form>
      {sent ? (
        <Notice tone="success">
          Test event {sent.event} queued as delivery {sent.id}.
        </Notice>
      ) : null}
    </div>
  );
}

function Recover({
  url,
  failingSince,
  disabled,
  onRecovered,
}: {
  url: string;
  failingSince: string | null;
  disabled: boolean;
  onRecovered: () => void;
}): ReactNode {
  const [since, setSince] = useState(() =>
    toLocalInput(failingSince ? new Date(failingSince) : new Date(Date.now() - 86_400_000)),
  );
  const [until, setUntil] = useState('');
  const [result, setResult] = useState<WebhookRecovery | undefined>();
  const recover = useAction(async () => {
    const sinceIso = localToIso(since);
    if (!sinceIso) throw new ApiError(0, 'parameter_invalid', 'Enter the time to recover from.', 'since');
    const untilIso = localToIso(until);
    const answer = await post<WebhookRecovery>(`${url}/recover`, { since: sinceIso, ...(untilIso ? { until: untilIso } : {}) });
    setResult(answer);
    onRecovered();
  });
  return (
    <div className="panel">
      <h2>Recover failed deliveries</h2>
      <Form
        label="Recover failed deliveries"
        submitLabel="Recover"
        running={recover.running}
        error={recover.error}
        onSubmit={() => void recover.run()}
      >
        <Field label="Since" hint="Every failed delivery created from this time (your local time) is sent again">
          {(p) => <input {...p} type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} required />}
        </Field>
        <Field label="Until (optional)">
          {(p) => <input {...p} type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />}
        </Field>
        {disabled ? <p className="hint">The endpoint is disabled: enable it first.</p> : null}
      </Form>
      {result ? (
        <Notice tone="success">
          {result.requeued === 1 ? '1 failed delivery queued again.' : `${result.requeued} failed deliveries queued again.`}
        </Notice>
      ) : null}
    </div>
  );
}
