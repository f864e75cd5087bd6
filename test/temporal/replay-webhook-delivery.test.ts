import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { startReceiver } from '../support/receiver';
import { replayRuns } from './histories';

// Runs of the webhookDelivery workflow: delivered after one failed attempt, and given up after its
// (here very short) retry window. Checkout sessions deliver from their own run now (patch
// deliveries-in-run), so the runs here are an operator's resends of the session's deliveries.
const ctx = useTestApp(
  { WEBHOOK_RETRY_BASE_SECONDS: '0.2', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '0.5', WEBHOOK_RETRY_WINDOW_HOURS: '0.001' },
  { worker: true },
);

let flaky: Awaited<ReturnType<typeof startReceiver>>;
let down: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  // Every other POST fails: the session's own delivery and the resend each succeed on their second attempt.
  flaky = await startReceiver((_d, i) => ({ status: i % 2 === 0 ? 500 : 200 }));
  down = await startReceiver(() => ({ status: 503 }));
});
afterAll(async () => {
  await flaky?.close();
  await down?.close();
});

describe('webhookDelivery histories', () => {
  it('replays the current code’s own runs: succeeded after a retry, failed after the window', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const endpoint = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${flaky.url}/hooks` },
    });
    expect(endpoint.statusCode).toBe(201);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: { authorization: `Bearer ${m.apiKey}` },
      payload: { amount: 25, currency: 'USD', countryCode: 'US', webhookUrl: `${down.url}/hooks` },
    });
    const id = res.json().checkoutSession.id as string;
    // The provider delivers to the session's deposit address, so its callbacks name that wallet.
    const [{ deposit_address: walletAddress }] = (await ctx.db
      .sql`select deposit_address from checkout_sessions where id = ${id}`) as unknown as [{ deposit_address: string }];
    const session = { id, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress };
    // One transition, one event: the merchant's expire.
    expect(
      (
        await ctx.app.inject({
          method: 'POST',
          url: `/api/v1/checkout/sessions/${session.id}/expire`,
          headers: { authorization: `Bearer ${m.apiKey}` },
        })
      ).statusCode,
    ).toBe(200);

    const finished = () =>
      eventually(
        () => ctx.db.sql`select id, url, status from webhook_deliveries where payment_id = ${id}`,
        (rows) => rows.length === 2 && rows.every((r) => r.status !== 'pending'),
        30_000,
        'both deliveries to finish',
      );
    const deliveries = await finished();
    expect(flaky.received).toHaveLength(2);
    for (const d of deliveries) {
      const resent = await ctx.app.inject({
        method: 'POST',
        url: `/admin/v1/webhook-deliveries/${d.id as string}/resend`,
        headers: adminHeaders,
      });
      expect(resent.statusCode).toBe(202);
    }
    const resends = await finished();
    const byUrl = Object.fromEntries(resends.map((d) => [String(d.url).startsWith(flaky.url) ? 'succeeded' : 'failed', d]));
    expect(byUrl.succeeded!.status).toBe('succeeded');
    expect(byUrl.failed!.status).toBe('failed');
    expect(flaky.received).toHaveLength(4);
    const runs: Record<string, string> = {};
    for (const [outcome, d] of Object.entries(byUrl)) {
      const [run] = await eventually(
        async () => {
          const found = [];
          for await (const w of ctx.temporal.workflow.list({
            query: `WorkflowType = 'webhookDelivery' AND ExecutionStatus = 'Completed'`,
          })) {
            if (w.workflowId.startsWith(`${d.id as string}-resend-`)) found.push(w.workflowId);
          }
          return found;
        },
        (found) => found.length === 1,
        15_000,
        `the resend run of the ${outcome} delivery`,
      );
      runs[outcome] = run!;
    }
    await replayRuns(ctx.temporal, 'webhook-delivery', runs);
  });
});
