import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBalancer } from '../support/balancer';
import { freePort } from '../support/free-port';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { buildInto, envFor, killHard, startEntryPoint } from '../support/processes';
import { useProductionTemporal } from '../support/production-temporal';
import { startReceiver } from '../support/receiver';
import { balanceOf, sharedChain } from '../support/chain';
import type { Address, Hash } from 'viem';

// The production topology on one host. Two API processes behind a round-robin
// balancer, two workers, both run as production runs them: compiled JavaScript (`npm run build`, run
// here into a folder of its own), by Node without tsx; the production Temporal server on Postgres, the
// sandbox provider and the dev chain. 100 payments are opened and paid while one worker and one API
// process are killed with SIGKILL; every payment must complete exactly once. Clients behave as real
// ones do: a cut request is retried, POSTs with the same Idempotency-Key.

const PAYMENTS = 100;
const CONCURRENCY = 8;
const KILL_WORKER_AFTER = 30;
const KILL_API_AFTER = 50;

const overrides: Record<string, string> = {};
useProductionTemporal(overrides);
const chain = sharedChain();
const apiPorts: number[] = [];
let balancer: Awaited<ReturnType<typeof startBalancer>> | undefined;
let built: string;
beforeAll(async () => {
  built = await buildInto(`topology-${process.pid}`);
  apiPorts.push(await freePort(), await freePort());
  balancer = await startBalancer(apiPorts);
  overrides.PUBLIC_BASE_URL = `http://127.0.0.1:${balancer.port}`;
  // The transpile takes seconds; the dashboard's build, only where no earlier one is kept, minutes.
}, 300_000);
const ctx = useTestApp(overrides, { sandbox: true });

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) await killHard(c);
  await balancer?.close();
  if (built) rmSync(built, { recursive: true, force: true });
});

const startApi = async (port: number) => {
  // info: the listening line is the readiness signal; the request lines show who served what.
  const api = await startEntryPoint(
    path.join(built, 'server.js'),
    { ...envFor(ctx.config), PORT: String(port), LOG_LEVEL: 'info' },
    /Server listening at/,
  );
  children.push(api.child);
  return api;
};
const startWorker = async () => {
  const worker = await startEntryPoint(path.join(built, 'worker.js'), envFor(ctx.config), /worker: polling/);
  children.push(worker.child);
  return worker;
};

