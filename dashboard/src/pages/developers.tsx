import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type ApiKey, type Me, type WebhookEndpoint } from '../api';
import { ErrorText, Field, formValues, ShownOnce, SignedIn, usePageTitle } from '../ui';

const date = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

function ApiKeys() {
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<string | null>(null);
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api<{ keys: ApiKey[] }>('GET', '/api-keys') });
  const rotate = useMutation({
    mutationFn: () => api<{ apiKey: string; previousKeyExpiresAt: string }>('POST', '/api-keys/live/rotate'),
    onSuccess: (r) => {
      setShown(r.apiKey);
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">API keys</h2>
      <ErrorText error={keys.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Kind</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Stops working</th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.keys.map((k) => (
            <tr key={k.id}>
              <td>
                <code>
                  {k.prefix}…{k.last4}
                </code>
              </td>
              <td>{k.kind}</td>
              <td>{k.scopes.join(', ')}</td>
              <td>{date(k.createdAt)}</td>
              <td>{k.revokedAt ? `revoked ${date(k.revokedAt)}` : date(k.expiresAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>Rotating issues a new live key; the current one keeps working for 24 hours.</p>
      <ErrorText error={rotate.error} />
      <button type="button" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
        Rotate the live key
      </button>
      <ShownOnce title="New live API key" value={shown} onClose={() => setShown(null)} />
    </section>
  );
}

function SecurityCode() {
  const [shown, setShown] = useState<string | null>(null);
  const rotate = useMutation({
    mutationFn: () => api<{ securityCode: string }>('POST', '/security-code/rotate'),
    onSuccess: (r) => setShown(r.securityCode),
  });
  return (
    <section aria-labelledby="code">
      <h2 id="code">Security Code</h2>
      <p>The plugin asks for it when a website connects. A new code replaces the old one at once; connected websites keep working.</p>
      <ErrorText error={rotate.error} />
      <button type="button" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
        Rotate the Security Code
      </button>
      <ShownOnce title="New Security Code" value={shown} onClose={() => setShown(null)} />
    </section>
  );
}

function Webhooks() {
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<string | null>(null);
  const endpoints = useQuery({
    queryKey: ['webhook-endpoints'],
    queryFn: () => api<{ endpoints: WebhookEndpoint[] }>('GET', '/webhook-endpoints'),
  });
  const add = useMutation({
    mutationFn: (body: Record<string, string>) => api<{ secret: string }>('POST', '/webhook-endpoints', body),
    onSuccess: (r) => {
      setShown(r.secret);
      void queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] });
    },
  });
  const roll = useMutation({
    mutationFn: (id: string) => api<{ secret: string }>('POST', `/webhook-endpoints/${id}/roll-secret`),
    onSuccess: (r) => setShown(r.secret),
  });
  return (
    <section aria-labelledby="webhooks">
      <h2 id="webhooks">Webhook endpoints</h2>
      <ErrorText error={endpoints.error ?? roll.error} />
      {endpoints.data && endpoints.data.endpoints.length === 0 && <p>No endpoint yet.</p>}
      <ul>
        {endpoints.data?.endpoints.map((e) => (
          <li key={e.id}>
            <code>{e.url}</code> — {e.enabled ? 'enabled' : 'disabled'}, added {date(e.createdAt)}{' '}
            <button type="button" className="secondary" onClick={() => roll.mutate(e.id)} disabled={roll.isPending}>
              Roll the signing secret<span className="visually-hidden"> of {e.url}</span>
            </button>
          </li>
        ))}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate(formValues(e.currentTarget));
        }}
      >
        <Field label="Endpoint URL" name="url" type="url" hint="https, on a public address. Every event of your account is sent there." />
        <ErrorText error={add.error} />
        <button type="submit" disabled={add.isPending}>
          Add endpoint
        </button>
      </form>
      <ShownOnce title="Signing secret" value={shown} onClose={() => setShown(null)} />
    </section>
  );
}

function DeveloperArea({ me }: { me: Me }) {
  if (me.user.role === 'viewer') return <p>Your role does not give access to keys and secrets.</p>;
  if (me.merchant.status !== 'approved') return <p>Keys, webhooks and the Security Code are available once your account is approved.</p>;
  return (
    <>
      <ApiKeys />
      <Webhooks />
      <SecurityCode />
    </>
  );
}

export function Developers() {
  usePageTitle('Developers');
  return (
    <SignedIn>
      {(me) => (
        <>
          <h1>Developers</h1>
          <DeveloperArea me={me} />
        </>
      )}
    </SignedIn>
  );
}
