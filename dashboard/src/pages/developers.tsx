import { Button, Table } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, can, EVENT_TYPES, SCOPES, type ApiKey, type Me, type Site, type WebhookEndpoint, type WebhookEndpointRequest } from '../api';
import { checkForm, webhookEndpointInput } from '../forms';
import { useStepUp } from '../step-up';
import { useToast } from '../toast';
import { Confirm, EmptyState, ErrorText, Field, formValues, Notice, ShownOnce, SignedIn, usePageTitle } from '../ui';
import { Countdown, When } from '../values';
import { ScrollTable } from '../table';

const date = (iso: string | null) => (iso ? <When at={iso} /> : '—');

function ApiKeys() {
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
  const [shown, setShown] = useState<{ title: string; value: string } | null>(null);
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api<{ keys: ApiKey[] }>('GET', '/api-keys') });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
  const rotate = useMutation({
    mutationFn: () =>
      stepUp(() => api<{ apiKey: string; previousKeyExpiresAt: string }>('POST', '/api-keys/live/rotate'), {
        what: 'rotate the live key',
        confirm: {
          title: 'Rotate the live key?',
          description:
            'A new live key is made and shown once. The current one keeps working for 24 hours, then stops for good: put the new one wherever the current one is used before then.',
          label: 'Rotate the live key',
        },
      }),
    onSuccess: (r) => {
      setShown({ title: 'New live API key', value: r.apiKey });
      refresh();
    },
  });
  const create = useMutation({
    mutationFn: (scopes: string[]) =>
      stepUp(() => api<{ apiKey: string }>('POST', '/api-keys', { scopes }), {
        what: 'create a key with every scope',
        // A key with every scope can do what the live key does: only that one asks who you are.
        stepUp: SCOPES.every((scope) => scopes.includes(scope)),
      }),
    onSuccess: (r) => {
      setShown({ title: 'New restricted API key', value: r.apiKey });
      refresh();
    },
  });
  const revoke = useMutation({ mutationFn: (id: string) => api('POST', `/api-keys/${id}/revoke`), onSuccess: refresh });
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">API keys</h2>
      <ErrorText error={keys.error ?? revoke.error} />
      <ScrollTable label="Your keys, scrollable" head={['Key', 'Kind', 'Scopes', 'Created', 'Stops working', '']}>
        {keys.data?.keys.map((k) => (
          <Table.Row key={k.id}>
            <Table.Cell>
              <code>
                {k.prefix}…{k.last4}
              </code>
            </Table.Cell>
            <Table.Cell>{k.kind}</Table.Cell>
            <Table.Cell>{k.scopes.join(', ')}</Table.Cell>
            <Table.Cell>{date(k.createdAt)}</Table.Cell>
            <Table.Cell>
              {k.revokedAt ? <>revoked {date(k.revokedAt)}</> : k.expiresAt ? <Countdown until={k.expiresAt} /> : '—'}
            </Table.Cell>
            <Table.Cell>
              {!k.revokedAt && (
                <Confirm
                  label={
                    <>
                      Revoke<span className="visually-hidden"> the key ending {k.last4}</span>
                    </>
                  }
                  title="Revoke this key?"
                  description={`The key ending ${k.last4} stops working at once; requests made with it are refused.`}
                  confirmLabel="Revoke the key"
                  onConfirm={() => revoke.mutate(k.id)}
                  disabled={revoke.isPending}
                />
              )}
            </Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
      <p>Rotating issues a new live key; the current one keeps working for 24 hours.</p>
      <ErrorText error={rotate.error} />
      <Button type="button" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
        Rotate the live key
      </Button>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(new FormData(e.currentTarget).getAll('scopes').map(String));
        }}
      >
        <fieldset>
          <legend>A restricted key with only these scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope}>
              <input type="checkbox" name="scopes" value={scope} />
              <code>{scope}</code>
            </label>
          ))}
        </fieldset>
        <ErrorText error={create.error} />
        <Button type="submit" disabled={create.isPending}>
          Create restricted key
        </Button>
      </form>
      <ShownOnce title={shown?.title ?? 'API key'} value={shown?.value ?? null} onClose={() => setShown(null)} />
    </section>
  );
}

