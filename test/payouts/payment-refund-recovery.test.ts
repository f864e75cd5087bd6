import { encodeAbiParameters, keccak256, numberToHex, type Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { commissionSplit, formatCrypto } from '../../src/domain/money';
import type { RefundRequest } from '../../src/workflows/payment-refund/messages';
import { MerchantIdKey } from '../../src/workflows/search-attributes';
import { balanceOf, payFromWallet, randomAddress } from '../support/chain';
import { activitiesFor, adminHeaders, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { useMailSink } from '../support/mail';
import { pressPay, sessionRow, waitForStatus } from '../proof/support';
import { ledgerBalance, merchantWithFreshWallet, openSession, ownTreasury, payoutsOf, unbalancedPostings } from './support';

// A completed payment's refund off the happy path, on the run's anvil with a treasury of this file's
// own, whose merchant is paid out manually (their balance stays with the platform after the sweep):
// - a refund the treasury cannot send (its token taken away) fails after the payouts' refusal bound
//   with its reason in words, gives its draw back to the balance, and waits; the operator's retry
//   (POST /admin/v1/payouts/{id}/retry, routed to the refund's run) is refused while the balance no
//   longer holds it, and sends it exactly once after a payment fills the balance again;
// - the customer who left an email gets one refund notice per refund;
// - a refund's run records it itself, once: the same request again writes nothing, a request under
//   its id for another amount or one arriving after its asker was answered is refused, a run whose
//   request was lost finds its row (or ends with nothing), and a refusal leaves no row;
// - every refund run carries its merchant's MerchantId.
// A refund the treasury cannot fund fails after the refusal bound: its window shortened from the minute of production.
const own = ownTreasury({ PAYOUT_INTERVAL_SECONDS: '1', PAYOUT_REFUSAL_WINDOW_SECONDS: '15' });
const chain = own.chain;
const token = chain.tokens.polygon.USDC;
const mail = useMailSink(own.overrides);
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });

// The token's balances sit in its `balanceOf` mapping (storage slot 3, contracts/TestToken.sol): the
// test takes the treasury's tokens aside and puts them back by writing that slot, which no transfer
// log records (a Transfer would be money arriving or leaving for the ledger).
const balanceSlot = (owner: Address) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 3n]));
async function setTokenBalance(owner: Address, amount: bigint) {
  await chain.control.setStorageAt({ address: token, index: balanceSlot(owner), value: numberToHex(amount, { size: 32 }) });
  expect(await balanceOf(chain, token, owner)).toBe(amount);
}

type Merchant = Awaited<ReturnType<typeof merchantWithFreshWallet>>;
let merchant: Merchant;
/** The third payment: the sweep's test refunds part of it. */
let third: { id: string; g: bigint };

/** A session of the merchant paid from a wallet, completed, and its deposit swept into the treasury. */
async function paidAndSwept(m: Merchant) {
  const id = await openSession(ctx, m.apiKey);
  const g = await pressPay(ctx, id);
  const { depositAddress } = await sessionRow(ctx, id);
  await payFromWallet(chain, token, depositAddress, g);
  await waitForStatus(ctx, id, 'completed', 60_000);
  await eventually(
    async () => (await payoutsOf(ctx, id)).map((p) => `${p.kind}:${p.status}`),
    (ps) => ps.includes('sweep:confirmed'),
    90_000,
    `the deposit of ${id} swept`,
  );
  return { id, g };
}
const available = async () =>
  -(await ledgerBalance(ctx, `merchant:${merchant.id}:available`, 'USDC')) -
  (await ledgerBalance(ctx, `merchant:${merchant.id}:reserved`, 'USDC'));

const refund = (paymentId: string, amount: bigint, address: string) =>
  ctx.app.inject({
    method: 'POST',
    url: `/admin/v1/payments/${paymentId}/refunds`,
    headers: adminHeaders,
    payload: { amount: formatCrypto(amount), address },
  });
const refundRow = async (id: string) =>
  (await ctx.db.sql`select status, failure_reason, payout_id, tx_hash from payment_refunds where id = ${id}`)[0]!;
const waitForRefund = (id: string, status: string, timeoutMs = 60_000) =>
  eventually(
    () => refundRow(id),
    (r) => r.status === status,
    timeoutMs,
    `refund ${id} ${status}`,
  );
const refundPayouts = (refundId: string) =>
  ctx.db.sql`select id, status, amount, tx_hash from payouts where refund_id = ${refundId} and kind = 'payment_refund'`;
