import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import { replayRuns } from './histories';

// Runs of the checkoutSession workflow on its main paths, replayed (and recorded on demand).
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
  const secret = ctx.config.providers.sandbox.callbackSecret;
  const ids: Record<string, string> = {};

  const paid = await open();
  expect((await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: paid.id, outcome: 'succeeded' } })).status).toBe(200);
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

describe('checkoutSession histories', () => {
  it('replays the current code’s own runs: completed, failed, canceled, expired then late', async () => {
    await replayRuns(ctx.temporal, 'checkout-session', await runScenarios());
  });
});
