import { type ReactNode, useCallback, useState } from 'react';
import { del, get, post } from '../api';
import {
  Async,
  type Column,
  ConfirmButton,
  DataTable,
  Details,
  Empty,
  Field,
  Form,
  formatDate,
  Modal,
  Page,
  SecretOnce,
} from '../components/ui';
import { useAction, useAsync } from '../hooks';
import { type OAuthClient, type OAuthClientCreated, type OAuthClientSecretRotated, ROTATION_GRACE_MAX_HOURS } from './types';

/** A secret the API just returned: kept in memory only, gone on reload or dismiss. */
interface ShownSecret {
  readonly title: string;
  readonly clientId: string;
  readonly secret: string;
  readonly previousExpiresAt?: string | null;
}

const clientPath = (id: string): string => `/api/v1/clients/${encodeURIComponent(id)}`;

/** Settings → API credentials: the partner's OAuth clients (create, rotate the secret, delete). */
export function ApiCredentialsPage(): ReactNode {
  const clients = useAsync(() => get<{ data: OAuthClient[] }>('/api/v1/clients'), []);
  const [shown, setShown] = useState<ShownSecret | undefined>();
  const [rotating, setRotating] = useState<OAuthClient | undefined>();
  const [removed, setRemoved] = useState<string | undefined>();

  const remove = async (client: OAuthClient): Promise<void> => {
    await del(clientPath(client.client_id));
    setRemoved(
      `Client ${client.name} (${client.client_id}) was deleted: its secret stopped working, its tokens stop within seconds.`,
    );
    if (shown?.clientId === client.client_id) setShown(undefined);
    clients.reload();
  };

  const columns: readonly Column<OAuthClient>[] = [
    { header: 'Name', cell: (c) => c.name },
    { header: 'Client id', cell: (c) => <code>{c.client_id}</code> },
    { header: 'Created', cell: (c) => formatDate(c.created_at) },
    {
      header: 'Previous secret works until',
      cell: (c) => (c.previous_secret_expires_at ? formatDate(c.previous_secret_expires_at) : <span className="muted">—</span>),
    },
    {
      header: 'Actions',
      cell: (c) => (
        <div className="offers-row-actions">
          <button
            type="button"
            className="button secondary"
            onClick={() => setRotating(c)}
            aria-label={`Rotate secret of ${c.name}`}
          >
            Rotate secret
          </button>
          <ConfirmButton
            label="Delete"
            title={`Delete client ${c.name}?`}
            message={
              <p>
                Client <code>{c.client_id}</code> stops working: its secret at once, its access tokens within seconds. Programs
                using it can no longer call the API. This cannot be undone.
              </p>
            }
            confirmLabel="Delete client"
            onConfirm={() => remove(c)}
          />
        </div>
      ),
    },
  ];

  const closeRotate = useCallback(() => setRotating(undefined), []);

  return (
    <Page title="API credentials">
      <p className="muted">
        OAuth clients your systems use to call the API (client credentials grant at <code>POST /oauth/token</code>). A secret is
        shown once, when it is created.
      </p>
      {shown ? (
        <section className="panel offers-secret-panel" aria-labelledby="shown-secret-title">
          <h2 id="shown-secret-title">{shown.title}</h2>
          <Details
            items={[
              ['Client id', <code key="id">{shown.clientId}</code>],
              ...(shown.previousExpiresAt !== undefined
                ? ([
                    [
                      'Previous secret',
                      shown.previousExpiresAt ? `works until ${formatDate(shown.previousExpiresAt)}` : 'stopped working',
                    ],
                  ] as const)
                : []),
            ]}
          />
          <SecretOnce label="Client secret" secret={shown.secret} />
          <div className="form-actions">
            <button type="button" className="button secondary" onClick={() => setShown(undefined)}>
              Done, I have stored it
            </button>
          </div>
        </section>
      ) : null}
      {removed ? (
        <div className="banner banner-success" role="status">
          {removed}
        </div>
      ) : null}
      <div className="offers-credentials">
        <section className="panel" aria-labelledby="clients-title">
          <h2 id="clients-title">OAuth clients</h2>
          <Async
            state={clients}
            empty={(list) =>
              list.data.length === 0 ? (
                <Empty title="No OAuth clients">Create one to let a system of yours call the API.</Empty>
              ) : null
            }
          >
            {(list) => (
              <>
                <DataTable caption="OAuth clients" columns={columns} rows={list.data} rowKey={(c) => c.client_id} />
                <p className="muted small">
                  {list.data.length} client{list.data.length === 1 ? '' : 's'} (at most 20 that work; all on this page).
                </p>
              </>
            )}
          </Async>
        </section>
        <CreateClient
          onCreated={(c) => {
            setRemoved(undefined);
            setShown({ title: `Client ${c.name} created`, clientId: c.client_id, secret: c.client_secret });
            clients.reload();
          }}
        />
      </div>
      {rotating ? (
        <RotateSecret
          client={rotating}
          onClose={closeRotate}
          onRotated={(r) => {
            setRotating(undefined);
            setRemoved(undefined);
            setShown({
              title: `New secret for ${rotating.name}`,
              clientId: r.client_id,
              secret: r.client_secret,
              previousExpiresAt: r.previous_secret_expires_at,
            });
            clients.reload();
          }}
        />
      ) : null}
    </Page>
  );
}

