import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { envFor, killHard, startEntryPoint } from '../support/processes';

// The worker runs as a real process (worker.ts), is killed with SIGKILL in the middle of a payment,
// and a new one finishes it: the payment completes exactly once.
const ctx = useTestApp({}, { listen: true, sandbox: true });
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) await killHard(c);
});

async function startWorker() {
  const { child } = await startEntryPoint('worker.ts', envFor(ctx.config), /worker: polling/);
  children.push(child);
  return child;
}

describe('a worker killed mid-payment', () => {
  it('loses nothing and duplicates nothing: the next worker completes the payment once', async () => {
    const first = await startWorker();
    const m = await createApprovedMerchant(ctx.app);
    const created = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 40, currency: 'EUR', countryCode: 'FR' },
    });
    const id = created.json.checkoutSession.id as string;

    // The customer presses Pay: the worker creates the provider payment.
    const start = await http('POST', `${ctx.baseUrl}/pay/${id}/start`);
    expect(start.status).toBe(303);
    const providerPage = start.headers.get('location')!;
    expect(providerPage.startsWith(ctx.config.providers.sandbox.url)).toBe(true);

    await killHard(first);

    // The customer pays on the provider's page while no worker runs; the callbacks are accepted
    // (signals are durable in Temporal) but nothing can move yet.
    const confirm = await fetch(`${providerPage}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=succeeded',
      redirect: 'manual',
    });
    expect(confirm.status).toBe(303);
    await eventually(
      () =>
        ctx.db.sql`select count(*)::int as n from provider_events where payment_id = ${id} and state = 'signaled'`.then(
          (r) => r[0]!.n as number,
        ),
      (n) => n === 2,
      15_000,
      'both callbacks signaled',
    );
    const [stuck] = await ctx.db.sql`select status from checkout_sessions where id = ${id}`;
    expect(stuck!.status).toBe('pending');

    await startWorker();
    // A loaded machine (the whole suite at once) once took longer than 45 s here; should it time out,
    // the run's history says where it stood.
    const history = async () =>
      ((await ctx.temporal.workflow.getHandle(id).fetchHistory()).events ?? [])
        .map((e) => String(e.eventType).replace('EVENT_TYPE_', ''))
        .join(' ');
    await eventually(
      () => ctx.db.sql`select status from checkout_sessions where id = ${id}`.then((r) => r[0]!.status as string),
      (s) => s === 'completed',
      75_000,
      'completion by the second worker',
    ).catch(async (err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}; the run's history: ${await history()}`);
    });
    expect((await ctx.temporal.workflow.getHandle(id).result()).status).toBe('completed');
    const [tx] = await ctx.db.sql`select count(*)::int as n from transactions where payment_id = ${id}`;
    expect(tx!.n).toBe(1);
  }, 150_000);
});
