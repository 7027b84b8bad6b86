import { type ReactNode, useState } from 'react';
import { del, get, post } from '../api';
import { Async, ConfirmButton, DataTable, Empty, Field, Form, formatDate, Notice, Page, SecretOnce } from '../components/ui';
import { useAction, useAsync } from '../hooks';
import { usePages } from './shared';
import type { Token, TokenCreated } from './types';

/** /settings/tokens: the project's API tokens (GET/POST/DELETE /v1/tokens); a new token is shown once. */
export function TokensPage(): ReactNode {
  const tokens = useAsync(() => get<{ data: Token[] }>('/v1/tokens'), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<TokenCreated | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const create = useAction(() => post<TokenCreated>('/v1/tokens', { name }));
  const submit = async (): Promise<void> => {
    const token = await create.run();
    if (!token) return;
    setCreated(token);
    setNotice(undefined);
    setName('');
    tokens.reload();
  };
  const { rows, pager } = usePages(tokens.data?.data);
  return (
    <Page title="API Tokens">
      <p className="muted">
        Tokens reach every table of this project (<code>Authorization: Bearer vt_…</code>). A token is shown once, when it is
        created; revoking one stops it at once.
      </p>
      <section className="panel vector-panel" aria-labelledby="new-token-title">
        <h2 id="new-token-title">Create a token</h2>
        <Form
          label="Create a token"
          submitLabel="Create token"
          running={create.running}
          error={create.error}
          onSubmit={() => void submit()}
        >
          <Field label="Token name" hint="What uses it, e.g. search-backend">
            {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" maxLength={200} />}
          </Field>
        </Form>
        {created ? <SecretOnce label={`Token ${created.name}`} secret={created.token} /> : null}
      </section>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <h2>Tokens</h2>
      <Async
        state={tokens}
        empty={(d) =>
          d.data.length === 0 ? <Empty title="No tokens">Create a token to call the API from your code.</Empty> : null
        }
      >
        {() => (
          <>
            <DataTable<Token>
              caption="API tokens"
              rowKey={(t) => t.id}
              rows={rows}
              columns={[
                { header: 'Name', cell: (t) => t.name },
                { header: 'Token', cell: (t) => <code>vt_…{t.last4}</code> },
                { header: 'Created', cell: (t) => formatDate(t.created_at) },
                { header: 'Last used', cell: (t) => (t.last_used_at ? formatDate(t.last_used_at) : 'Never') },
                {
                  header: 'Actions',
                  cell: (t) => (
                    <ConfirmButton
                      label={`Revoke ${t.name}`}
                      title={`Revoke the token ${t.name}?`}
                      message={
                        <p>Requests with this token (ending in {t.last4}) are refused from now on. This cannot be undone.</p>
                      }
                      confirmLabel="Revoke token"
                      onConfirm={async () => {
                        await del(`/v1/tokens/${encodeURIComponent(t.id)}`);
                        if (created?.id === t.id) setCreated(undefined);
                        setNotice(`Token ${t.name} revoked.`);
                        tokens.reload();
                      }}
                    />
                  ),
                },
              ]}
            />
            {pager}
          </>
        )}
      </Async>
    </Page>
  );
}
