import { type ReactNode, useState } from 'react';
import { del, get, getConsoleMode, type ListPage, post, withQuery } from '../api';
import { Async, Badge, ConfirmButton, DataTable, Empty, Field, Form, formatDate, Page, SecretOnce } from '../components/ui';
import { useAction } from '../hooks';
import { PaymentsPager } from './pager';
import {
  type ApiKey,
  type CreatedApiKey,
  PERMISSION_LEVELS,
  PERMISSION_RESOURCES,
  type PermissionLevel,
  type PermissionResource,
} from './types';
import { useStripeList } from './use-stripe-list';

const RESOURCE_LABELS: Record<PermissionResource, string> = {
  customers: 'Customers',
  payments: 'Payments',
  refunds: 'Refunds',
  webhooks: 'Webhooks',
  events: 'Events',
};

function permissionSummary(key: ApiKey): string {
  if (!key.permissions) return 'everything';
  const granted = PERMISSION_RESOURCES.filter((r) => key.permissions?.[r] !== 'none').map((r) => `${r} ${key.permissions?.[r]}`);
  return granted.length ? granted.join(', ') : 'nothing';
}

/**
 * /developers/api-keys: the account's keys (never a secret), roll the mode's secret key,
 * create a restricted key, revoke a key. The console session acts as the mode's secret key
 * but is not one of the keys: the API's rules (e.g. `last_secret_key`) answer as they are.
 */
export function ApiKeysPage(): ReactNode {
  const mode = getConsoleMode();
  const [version, setVersion] = useState(0);
  const [secret, setSecret] = useState<{ label: string; value: string } | undefined>();
  const list = useStripeList(
    (cursor) => get<ListPage<ApiKey>>(withQuery('/v2/api-keys', { limit: 20, ...cursor })),
    `${mode} ${version}`,
  );
  const changed = (): void => setVersion((n) => n + 1);
  return (
    <Page title="API keys">
      <p className="muted">
        Developers · {mode === 'live' ? 'Live' : 'Test'} mode. A new key’s secret is shown once; only its last 4 characters are
        kept.
      </p>
      {secret ? <SecretOnce label={secret.label} secret={secret.value} /> : null}
      <Async
        state={list}
        empty={(page) => (page.data.length === 0 && list.page === 1 ? <Empty title={`No working ${mode} keys`} /> : null)}
      >
        {(page) => (
          <DataTable
            caption={`API keys, page ${list.page}`}
            rows={page.data}
            rowKey={(k) => k.id}
            columns={[
              { header: 'Kind', cell: (k) => <Badge value={k.kind} /> },
              { header: 'Mode', cell: (k) => k.mode },
              { header: 'Name', cell: (k) => k.name ?? '—' },
              {
                header: 'Key',
                cell: (k) => <code>{`${k.kind === 'secret' ? 'sk' : 'rk'}_${k.mode}_…${k.last4 ?? '····'}`}</code>,
              },
              { header: 'Permissions', cell: permissionSummary },
              { header: 'Created', cell: (k) => formatDate(k.created) },
              { header: 'Expires', cell: (k) => (k.expires_at ? formatDate(k.expires_at) : 'never') },
              { header: 'Last used', cell: (k) => (k.last_used_at ? formatDate(k.last_used_at) : 'never') },
              {
                header: 'Actions',
                cell: (k) => (
                  <ConfirmButton
                    label={`Revoke ${k.name ?? k.kind} key …${k.last4 ?? ''}`}
                    title="Revoke this key?"
                    confirmLabel="Revoke key"
                    message={
                      <>
                        <p>Requests with this key will be refused (401) at once. This cannot be undone.</p>
                        {k.kind === 'secret' &&
                        page.data.filter((other) => other.kind === 'secret' && other.mode === k.mode).length === 1 ? (
                          <p>
                            <strong>It is the only working {k.mode} secret key.</strong> To replace it, roll the secret key
                            instead: the new one is shown once.
                          </p>
                        ) : null}
                      </>
                    }
                    onConfirm={async () => {
                      await del(`/v2/api-keys/${encodeURIComponent(k.id)}`);
                      changed();
                    }}
                  />
                ),
              },
            ]}
          />
        )}
      </Async>
      <PaymentsPager list={list} label="API key pages" />
      <div className="payments-columns">
        <RollSecretKey
          mode={mode}
          onRolled={(key) => {
            setSecret({ label: `New ${mode} secret key`, value: key.secret });
            changed();
          }}
        />
        <RestrictedKeyForm
          mode={mode}
          onCreated={(key) => {
            setSecret({ label: `Restricted key “${key.name ?? ''}”`, value: key.secret });
            changed();
          }}
        />
      </div>
    </Page>
  );
}

function RollSecretKey({ mode, onRolled }: { mode: 'test' | 'live'; onRolled: (key: CreatedApiKey) => void }): ReactNode {
  const [hours, setHours] = useState('0');
  const roll = useAction((expires: number) => post<CreatedApiKey>('/v2/api-keys/roll', { mode, expires_in_hours: expires }));
  return (
    <section className="panel" aria-labelledby="roll-title">
      <h2 id="roll-title" className="payments-panel-title">
        Roll the {mode} secret key
      </h2>
      <p className="muted">A new secret key; every working {mode} secret key stops after the hours below (0: at once).</p>
      <Form
        label={`Roll the ${mode} secret key`}
        submitLabel="Roll secret key"
        running={roll.running}
        error={roll.error}
        onSubmit={() => {
          void roll.run(Number(hours)).then((key) => key && onRolled(key));
        }}
      >
        <Field label="Old keys expire in (hours)" hint="0 to 168">
          {(props) => (
            <input {...props} type="number" min={0} max={168} step={1} value={hours} onChange={(e) => setHours(e.target.value)} />
          )}
        </Field>
      </Form>
    </section>
  );
}

function RestrictedKeyForm({ mode, onCreated }: { mode: 'test' | 'live'; onCreated: (key: CreatedApiKey) => void }): ReactNode {
  const none = Object.fromEntries(PERMISSION_RESOURCES.map((r) => [r, 'none'])) as Record<PermissionResource, PermissionLevel>;
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState(none);
  const create = useAction(() => post<CreatedApiKey>('/v2/api-keys', { mode, name, permissions }));
  return (
    <section className="panel" aria-labelledby="restricted-title">
      <h2 id="restricted-title" className="payments-panel-title">
        Create a restricted key
      </h2>
      <Form
        label="Create a restricted key"
        submitLabel="Create restricted key"
        running={create.running}
        error={create.error}
        onSubmit={() => {
          void create.run().then((key) => {
            if (!key) return;
            setName('');
            setPermissions(none);
            onCreated(key);
          });
        }}
      >
        <Field label="Key name">{(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <fieldset className="payments-permissions">
          <legend>Permissions</legend>
          <table>
            <caption className="sr-only">Permission per resource</caption>
            <thead>
              <tr>
                <th scope="col">Resource</th>
                {PERMISSION_LEVELS.map((level) => (
                  <th scope="col" key={level}>
                    {level}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {PERMISSION_RESOURCES.map((resource) => (
                <tr key={resource}>
                  <th scope="row">{RESOURCE_LABELS[resource]}</th>
                  {PERMISSION_LEVELS.map((level) => (
                    <td key={level}>
                      <input
                        type="radio"
                        name={`permission-${resource}`}
                        value={level}
                        aria-label={`${RESOURCE_LABELS[resource]}: ${level}`}
                        checked={permissions[resource] === level}
                        onChange={() => setPermissions({ ...permissions, [resource]: level })}
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </fieldset>
      </Form>
    </section>
  );
}
