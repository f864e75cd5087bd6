import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type postgres from 'postgres';
import { newEventId } from '../../src/domain/ids';
import type { WebhookPost } from './messages';

/** The minimal implementation's own tables, in the run's database. */
export async function createMinimalTables(sql: postgres.Sql): Promise<void> {
  await sql`create table if not exists bench_min_payments (
    id text primary key, status text not null default 'pending', deposit_address text not null, expected_micro bigint not null,
    created_at timestamptz not null default now(), updated_at timestamptz not null default now())`;
  await sql`create table if not exists bench_min_events (
    id text primary key, payment_id text not null references bench_min_payments(id), type text not null, body jsonb not null,
    created_at timestamptz not null default now(), unique (payment_id, type))`;
  // The watcher's cursor: a worker that comes back (the backlog figure) scans from where it stopped.
  await sql`create table if not exists bench_min_cursor (id int primary key, confirmed_through bigint not null)`;
}

/** Signs like ours (`t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) and posts; anything but a 2xx is retried. */
export async function signedPost(post: WebhookPost, secret: string): Promise<void> {
  const t = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', secret).update(`${t}.${post.body}`).digest('hex');
  const res = await fetch(post.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-event-id': post.eventId, 'svc-signature': `t=${t},v1=${signature}` },
    body: post.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  if (res.status < 200 || res.status >= 300) throw ApplicationFailure.retryable(`HTTP ${res.status}`, 'DeliveryFailed');
}

export function createMinimalActivities(sql: postgres.Sql, secret: string) {
  return {
    /** The transition and its event in one transaction; a retry finds both done and posts the same event. */
    async recordTransition(input: { paymentId: string; to: string; webhookUrl: string }): Promise<WebhookPost | null> {
      return sql.begin(async (tx) => {
        await tx`update bench_min_payments set status = ${input.to}, updated_at = now() where id = ${input.paymentId} and status <> ${input.to}`;
        const body = { event: `payment.${input.to}`, sessionId: input.paymentId, status: input.to };
        const [event] = await tx<{ id: string; body: string }[]>`
          insert into bench_min_events (id, payment_id, type, body) values (${newEventId()}, ${input.paymentId}, ${input.to}, ${tx.json(body)})
          on conflict (payment_id, type) do update set type = excluded.type returning id, body::text as body`;
        return input.to === 'completed' ? { url: input.webhookUrl, eventId: event!.id, body: event!.body } : null;
      });
    },
    async postWebhook(post: WebhookPost): Promise<void> {
      await signedPost(post, secret);
    },
  };
}

export type MinimalActivities = ReturnType<typeof createMinimalActivities>;
