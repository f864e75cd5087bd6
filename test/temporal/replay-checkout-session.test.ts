import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { payFromWallet, sharedChain } from '../support/chain';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import { startReceiver } from '../support/receiver';
import { MerchantIdKey } from '../../src/workflows/search-attributes';
import { replayRuns } from './histories';

// Runs of the checkoutSession workflow on its main paths, replayed (and recorded on demand).
// Retries are short so that a delivery to a receiver that is down gives up within seconds.
const ctx = useTestApp(
  {
    SESSION_TTL_SECONDS: '3',
    WEBHOOK_RETRY_BASE_SECONDS: '0.2',
    WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '0.5',
    WEBHOOK_RETRY_WINDOW_HOURS: '0.001',
  },
  { listen: true, sandbox: true, worker: true },
);
const chain = sharedChain();

async function runScenarios(): Promise<Record<string, string>> {
  const m = await createApprovedMerchant(ctx.app);
  // Every run announces its transitions to a receiver, so the histories carry the delivery starts.
  const receiver = await startReceiver();
  const down = await startReceiver(() => ({ status: 503 }));
  const open = async (webhookUrl = `${receiver.url}/replay`) => {
    const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
      headers: { authorization: `Bearer ${m.apiKey}` },
      body: { amount: 25, currency: 'USD', countryCode: 'US', orderId: 'replay', cancelUrl: 'https://shop.example/cart', webhookUrl },
    });
    const id = res.json.checkoutSession.id as string;
    // The provider delivers to the session's deposit address, so its callbacks name that wallet.
    const [{ deposit_address: walletAddress }] = (await ctx.db
      .sql`select deposit_address from checkout_sessions where id = ${id}`) as unknown as [{ deposit_address: `0x${string}` }];
    return { id, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress };
  };
  /** Pay pressed (G = 25.000000), then `micro` sent straight from a wallet. */
  const payOnChain = async (s: { id: string; walletAddress: `0x${string}` }, micro: bigint) => {
    expect((await http('POST', `${ctx.baseUrl}/pay/${s.id}/start`)).status).toBe(303);
    await payFromWallet(chain, chain.tokens.polygon.USDC, s.walletAddress, micro);
  };
  const secret = ctx.config.providers.sandbox.callbackSecret;
  const ids: Record<string, string> = {};

  const paid = await open();
  expect(
    (await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, { body: { reference: paid.id, outcome: 'succeeded' } }))
      .status,
  ).toBe(200);
  ids.completed = paid.id;

  // A decline leaves the session open for another attempt; nothing came after it, so the
  // expiry ends it failed.
  const failed = await open();
  await postCallback(ctx.app, sandboxEvent(failed, 'payment.failed'), { secret });
  ids.failed = failed.id;

  // A receiver that is down: the run's own delivery retries until its window ends, is marked failed,
  // and only then does the run end (patch deliveries-in-run).
  const undelivered = await open(`${down.url}/replay`);
  await postCallback(ctx.app, sandboxEvent(undelivered, 'payment.failed'), { secret });
  ids.failedUndelivered = undelivered.id;

  // Pay pressed, then canceled: the workflow closes the provider payment.
  const canceled = await open();
  expect((await http('POST', `${ctx.baseUrl}/pay/${canceled.id}/start`)).status).toBe(303);
  expect((await http('POST', `${ctx.baseUrl}/pay/${canceled.id}/cancel`)).status).toBe(303);
  ids.canceled = canceled.id;

  // The merchant's expire (POST …/expire), before the 3 s timer.
  const expiredNow = await open();
  const expired = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${expiredNow.id}/expire`, {
    headers: { authorization: `Bearer ${m.apiKey}` },
  });
  expect(expired.status).toBe(200);
  ids.expiredOnDemand = expiredNow.id;

  // Chain-verified paths: over-delivery completes, under-delivery and an unproven
  // provider success expire with their records.
  const overpaid = await open();
  await payOnChain(overpaid, 26_000_000n);
  ids.overpaid = overpaid.id;

  // Paid exactly from a wallet: completed on chain, into the merchant's balance; the run ends there
  // (a settlement run sweeps and pays it).
  const onChain = await open();
  await payOnChain(onChain, 25_000_000n);
  ids.completedOnChain = onChain.id;

  const underpaid = await open();
  await payOnChain(underpaid, 10_000_000n);
  ids.underpaidExpired = underpaid.id;

  const unverified = await open();
  expect((await http('POST', `${ctx.baseUrl}/pay/${unverified.id}/start`)).status).toBe(303);
  await postCallback(ctx.app, sandboxEvent(unverified, 'payment.succeeded', { destinationAmount: '25.000000' }), { secret });
  ids.unverifiedExpired = unverified.id;

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
  await receiver.close();
  await down.close();
  return ids;
}

describe('checkoutSession histories', () => {
  it('replays the current code’s own runs: completed, declined then failed at the expiry, the same with its delivery given up, canceled, expired on demand, overpaid, completed on chain, underpaid, unverified, expired then late', async () => {
    const ids = await runScenarios();
    const kinds = await ctx.db.sql`select payment_id, kind from payment_exceptions`;
    expect(Object.fromEntries(kinds.map((k) => [k.payment_id, k.kind]))).toEqual({
      [ids.overpaid!]: 'overpaid',
      [ids.underpaidExpired!]: 'underpaid',
      [ids.unverifiedExpired!]: 'unverified',
      // A provider's success after the end, with no transfer seen: a claim.
      [ids.expiredThenLate!]: 'unverified',
    });
    // An exception's run carries its merchant, for an operator's search (started from the session's run).
    const [overpaid] = await ctx.db
      .sql`select e.id, s.merchant_id from payment_exceptions e join checkout_sessions s on s.id = e.payment_id where e.payment_id = ${ids.overpaid!}`;
    const described = await ctx.temporal.workflow.getHandle(overpaid!.id as string).describe();
    expect(described.typedSearchAttributes.get(MerchantIdKey)).toBe(overpaid!.merchant_id);
    // Completed on chain: its share is the merchant's balance, and its run sent nothing on chain.
    const [onChain] = await ctx.db.sql`select
      (select count(*)::int from events where payment_id = ${ids.completedOnChain!} and type = 'payment.completed') as events,
      (select count(*)::int from payouts where payment_id = ${ids.completedOnChain!}) as payouts,
      (select count(*)::int from ledger_entries where posting_id = ${`completion:${ids.completedOnChain!}`}) as completion_lines`;
    expect(onChain).toEqual({ events: 1, payouts: 0, completion_lines: 3 });
    const closed = await http('GET', `${ctx.config.providers.sandbox.url}/test-helpers/payments/${ids.canceled}`);
    expect(closed.json.payment.status).toBe('canceled');
    const [declined] = await ctx.db.sql`select s.status, t.failure_reason,
      (select string_agg(type, ',') from events where payment_id = s.id) as events
      from checkout_sessions s join transactions t on t.payment_id = s.id where s.id = ${ids.failed!}`;
    expect(declined).toEqual({ status: 'failed', failure_reason: 'card_declined', events: 'payment.failed' });
    const [undelivered] = await ctx.db.sql`select status from webhook_deliveries where payment_id = ${ids.failedUndelivered!}`;
    expect(undelivered).toEqual({ status: 'failed' });
    // The expire scenario is the update's path, not the timer's.
    const history = await ctx.temporal.workflow.getHandle(ids.expiredOnDemand!).fetchHistory();
    expect(history.events!.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'expire')).toBe(
      true,
    );
    await replayRuns(ctx.temporal, 'checkout-session', ids);
  });
});
