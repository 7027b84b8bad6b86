import { type ReactNode, useState } from 'react';
import { get, type ListPage, post } from '../api';
import { Async, Empty, ErrorBanner, Field, Notice, Page } from '../components/ui';
import { useAction, useAsync } from '../hooks';
import { Link } from '../router';
import { endpointsApi, type WebhookDelivery, type WebhookEndpoint, type WebhookEventType, type WebhookPaths } from './types';

/** Every kind of event the service sends, with its description and an example payload; "Send as test" to an endpoint. */
export function CataloguePage({ paths }: { paths: WebhookPaths }): ReactNode {
  const base = endpointsApi(paths);
  const kinds = useAsync(() => get<ListPage<WebhookEventType>>(`${base}/event-types`), [base]);
  const endpoints = useAsync(() => get<ListPage<WebhookEndpoint>>(base), [base]);
  const enabled = (endpoints.data?.data ?? []).filter((e) => e.status === 'enabled');
  const [target, setTarget] = useState('');
  const endpointId = target || enabled[0]?.id || '';
  const [sent, setSent] = useState<WebhookDelivery | undefined>();
  const send = useAction(async (event: string) => {
    setSent(await post<WebhookDelivery>(`${base}/${encodeURIComponent(endpointId)}/test`, { event }));
  });

  return (
    <Page title="Event catalogue" actions={<Link to={paths.pathBase}>Webhook endpoints</Link>}>
      <div className="panel">
        {enabled.length > 0 ? (
          <Field label="Send test events to" hint="An example of the kind, marked test, signed and delivered as usual">
            {(p) => (
              <select {...p} value={endpointId} onChange={(e) => setTarget(e.target.value)}>
                {enabled.map((e) => (
                  <option key={e.id} value={e.id}>
                    {e.description ? `${e.description} — ${e.url}` : e.url}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : (
          <p className="muted">
            {endpoints.data ? (
              <>
                To send an example as a test event, <Link to={paths.pathBase}>add an enabled endpoint</Link> first.
              </>
            ) : (
              'Loading your endpoints…'
            )}
          </p>
        )}
        <ErrorBanner error={endpoints.error ?? send.error} />
        {sent ? (
          <Notice tone="success">
            Test event <code>{sent.event}</code> queued.{' '}
            <Link to={`${paths.pathBase}/${sent.endpoint_id}`}>See its delivery</Link>
          </Notice>
        ) : null}
      </div>
      <Async state={kinds} empty={(list) => (list.data.length === 0 ? <Empty title="This service sends no events" /> : null)}>
        {(list) => (
          <ul className="wh-catalogue">
            {list.data.map((k) => (
              <li key={k.type} className="panel">
                <div className="wh-section-head">
                  <h2>
                    <code>{k.type}</code>
                  </h2>
                  {endpointId ? (
                    <button
                      type="button"
                      className="button secondary"
                      onClick={() => void send.run(k.type)}
                      disabled={send.running}
                      aria-label={`Send as test: ${k.type}`}
                    >
                      Send as test
                    </button>
                  ) : null}
                </div>
                <p>{k.description}</p>
                <h3 className="small">Example payload</h3>
                <pre className="wh-json" tabIndex={0} aria-label={`Example payload of ${k.type}`}>
                  {JSON.stringify(k.example, null, 2)}
                </pre>
              </li>
            ))}
          </ul>
        )}
      </Async>
    </Page>
  );
}