let retries = 0;
/** A merchant's or provider's HTTP call that survives a balancer cutting it: retried until it answers. */
async function call(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; json: any }> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      const res = await fetch(url, {
        method: init.method,
        redirect: 'manual',
        headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
      const text = await res.text();
      const json = text ? JSON.parse(text) : null;
      // 503: a dependency was briefly away; 502: the provider could not reach the API; 409 Conflict:
      // the same Idempotency-Key is still claimed by a request the dead process never finished.
      const transient = res.status === 503 || res.status === 502 || (res.status === 409 && json?.error === 'Conflict');
      if (!transient || Date.now() > deadline) return { status: res.status, json };
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    retries++;
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('two API processes and two workers on the production Temporal server', () => {
  it(`completes ${PAYMENTS} payments exactly once while a worker and an API process are killed`, async () => {
    const [api1, api2] = await Promise.all(apiPorts.map(startApi));
    const workers = await Promise.all([startWorker(), startWorker()]);
    const [worker1] = workers;
    const receiver = await startReceiver();
    const m = await createApprovedMerchant(ctx.app, { name: 'Topology Shop' });
    const endpoint = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${receiver.url}/hooks` },
    });
    expect(endpoint.statusCode).toBe(201);

    const started = performance.now();
    const ids: string[] = [];
    const kills: Promise<void>[] = [];
    let apiKilledAt = -1;
    let next = 0;
    async function payOne(i: number) {
      const created = await call(`${ctx.baseUrl}/api/v1/checkout/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': `topology-${i}` },
        body: { amount: 25, currency: 'USD', countryCode: 'US', orderId: `order-${i}` },
      });
      // A refusal names its cause in the API process's log, not in the answer: both logs' errors go with it.
      const apiErrors = () =>
        [api1!, api2!].map(
          (api, i) =>
            `api ${i + 1}: ${api
              .output()
              .split('\n')
              .filter((l) => /"level":(50|60)/.test(l))
              .slice(-3)
              .join('\n')}`,
        );
      expect(created.status, [JSON.stringify(created.json), ...(created.status === 201 ? [] : apiErrors())].join('\n')).toBe(201);
      const id = created.json.checkoutSession.id as string;
      ids.push(id);
      if (ids.length === KILL_WORKER_AFTER) kills.push(killHard(worker1.child));
      if (ids.length === KILL_API_AFTER) {
        apiKilledAt = ids.length;
        kills.push(killHard(api2!.child));
      }
      // The sandbox presses Pay through the balancer, then sends the tokens on chain and calls back.
      const paid = await call(`${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
        method: 'POST',
        body: { reference: id, outcome: 'succeeded' },
      });
      expect(paid.status, JSON.stringify(paid.json)).toBe(200);
    }
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < PAYMENTS) await payOne(next++);
      }),
    );
    await Promise.all(kills);
    expect(apiKilledAt).toBe(KILL_API_AFTER);

    const completed = await eventually(
      () =>
        ctx.db.sql`select count(*)::int as n from checkout_sessions where id in ${ctx.db.sql(ids)} and status = 'completed'`.then(
          (r) => r[0]!.n as number,
        ),
      (n) => n === PAYMENTS,
      240_000,
      `all ${PAYMENTS} payments to complete`,
    ).catch(async (err: unknown) => {
      // What a red run needs to explain itself, in the failure's own message: CI shows the end of the
      // run's output, where the failure is repeated, not the middle, where a log line would be.
      const said: string[] = [];
      const say = (line: string) => {
        console.error(line);
        said.push(line.length > 1500 ? `${line.slice(0, 1500)}…` : line);
      };
      // Where each unfinished payment stands.
      const open = await ctx.db
        .sql`select id, status, provider_payment_id, deposit_address, updated_at, (select count(*)::int from chain_credits c where c.payment_id = checkout_sessions.id) as credits, (select count(*)::int from deposit_addresses d where d.address = checkout_sessions.deposit_address) as address_rows from checkout_sessions where id in ${ctx.db.sql(ids)} and status <> 'completed'`;
      say(`topology: unfinished payments ${JSON.stringify(open)}`);
      // The workers' own account of the chain: leases taken and lost, scans that failed.
      for (const [i, w] of workers.entries()) {
        const lines = w
          .output()
          .split('\n')
          .filter((l) => /chain watcher|lease|reorg|error/i.test(l));
        say(`topology: worker ${i + 1} (${i === 0 ? 'killed' : 'survived'}), its last chain lines:\n${lines.slice(-15).join('\n')}`);
      }
      say(
        `topology: chain cursors ${JSON.stringify(await ctx.db.sql`select network, head, confirmed_through, updated_at from chain_cursors`)}`,
      );
      // ... and where each one's run stands: its pending work and failures, and its last events.
      for (const row of open) {
        const handle = ctx.temporal.workflow.getHandle(row.id as string);
        const { raw, status } = await handle.describe().catch(() => ({ raw: null, status: null }));
        const events = ((await handle.fetchHistory().catch(() => null))?.events ?? []).slice(-12).map((e) => ({
          type: e.eventType,
          signal: e.workflowExecutionSignaledEventAttributes?.signalName,
          failure: e.workflowTaskFailedEventAttributes?.failure?.message,
        }));
        // What the provider did: its payment, where it sent the tokens, and its callbacks.
        const provider = await fetch(`${ctx.config.providers.sandbox.url}/test-helpers/payments/${row.id as string}`)
          .then((r) => r.json())
          .catch(() => null);
        // ... and whether the chain has it: the transaction the provider names, and what the address holds.
        const hash = (provider as { payment?: { transactionHash?: Hash } } | null)?.payment?.transactionHash;
        const onChain = {
          receipt: hash
            ? await chain.publicClient.getTransactionReceipt({ hash }).then(
                (r) => ({ status: r.status, block: String(r.blockNumber) }),
                () => 'none',
              )
            : null,
          balance: row.deposit_address ? String(await balanceOf(chain, chain.tokens.polygon.USDC, row.deposit_address as Address)) : null,
        };
        say(
          `topology: run of ${row.id as string} ${JSON.stringify({
            status: status?.name,
            pendingActivities: raw?.pendingActivities?.map((a) => ({
              type: a.activityType?.name,
              attempt: a.attempt,
              failure: a.lastFailure?.message,
            })),
            pendingTask: raw?.pendingWorkflowTask,
            events,
            onChain,
            provider,
          })}`,
        );
      }
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${said.join('\n')}`.slice(0, 20_000));
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `topology: ${completed} payments completed in ${seconds.toFixed(1)} s (${(completed / seconds).toFixed(2)}/s), ${retries} client retries`,
    );

    // Exactly once: one transaction, one completion event, one credited log per payment.
    const [tx] = await ctx.db
      .sql`select count(*)::int as n, count(distinct payment_id)::int as d from transactions where payment_id in ${ctx.db.sql(ids)}`;
    expect(tx).toEqual({ n: PAYMENTS, d: PAYMENTS });
    // The event is written by the activity after the status: a run whose worker died between the two
    // writes its event once another worker retries it (after the activity's 15 s timeout).
    const events = await eventually(
      () =>
        ctx.db
          .sql`select count(*)::int as n, count(distinct payment_id)::int as d from events where type = 'payment.completed' and payment_id in ${ctx.db.sql(ids)}`.then(
          (r) => r[0]!,
        ),
      (e) => e.n >= PAYMENTS,
      60_000,
      'a payment.completed event for every payment',
    );
    expect(events).toEqual({ n: PAYMENTS, d: PAYMENTS });
    const [credits] = await ctx.db
      .sql`select count(*)::int as n, count(distinct payment_id)::int as d from chain_credits where payment_id in ${ctx.db.sql(ids)}`;
    expect(credits).toEqual({ n: PAYMENTS, d: PAYMENTS });
    for (const id of ids) expect((await ctx.temporal.workflow.getHandle(id).result()).status).toBe('completed');

    // The merchant heard of each payment, under one event id per payment (retries keep the id).
    const completions = await eventually(
      async () => receiver.received.filter((d) => d.body.event === 'payment.completed'),
      (c) => new Set(c.map((d) => d.body.sessionId)).size === PAYMENTS,
      60_000,
      'payment.completed at the merchant for every payment',
    );
    const eventIds = new Map<string, Set<string>>();
    for (const d of completions) eventIds.set(d.body.sessionId, (eventIds.get(d.body.sessionId) ?? new Set()).add(d.body.eventId));
    expect([...eventIds.values()].every((s) => s.size === 1)).toBe(true);

    // Both API processes served merchants before the kill, and the survivor served the rest.
    expect(api2!.output()).toMatch(/"url":"\/api\/v1\/checkout\/sessions"/);
    expect(api1!.output()).toMatch(/"url":"\/api\/v1\/checkout\/sessions"/);
    await receiver.close();
  }, 600_000);
});
