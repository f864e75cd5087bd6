import type { Client } from '@temporalio/client';
import type postgres from 'postgres';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from '../../src/workflows/webhook-delivery/messages';
import { RAW_DELIVERY_WORKFLOW, type WebhookPost } from '../minimal/messages';
import type { BenchOptions } from '../options';
import { figureFrom, type Figure } from '../support/figures';
import type { Receiver } from '../support/receiver';
import { interleaved } from '../support/stats';

const RETRY = { baseSeconds: 30, maxIntervalSeconds: 3600, windowHours: 72 };

/**
 * Deliveries/s: `count` deliveries started at once, until the receiver saw `count` POSTs. Ours:
 * webhookDelivery workflows (what an operator's resend starts) for delivery rows the payment
 * figures wrote, on worker.ts: row and secret read, signed, posted, attempt logged. Baseline: a
 * workflow around one raw signed POST activity, with the same body.
 */
export async function deliveryFigures(input: {
  options: BenchOptions;
  sql: postgres.Sql;
  temporal: Client;
  receiver: Receiver;
  oursQueue: string;
  minimalQueue: string;
}): Promise<Figure[]> {
  const { options, temporal, receiver } = input;
  const rows = await input.sql<{ id: string; eventId: string; body: string }[]>`
    select d.id, d.event_id as "eventId", e.body from webhook_deliveries d join events e on e.id = d.event_id where d.status = 'succeeded' order by d.id limit ${options.deliveries}`;
  if (rows.length < options.deliveries)
    throw new Error(`deliveries: only ${rows.length} delivery rows to resend (run the payment figures first)`);
  let run = 0;
  const measure = async (start: (i: number) => Promise<unknown>) => {
    const from = receiver.arrivals.length;
    const began = performance.now();
    await Promise.all(rows.map((_, i) => start(i)));
    await receiver.posts(from, rows.length, 120_000);
    const last = receiver.arrivals[from + rows.length - 1]!.at;
    return { perSecond: rows.length / ((last - began) / 1000) };
  };
  const ours = async () => {
    const tag = run++;
    // What an operator's resend does first (resendDelivery): the delivery is pending again.
    await input.sql`update webhook_deliveries set status = 'pending' where id in ${input.sql(rows.map((r) => r.id))}`;
    return measure((i) => {
      const args: [WebhookDeliveryInput] = [{ deliveryId: rows[i]!.id, retry: RETRY }];
      return temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        taskQueue: input.oursQueue,
        workflowId: `${rows[i]!.id}-bench-${tag}`,
        args,
      });
    });
  };
  const raw = () => {
    const tag = run++;
    return measure((i) => {
      const args: [WebhookPost] = [{ url: receiver.url, eventId: rows[i]!.eventId, body: rows[i]!.body }];
      return temporal.workflow.start(RAW_DELIVERY_WORKFLOW, {
        taskQueue: input.minimalQueue,
        workflowId: `${rows[i]!.id}-raw-${tag}`,
        args,
      });
    });
  };
  const rounds = await interleaved(options.rounds, ours, raw);
  return [
    figureFrom(rounds, 'perSecond', {
      id: 'webhook_deliveries_per_second',
      title: 'webhook deliveries/s',
      unit: 'deliveries/s',
      better: 'higher',
      includes: `${rows.length} deliveries started at once (workflow.start from the bench), until the receiver saw as many POSTs: ours is the webhookDelivery workflow an operator's resend starts, on worker.ts (delivery row and encrypted secret read, signed with both signature schemes, DNS-checked target, POST, attempt logged, status set).`,
      baselineIs: 'a workflow around one raw signed POST activity (HMAC over t.body, fetch), with the same body, on the minimal worker.',
    }),
  ];
}