function CreateClient({ onCreated }: { onCreated: (created: OAuthClientCreated) => void }): ReactNode {
  const [name, setName] = useState('');
  const create = useAction((n: string) => post<OAuthClientCreated>('/api/v1/clients', { name: n }));
  const submit = async (): Promise<void> => {
    const created = await create.run(name.trim());
    if (created) {
      setName('');
      onCreated(created);
    }
  };
  return (
    <section className="panel" aria-labelledby="create-client-title">
      <h2 id="create-client-title">Create a client</h2>
      <Form
        label="Create an OAuth client"
        submitLabel="Create client"
        running={create.running}
        error={create.error}
        onSubmit={() => void submit()}
      >
        <Field label="Name" hint="What uses it, e.g. reporting-backend (1–100 characters).">
          {(props) => (
            <input {...props} type="text" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} required />
          )}
        </Field>
      </Form>
    </section>
  );
}

function RotateSecret({
  client,
  onClose,
  onRotated,
}: {
  client: OAuthClient;
  onClose: () => void;
  onRotated: (rotated: OAuthClientSecretRotated) => void;
}): ReactNode {
  const [hours, setHours] = useState('0');
  const rotate = useAction((h: number) =>
    post<OAuthClientSecretRotated>(`${clientPath(client.client_id)}/rotate-secret`, { expires_in_hours: h }),
  );
  const submit = async (): Promise<void> => {
    // the API validates the range and says so; an empty field is the default, 0
    const rotated = await rotate.run(hours.trim() === '' ? 0 : Number(hours));
    if (rotated) onRotated(rotated);
  };
  return (
    <Modal title={`Rotate the secret of ${client.name}`} onClose={onClose}>
      <Form
        label="Rotate the client secret"
        submitLabel="Rotate secret"
        running={rotate.running}
        error={rotate.error}
        onSubmit={() => void submit()}
      >
        <div className="modal-body">
          <p>
            A new secret works at once. The current one can keep working for a grace period while you deploy the new one (rotating
            again ends an earlier grace at once).
          </p>
        </div>
        <Field label="Old secret keeps working for (hours)" hint={`0 (stops at once) to ${ROTATION_GRACE_MAX_HOURS}.`}>
          {(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              min={0}
              max={ROTATION_GRACE_MAX_HOURS}
              step={1}
              value={hours}
              onChange={(e) => setHours(e.target.value)}
            />
          )}
        </Field>
      </Form>
    </Modal>
  );
}