function SecurityCode() {
  const stepUp = useStepUp();
  const [shown, setShown] = useState<string | null>(null);
  const rotate = useMutation({
    mutationFn: () =>
      stepUp(() => api<{ securityCode: string }>('POST', '/security-code/rotate'), {
        what: 'rotate the Security Code',
        confirm: {
          title: 'Rotate the Security Code?',
          description:
            'A new code is made and shown once, and the current one stops working at once: a website that connects the plugin from now on needs the new one. Websites already connected keep working.',
          label: 'Rotate the Security Code',
        },
      }),
    onSuccess: (r) => setShown(r.securityCode),
  });
  return (
    <section aria-labelledby="code">
      <h2 id="code">Security Code</h2>
      <p>The plugin asks for it when a website connects. A new code replaces the old one at once; connected websites keep working.</p>
      <ErrorText error={rotate.error} />
      <Button type="button" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
        Rotate the Security Code
      </Button>
      <ShownOnce title="New Security Code" value={shown} onClose={() => setShown(null)} />
    </section>
  );
}

function eventTypesText(e: WebhookEndpoint) {
  return e.eventTypes ? e.eventTypes.join(', ') : 'every event';
}

function Webhooks() {
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
  const [shown, setShown] = useState<string | null>(null);
  const toast = useToast();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] });
  const endpoints = useQuery({
    queryKey: ['webhook-endpoints'],
    queryFn: () => api<{ endpoints: WebhookEndpoint[] }>('GET', '/webhook-endpoints'),
  });
  const add = useMutation({
    // Checked with the route's own schema first: a form it would refuse asks for no step-up.
    mutationFn: (values: { url: string; eventTypes?: string[] }) => {
      const body: WebhookEndpointRequest = checkForm(webhookEndpointInput, values);
      return stepUp(() => api<{ secret: string }>('POST', '/webhook-endpoints', body), { what: 'add a webhook endpoint' });
    },
    onSuccess: (r, body) => {
      setShown(r.secret);
      toast(`Webhook endpoint ${body.url} added.`);
      refresh();
    },
  });
  const roll = useMutation({
    mutationFn: (e: WebhookEndpoint) =>
      stepUp(() => api<{ secret: string }>('POST', `/webhook-endpoints/${e.id}/roll-secret`), {
        what: `roll the signing secret of ${e.url}`,
        confirm: {
          title: 'Roll the signing secret?',
          description: `A new secret for ${e.url} is made and shown once, and the current one stops at once: every delivery from the next attempt on is signed with the new one, so the receiver must check signatures with it.`,
          label: 'Roll the signing secret',
        },
      }),
    onSuccess: (r) => setShown(r.secret),
  });
  const change = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'enable' | 'disable' | 'delete' }) =>
      action === 'delete' ? api('DELETE', `/webhook-endpoints/${id}`) : api('POST', `/webhook-endpoints/${id}/${action}`),
    onSuccess: (_r, { action }) => {
      toast(`Webhook endpoint ${action === 'delete' ? 'removed' : `${action}d`}.`);
      refresh();
    },
  });
  const test = useMutation({
    mutationFn: (e: WebhookEndpoint) => api<{ deliveryId: string }>('POST', `/webhook-endpoints/${e.id}/test`).then(() => e),
    onSuccess: (e) => toast(`A test event is on its way to ${e.url}: follow it in the delivery log.`),
  });
  return (
    <section aria-labelledby="webhooks">
      <h2 id="webhooks">Webhook endpoints</h2>
      <p>
        <Link to="/developers/deliveries">Delivery log: every event sent, every attempt, resend</Link>
      </p>
      <ErrorText error={endpoints.error ?? roll.error ?? change.error ?? test.error} />
      {endpoints.data && endpoints.data.endpoints.length === 0 && (
        <EmptyState title="No endpoint yet">
          Add the URL that should hear of your payments: each event is signed and retried until it answers.
        </EmptyState>
      )}
      <ul>
        {endpoints.data?.endpoints.map((e) => (
          <li key={e.id}>
            <p>
              <code>{e.url}</code> — {e.enabled ? 'enabled' : 'disabled'}, added {date(e.createdAt)}. Sends {eventTypesText(e)}.
            </p>
            <div className="actions">
              <Button type="button" variant="soft" onClick={() => test.mutate(e)} disabled={test.isPending}>
                Send a test event<span className="visually-hidden"> to {e.url}</span>
              </Button>
              <Button
                type="button"
                variant="soft"
                onClick={() => change.mutate({ id: e.id, action: e.enabled ? 'disable' : 'enable' })}
                disabled={change.isPending}
              >
                {e.enabled ? 'Disable' : 'Enable'}
                <span className="visually-hidden"> {e.url}</span>
              </Button>
              <Button type="button" variant="soft" onClick={() => roll.mutate(e)} disabled={roll.isPending}>
                Roll the signing secret<span className="visually-hidden"> of {e.url}</span>
              </Button>
              <Confirm
                label={
                  <>
                    Delete<span className="visually-hidden"> {e.url}</span>
                  </>
                }
                title="Delete this endpoint?"
                description={`${e.url} receives no more events, and its signing secret is gone. Its delivery log stays.`}
                confirmLabel="Delete the endpoint"
                onConfirm={() => change.mutate({ id: e.id, action: 'delete' })}
                disabled={change.isPending}
              />
            </div>
          </li>
        ))}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const eventTypes = form.getAll('eventTypes').map(String);
          add.mutate({ url: formValues(e.currentTarget).url ?? '', ...(eventTypes.length ? { eventTypes } : {}) });
        }}
      >
        <Field label="Endpoint URL" name="url" type="url" hint="https, on a public address." error={add.error} />
        <fieldset>
          <legend>Events to send (none ticked: every event)</legend>
          {EVENT_TYPES.map((type) => (
            <label key={type}>
              <input type="checkbox" name="eventTypes" value={type} />
              <code>{type}</code>
            </label>
          ))}
        </fieldset>
        <ErrorText error={add.error} />
        <Button type="submit" disabled={add.isPending}>
          Add endpoint
        </Button>
      </form>
      <ShownOnce title="Signing secret" value={shown} onClose={() => setShown(null)} />
    </section>
  );
}