const merchantIdOfRun = async (workflowId: string) =>
  (await ctx.temporal.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(MerchantIdKey);

describe('a completed payment’s refund off the happy path', () => {
  it('fails without funds with its reason in words, is refused on retry while the balance lacks it, then is sent once', async () => {
    merchant = await merchantWithFreshWallet(ctx, 150);
    await ctx.db.sql`update merchants set payout_schedule = 'manual' where id = ${merchant.id}`;
    const a = await paidAndSwept(merchant);
    const b = await paidAndSwept(merchant);
    const net = (g: bigint) => commissionSplit(g, 150).merchant;
    expect(await available()).toBe(net(a.g) + net(b.g));
    // The customer of A left an email on the checkout page (kept on the session as the page keeps it).
    const email = `refunded-${a.id.slice(3, 11).toLowerCase()}@example.com`;
    await ctx.db.sql`update checkout_sessions set receipt_email = ${email}, receipt_locale = 'en' where id = ${a.id}`;

    // R1: 1 USDC of A while the treasury's tokens are away: the transfer is refused, then failed.
    const held = await balanceOf(chain, token, own.treasury);
    await setTokenBalance(own.treasury, 500_000n);
    const r1Address = randomAddress();
    const asked = await refund(a.id, 1_000_000n, r1Address);
    expect(asked.statusCode).toBe(201);
    const r1 = asked.json().refund.id as string;
    expect(await merchantIdOfRun(r1)).toBe(merchant.id);
    const failed = await waitForRefund(r1, 'failed', 150_000);
    expect(failed.failure_reason).toMatch(/holds less of the token than the transfer sends/);
    expect(failed.failure_reason).not.toMatch(/custom error|0x[0-9a-f]{8}\b/);
    const [r1Payout] = await refundPayouts(r1);
    expect(r1Payout).toMatchObject({ status: 'failed', tx_hash: null });
    expect((await ctx.temporal.workflow.getHandle(r1).describe()).status.name).toBe('RUNNING');
    // What it drew is the merchant's again.
    expect(await available()).toBe(net(a.g) + net(b.g));

    // The tokens are back; B refunded whole (R2) and A all but R1's part (R3) leave less than R1.
    await setTokenBalance(own.treasury, held);
    const r2Answer = await refund(b.id, b.g, randomAddress());
    expect(r2Answer.statusCode).toBe(201);
    const r2 = r2Answer.json().refund.id as string;
    await waitForRefund(r2, 'refunded');
    const r3Amount = a.g - 1_000_000n;
    const r3Address = randomAddress();
    const r3Answer = await refund(a.id, r3Amount, r3Address);
    expect(r3Answer.statusCode).toBe(201);
    const r3 = r3Answer.json().refund.id as string;
    await waitForRefund(r3, 'refunded');
    const left = net(a.g) + net(b.g) - b.g - r3Amount;
    expect(left).toBeLessThan(1_000_000n);
    expect(await available()).toBe(left);

    // The operator's retry: R1 still fits A's rest (1 USDC left) but not the balance: 409 with the
    // balance's words, nothing reopened, the run still waiting.
    const retry = () => ctx.app.inject({ method: 'POST', url: `/admin/v1/payouts/${r1Payout!.id}/retry`, headers: adminHeaders });
    const refused = await retry();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      ok: false,
      error: 'Conflict',
      message: expect.stringMatching(
        /^This payout cannot be retried: The balance available for refunds is 0\.\d+ USDC; the refund needs 1\.00 USDC\./,
      ),
    });
    expect(await refundRow(r1)).toMatchObject({ status: 'failed' });
    expect((await refundPayouts(r1))[0]).toMatchObject({ status: 'failed' });
    expect((await ctx.temporal.workflow.getHandle(r1).describe()).status.name).toBe('RUNNING');

    // C fills the balance: the retry draws again and R1 is sent exactly once.
    const c = await paidAndSwept(merchant);
    third = c;
    const retried = await retry();
    expect(retried.statusCode).toBe(200);
    // Reopened (the run may already be sending it again).
    expect(retried.json().payout).toMatchObject({ id: r1Payout!.id, failureReason: null });
    expect(retried.json().payout.status).not.toBe('failed');
    expect(await ctx.temporal.workflow.getHandle(r1).result()).toBe('refunded');
    expect(await refundRow(r1)).toMatchObject({ status: 'refunded', failure_reason: null, payout_id: r1Payout!.id });
    expect(await balanceOf(chain, token, r1Address)).toBe(1_000_000n);
    const r1Payouts = await refundPayouts(r1);
    expect(r1Payouts).toHaveLength(1);
    expect(r1Payouts[0]).toMatchObject({ id: r1Payout!.id, status: 'confirmed' });
    const [events] = await ctx.db.sql`select count(*)::int as n from events where type = 'payment.refunded' and subject = ${r1}`;
    expect(events!.n).toBe(1);
    expect(await available()).toBe(left + net(c.g) - 1_000_000n);
    // Nothing of the merchant's ever reached their wallet (manual payouts), and the ledger balances.
    expect(await balanceOf(chain, token, merchant.wallet)).toBe(0n);
    expect(await unbalancedPostings(ctx)).toEqual([]);

    // A's customer: one notice per refund of A (R3, then R1), each once, with its amount, address and transaction.
    const notices = await eventually(
      async () => mail.messages().filter((m) => m.to.includes(email)),
      (ms) => ms.length === 2,
      20_000,
      'two refund notices',
    );
    expect(notices.map((m) => m.subject)).toEqual(['Money sent back to you by Payout Shop', 'Money sent back to you by Payout Shop']);
    const [r1Hash, r3Hash] = [(await refundRow(r1)).tx_hash as string, (await refundRow(r3)).tx_hash as string];
    const r1Notice = notices.find((m) => m.text.includes(r1Hash))!;
    const r3Notice = notices.find((m) => m.text.includes(r3Hash))!;
    expect(r1Notice.text).toContain('Amount: 1.00 USDC (Polygon)');
    expect(r1Notice.text).toContain(`Sent to: ${r1Address}`);
    expect(r1Notice.text).toContain(`Reference: ${a.id}`);
    const r3Words = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(
      formatCrypto(r3Amount) as unknown as number,
    );
    expect(r3Notice.text).toContain(`Amount: ${r3Words} USDC (Polygon)`);
    expect(r3Notice.text).toContain(`Sent to: ${r3Address}`);
    const mailRows = () =>
      ctx.db.sql`select kind, subject, to_address, status, attempts from customer_mails where payment_id = ${a.id} order by created_at`;
    await eventually(mailRows, (rows) => rows.length === 2 && rows.every((r) => r.status === 'sent'), 10_000, 'both notices marked sent');
    // Recorded once: the activity that records it, run again (a retry), adds nothing. B's customer left no email: none.
    await activitiesFor(ctx).emitRefundEvent(r1);
    expect(await mailRows()).toEqual([
      { kind: 'refund', subject: r3, to_address: email, status: 'sent', attempts: 1 },
      { kind: 'refund', subject: r1, to_address: email, status: 'sent', attempts: 1 },
    ]);
    expect(await ctx.db.sql`select id from customer_mails where payment_id = ${b.id}`).toEqual([]);
  }, 400_000);

  it('records a refund in its own run, once: a lost request, a repeated one, a late one and a refused one', async () => {
    expect(third).toBeDefined();
    const records = activitiesFor(ctx);
    const to = randomAddress();
    const request = (amount: bigint, notAfter = Date.now() + 60_000): RefundRequest => ({
      paymentId: third.id,
      amountMicro: amount.toString(),
      address: to,
      requestedBy: 'admin',
      requestKey: null,
      audit: null,
      notAfter,
    });
    const draws = (refundId: string) =>
      ctx.db.sql`select count(distinct posting_id)::int as n from ledger_entries where posting_id like ${`outgoing:${refundId}%`}`;
    const before = await available();

    // The same request twice (a retried attempt after a worker died mid-commit): one row, one draw.
    const twice = 'rf_' + 'T'.repeat(24);
    expect(await records.recordPaymentRefund(twice, request(1_000_000n))).toEqual({ standing: 'requested', repeated: false });
    expect(await records.recordPaymentRefund(twice, request(1_000_000n))).toEqual({ standing: 'requested', repeated: true });
    expect(await draws(twice)).toEqual([{ n: 1 }]);
    expect(await available()).toBe(before - 1_000_000n);
    // Another request under its id (a key reused for another amount): refused, nothing written.
    await expect(records.recordPaymentRefund(twice, request(2_000_000n))).rejects.toMatchObject({
      type: 'Conflict',
      message: 'This request key was used for another refund of this payment.',
    });
    // A request arriving after its asker was answered "not in time": refused, nothing written.
    const late = 'rf_' + 'L'.repeat(24);
    await expect(records.recordPaymentRefund(late, request(1_000_000n, Date.now() - 1))).rejects.toMatchObject({ type: 'Unavailable' });
    expect(await ctx.db.sql`select id from payment_refunds where id = ${late}`).toEqual([]);
    expect(await available()).toBe(before - 1_000_000n);

    // Its run, started without its request (lost after the start was admitted), finds the row after
    // its wait and sends it, once.
    const start = (refundId: string) =>
      ctx.temporal.workflow.start('paymentRefund', {
        workflowId: refundId,
        taskQueue: ctx.config.temporal.taskQueue,
        args: [{ refundId, paymentId: third.id, requestWaitMs: 500 }],
      });
    expect(await (await start(twice)).result()).toBe('refunded');
    expect(await refundRow(twice)).toMatchObject({ status: 'refunded' });
    expect(await balanceOf(chain, token, to)).toBe(1_000_000n);
    expect(await refundPayouts(twice)).toHaveLength(1);
    // A run whose request never came and whose row was never written ends with nothing to send.
    const never = 'rf_' + 'N'.repeat(24);
    expect(await (await start(never)).result()).toBe('refused');
    expect(await ctx.db.sql`select id from payment_refunds where id = ${never}`).toEqual([]);

    // Through the API: more than the balance holds is refused by the run with the balance's words;
    // nothing is written, and the refused run is closed.
    const tooMuch = await refund(third.id, (await available()) + 1n, randomAddress());
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json()).toMatchObject({
      ok: false,
      error: 'InsufficientBalance',
      message: expect.stringMatching(/^The balance available for refunds is /),
    });
    expect(await ctx.db.sql`select id from payment_refunds where payment_id = ${third.id} and id <> ${twice}`).toEqual([]);
    expect(await unbalancedPostings(ctx)).toEqual([]);
  }, 120_000);
});
