import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WORKFLOWS_ENTRY } from '../../src/temporal/worker';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';

// Determinism guard: histories of real runs are replayed against the current workflow code. The
// committed ones (test/fixtures/histories) were recorded from an earlier version, so a change that
// would break running workflows fails here. `npm run histories:record` refreshes them on purpose.
const HISTORIES = path.resolve(__dirname, '../fixtures/histories');
const WORKFLOWS = WORKFLOWS_ENTRY;
const RECORD = process.env.RECORD_HISTORIES === '1';
// protobufjs' own object form (64-bit ints and bytes as strings) round-trips exactly.
const History = temporal.api.history.v1.History;
const HISTORY_JSON = { longs: String, enums: String, bytes: String };

const ctx = useTestApp({ SESSION_TTL_SECONDS: '3' }, { listen: true, sandbox: true, worker: true });
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

async function runScenarios(): Promise<Record<string, string>> {
  const m = await createApprovedMerchant(ctx.app);
  const open = async () => {
    const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 25, currency: 'USD', countryCode: 'US', orderId: 'replay', cancelUrl: 'https://shop.example/cart' },
    });
    const id = res.json.checkoutSession.id as string;
    return { id, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress: WALLET };
  };
  const secret = ctx.config.sandbox.callbackSecret;
  const ids: Record<string, string> = {};

  const paid = await open();
  expect((await http('POST', `${ctx.config.sandbox.url}/test-helpers/pay`, { body: { reference: paid.id, outcome: 'succeeded' } })).status).toBe(200);
  ids.completed = paid.id;

  const failed = await open();
  await postCallback(ctx.app, sandboxEvent(failed, 'payment.failed'), { secret });
  ids.failed = failed.id;

  const canceled = await open();
  expect((await http('POST', `${ctx.baseUrl}/pay/${canceled.id}/cancel`)).status).toBe(303);
  ids.canceled = canceled.id;

  const late = await open();
  await postCallback(ctx.app, sandboxEvent(late, 'payment.processing'), { secret });
  ids.expiredThenLate = late.id;

  for (const id of Object.values(ids).filter((id) => id !== late.id)) await ctx.temporal.workflow.getHandle(id).result();
  await eventually(
    () => ctx.db.sql`select status from checkout_sessions where id = ${late.id}`.then((r) => r[0]!.status as string),
    (s) => s === 'expired',
  );
  // Sent while the workflow may still be draining: either it flags the success or the API does.
  await postCallback(ctx.app, sandboxEvent(late, 'payment.succeeded'), { secret });
  await ctx.temporal.workflow.getHandle(late.id).result();
  return ids;
}

describe('workflow determinism', () => {
  it('replays histories of the current code’s own runs', async () => {
    const ids = await runScenarios();
    const histories = await Promise.all(
      Object.entries(ids).map(async ([name, id]) => ({ name, id, history: await ctx.temporal.workflow.getHandle(id).fetchHistory() })),
    );
    const results = Worker.runReplayHistories(
      { workflowsPath: WORKFLOWS },
      histories.map((h) => ({ workflowId: h.id, history: h.history })),
    );
    let count = 0;
    for await (const result of results) {
      expect(result.error, `replay of ${result.workflowId}`).toBeUndefined();
      count++;
    }
    expect(count).toBe(4);
    if (RECORD) {
      mkdirSync(HISTORIES, { recursive: true });
      for (const h of histories) writeFileSync(path.join(HISTORIES, `checkout-session-${h.name}.json`), JSON.stringify(History.toObject(History.fromObject(h.history), HISTORY_JSON), null, 1));
    }
  });

  it('replays the committed histories recorded from earlier code', async () => {
    expect(existsSync(HISTORIES)).toBe(true);
    const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    const results = Worker.runReplayHistories(
      { workflowsPath: WORKFLOWS },
      files.map((f) => ({ workflowId: f, history: History.fromObject(JSON.parse(readFileSync(path.join(HISTORIES, f), 'utf8'))) })),
    );
    let count = 0;
    for await (const result of results) {
      expect(result.error, `replay of ${result.workflowId}`).toBeUndefined();
      count++;
    }
    expect(count).toBe(files.length);
  });
});