function Sites() {
  const queryClient = useQueryClient();
  const sites = useQuery({ queryKey: ['sites'], queryFn: () => api<{ sites: Site[] }>('GET', '/sites') });
  const disconnect = useMutation({
    mutationFn: (id: string) => api('POST', `/sites/${id}/disconnect`),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['sites'] }),
  });
  return (
    <section aria-labelledby="sites">
      <h2 id="sites">Connected websites</h2>
      <ErrorText error={sites.error ?? disconnect.error} />
      {sites.data && sites.data.sites.length === 0 && (
        <EmptyState title="No website has connected the plugin yet">A shop connects with the plugin and your Security Code.</EmptyState>
      )}
      <ul>
        {sites.data?.sites.map((site) => (
          <li key={site.id}>
            <p>
              <code>{site.siteUrl}</code> — {site.platform} plugin {site.pluginVersion},{' '}
              {site.status === 'connected' ? <>connected {date(site.verifiedAt)}</> : 'waiting for proof of control'}
            </p>
            <Confirm
              label={
                <>
                  Disconnect<span className="visually-hidden"> {site.siteUrl}</span>
                </>
              }
              title="Disconnect this website?"
              description={`${site.siteUrl} can no longer take payments through the plugin, and its callbacks stop. Its plugin must connect again, with the Security Code.`}
              confirmLabel="Disconnect the website"
              onConfirm={() => disconnect.mutate(site.id)}
              disabled={disconnect.isPending}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

function DeveloperArea({ me }: { me: Me }) {
  if (!can(me.user.role, 'developers.read')) return <p>Your role does not give access to keys and secrets.</p>;
  if (me.merchant.status !== 'approved')
    return <Notice>Keys, webhooks and the Security Code are available once your account is approved.</Notice>;
  return (
    <>
      <ApiKeys />
      <Webhooks />
      <SecurityCode />
      <Sites />
      <section aria-labelledby="requests">
        <h2 id="requests">Request log</h2>
        <p>
          <Link to="/developers/requests">Your recent API calls: method, path, status, request id, key</Link>
        </p>
      </section>
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
