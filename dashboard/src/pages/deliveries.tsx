import { Button, Table } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useToast } from '../toast';
import { api, EVENT_TYPES, TEST_EVENT_TYPE, type WebhookDelivery } from '../api';
import { DeveloperPage, EmptyState, ErrorText } from '../ui';
import { StateBadge, When } from '../values';
import { ScrollTable } from '../table';

const STATUSES = ['pending', 'succeeded', 'failed'] as const;

function Select(props: { label: string; value: string; options: readonly string[]; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">All</option>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return <>none yet</>;
  return (
    <ol>
      {delivery.attempts.map((a, i) => (
        <li key={i}>
          <When at={a.at} />: {a.statusCode ?? 'no answer'} in {a.durationMs} ms
          {a.error ? ` (${a.error})` : ''}
        </li>
      ))}
    </ol>
  );
}

function DeliveryLog() {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState('');
  const [eventType, setEventType] = useState('');
  const toast = useToast();
  const query = new URLSearchParams({ ...(status ? { status } : {}), ...(eventType ? { eventType } : {}) }).toString();
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', query],
    queryFn: () => api<{ deliveries: WebhookDelivery[] }>('GET', `/webhook-deliveries${query ? `?${query}` : ''}`),
    // Deliveries change on their own (attempts, retries, a resend leaving the filtered status): a log
    // left open follows them, while the tab is visible.
    refetchInterval: 3000,
  });
  const resend = useMutation({
    mutationFn: (d: WebhookDelivery) => api('POST', `/webhook-deliveries/${d.id}/resend`).then(() => d),
    onSuccess: (d) => {
      toast(`${d.eventType} is sent again to ${d.url}.`);
      void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] });
    },
  });
  return (
    <>
      <form className="actions" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Select label="Status" value={status} options={STATUSES} onChange={setStatus} />
        <Select label="Event type" value={eventType} options={[...EVENT_TYPES, TEST_EVENT_TYPE]} onChange={setEventType} />
      </form>
      <ErrorText error={deliveries.error ?? resend.error} />
      {deliveries.data && deliveries.data.deliveries.length === 0 && (
        <EmptyState title="No delivery matches.">
          Every event sent to your webhook endpoints is listed here, with each attempt; send one a test event from Developers.
        </EmptyState>
      )}
      <ScrollTable label="Deliveries" head={['Event', 'Endpoint', 'Status', 'Attempts (status code, time)', '']}>
        {deliveries.data?.deliveries.map((d) => (
          <Table.Row key={d.id} data-testid="delivery">
            <Table.Cell>
              <code>{d.eventType}</code>
              <br />
              <small>
                <code>{d.eventId}</code>
              </small>
            </Table.Cell>
            <Table.Cell>
              <code>{d.url}</code>
            </Table.Cell>
            <Table.Cell data-testid="delivery-status">
              <StateBadge state={d.status} />
            </Table.Cell>
            <Table.Cell>
              <Attempts delivery={d} />
            </Table.Cell>
            <Table.Cell>
              <Button type="button" variant="soft" onClick={() => resend.mutate(d)} disabled={resend.isPending}>
                Resend
                <span className="visually-hidden">
                  {' '}
                  {d.eventType} to {d.url}
                </span>
              </Button>
            </Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
    </>
  );
}

export function Deliveries() {
  return (
    <DeveloperPage
      title="Webhook deliveries"
      intro="The newest 100 deliveries of your events, each with every attempt. A resend sends the same event again, freshly signed."
      forbidden="Your role does not give access to webhooks."
    >
      <DeliveryLog />
    </DeveloperPage>
  );
}
