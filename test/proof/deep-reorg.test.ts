import { createWalletClient, encodeFunctionData, http as viemHttp, parseEther, type Hash, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementKeys } from '../../src/chains/derivation';
import { devChain } from '../../tools/dev/dev-accounts';
import { DEV_CHAIN_ID } from '../../tools/dev/dev-chain';
import { testTokenAbi } from '../../tools/dev/test-token-artifact';
import { devChainVariables } from '../../tools/dev/test-tokens';
import { nextFreeNonce, NonceTaken, storeSignedPayout } from '../../src/db/queries/payout-signing';
import { payouts as payoutsTable } from '../../src/db/schema';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { balanceOf, mint, newPayer, pay, privateChain, randomAddress, type TestChain } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { startReceiver } from '../support/receiver';
import { merchantWithFreshWallet, openSession, payoutsOf, unbalancedPostings, waitForPayouts } from '../payouts/support';
import { paymentAtRest } from '../support/at-rest';
import { creditsOf, exceptionsOf, pressPay, sessionRow, waitForStatus } from './support';

// A reorg deeper than the confirmations (1 on the dev chain), on a private anvil
// rewound with snapshot and revert. The watcher's re-check takes the credit back (a `reorged`
// exception, announced), pays nothing twice (the payouts' same signed bytes are sent again), and
// a sender's nonce gap is filled without anyone's help.
const overrides: Record<string, string> = {};
let chain: TestChain & { stop(): Promise<void> };
const treasury = settlementKeys(DEV_SETTLEMENT_MNEMONIC).treasury.address;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  chain = await privateChain();
  Object.assign(overrides, devChainVariables(chain.rpcUrl, DEV_CHAIN_ID, chain.tokens, chain.sweepers));
  await chain.control.setBalance({ address: treasury, value: parseEther('100') });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await chain?.stop();
});
// The worker's business events: the payouts a reorg sends again are logged like every other payout.
const business: { event: string; fields: Record<string, unknown> }[] = [];
const ctx = useTestApp(overrides, {
  listen: true,
  sandbox: true,
  worker: true,
  businessLog: (event, fields) => void business.push({ event, fields }),
});

const statusesOf = async (id: string) => (await payoutsOf(ctx, id)).map((p) => `${p.kind}:${p.status}`);
/** The payouts of `paymentId` a reorg made the worker log `event` for (`payout.sent`: sent again), sorted. */
const afterReorg = (paymentId: string, event: string) =>
  business
    .filter((b) => b.event === event && b.fields.paymentId === paymentId && b.fields.afterReorg === true)
    .map((b) => b.fields.payoutId)
    .sort();
/**
 * The payouts of `paymentId` once every one of them was sent again and settled. A `confirmed` read
 * before the watcher found its transaction gone is the first confirmation, so the wait is for all of
 * them to have been sent again (the watcher reads a pass's receipts together, and the revert can fall
 * between them: a payout can be reopened a pass after the others).
 */
async function settledAfterReorg(paymentId: string, count: number) {
  const { payouts } = await eventually(
    // The log entries first: a payout is reopened before it is logged, so rows read after its entry are not older than the reopening.
    async () => ({ sent: afterReorg(paymentId, 'payout.sent').length, payouts: await payoutsOf(ctx, paymentId) }),
    ({ sent, payouts: ps }) => sent === count && ps.length === count && ps.every((p) => p.status === 'confirmed' || p.status === 'failed'),
    30_000,
    `the payouts of ${paymentId} sent again to settle`,
  );
  return payouts;
}

/** A deposit from a fresh wallet, signed first so that the very same transaction can be mined again after the revert. */
async function signedDeposit(to: Hex, amount: bigint) {
  const payer = await newPayer(chain);
  await mint(chain, chain.tokens.polygon.USDC, payer.address, amount);
  const wallet = createWalletClient({ account: payer, chain: devChain(chain.rpcUrl), transport: viemHttp(chain.rpcUrl) });
  const data = encodeFunctionData({ abi: testTokenAbi, functionName: 'transfer', args: [to, amount] });
  return wallet.signTransaction(await wallet.prepareTransactionRequest({ to: chain.tokens.polygon.USDC, data, gas: 100_000n }));
}

describe('a reorg deeper than the confirmations', () => {
  it('takes a completed payment’s credit back as one reorged exception, announced, and pays nothing twice', async () => {
    const token = chain.tokens.polygon.USDC;
    const m = await merchantWithFreshWallet(ctx, 150);
    const id = await openSession(ctx, m.apiKey, { webhookUrl: `${receiver.url}/hooks` });
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const payer = await newPayer(chain);
    await mint(chain, token, payer.address, g);
    const snapshot = await chain.control.snapshot();

    const deposit = await pay(chain, payer, token, depositAddress, g);
    await waitForStatus(ctx, id, 'completed');
    const paid = await waitForPayouts(ctx, id);
    expect(paid.map((p) => p.kind)).toEqual(['sweep', 'merchant']);
    expect(await balanceOf(chain, token, m.wallet)).toBeGreaterThan(0n);
    const headBefore = await chain.publicClient.getBlockNumber();

    // Every block from the deposit on leaves the chain; the new chain grows past the old one.
    await chain.control.revert({ id: snapshot });
    await chain.control.mine({ blocks: Number(headBefore - (await chain.publicClient.getBlockNumber())) + 2 });

    await eventually(
      () => creditsOf(ctx, id),
      (c) => c.length === 1 && c[0]!.state === 'removed',
      20_000,
      'the credit to be removed',
    );
    const [exception, ...others] = await eventually(
      () => exceptionsOf(ctx, id),
      (e) => e.some((x) => x.kind === 'reorged'),
      20_000,
      'a reorged exception',
    );
    expect(others).toEqual([]);
    expect(exception).toMatchObject({ kind: 'reorged', amount: g, status: 'open' });
    expect(exception!.references).toMatchObject({
      transactionHash: deposit.transactionHash.toLowerCase(),
      blockHash: deposit.blockHash.toLowerCase(),
      blockNumber: deposit.blockNumber.toString(),
      paymentStatus: 'completed',
    });
    const announced = await eventually(
      async () => receiver.received.filter((d) => d.body.event === 'payment.exception'),
      (d) => d.length >= 1,
      20_000,
      'payment.exception',
    );
    expect(announced[0]!.body).toMatchObject({ kind: 'reorged', amount: expect.any(String), sessionId: id });

    // The settlement run's own transactions are sent again, as they were signed, and are mined
    // reverted: the deposit left with the reorg, so the sweep has nothing to move, and the treasury
    // (this file's own) holds nothing to pay the merchant with. Nothing is planned or signed anew.
    const after = await settledAfterReorg(id, paid.length);
    expect(after.map((p) => [p.kind, p.txHash, p.nonce])).toEqual(paid.map((p) => [p.kind, p.txHash, p.nonce]));
    expect(after.map((p) => `${p.kind}:${p.status}`)).toEqual(['sweep:failed', 'merchant:failed']);
    for (const p of after) expect((await chain.publicClient.getTransactionReceipt({ hash: p.txHash as Hash })).status).toBe('reverted');
    expect(await balanceOf(chain, token, m.wallet)).toBe(0n);
    expect((await sessionRow(ctx, id)).status).toBe('completed');
    // What their confirmations posted is undone, as posted: the sweep's move to the treasury, the payout's leaving it.
    const undone = await ctx.db.sql`select posting_id from ledger_entries where posting_id like '%:undone'
      and (posting_id like ${`sweep:${after[0]!.id}%`} or posting_id like ${`outgoing:${after[1]!.id}%`}) group by posting_id order by posting_id`;
    expect(undone.map((r) => r.posting_id)).toEqual([`outgoing:${after[1]!.id}:confirmed:undone`, `sweep:${after[0]!.id}:undone`]);
    expect(await unbalancedPostings(ctx)).toEqual([]);
    // Each payout sent again, and its outcome, is a business event of the payment, as first time round.
    expect(afterReorg(id, 'payout.sent')).toEqual(after.map((p) => p.id).sort());
    expect(afterReorg(id, 'payout.confirmed')).toEqual([]);
    // A payout's outcome is logged once its row is written: the rows read failed may come a moment before the entries.
    const failed = await eventually(
      () =>
        Promise.resolve(
          business
            .filter((b) => b.event === 'payout.failed' && b.fields.paymentId === id)
            .map((b) => b.fields.payoutId)
            .sort(),
        ),
      (ids) => ids.length >= after.length,
      10_000,
      'both payouts logged failed',
    );
    expect(failed).toEqual(after.map((p) => p.id).sort());

    // Later passes change nothing: one exception, one event. A pass of the reorg watch that finds
    // nothing writes nothing, so there is no outcome to wait on: three passes' time (500 ms apart here).
    await new Promise((r) => setTimeout(r, 1500));
    await paymentAtRest(ctx, id);
    expect((await exceptionsOf(ctx, id)).length).toBe(1);
    expect(receiver.received.filter((d) => d.body.event === 'payment.exception').length).toBe(1);
    expect(await statusesOf(id)).toEqual(['sweep:failed', 'merchant:failed']);
  }, 120_000);

  it('sends the same payouts again when their blocks leave the chain, and a later payout of the treasury goes out behind the gap', async () => {
    const token = chain.tokens.polygon.USDC;
    const m = await merchantWithFreshWallet(ctx, 150);
    const a = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, a);
    const signed = await signedDeposit((await sessionRow(ctx, a)).depositAddress, g);
    const snapshot = await chain.control.snapshot();
    const first = await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.publicClient.sendRawTransaction({ serializedTransaction: signed }),
      pollingInterval: 50,
    });
    await waitForStatus(ctx, a, 'completed');
    const paid = await waitForPayouts(ctx, a);
    const headBefore = await chain.publicClient.getBlockNumber();
    const treasuryNonce = await chain.publicClient.getTransactionCount({ address: treasury });

    // The chain goes back below A's payouts (and its deposit). In one block: a plain transfer, then
    // the same deposit: same transaction and log, another block. The treasury's nonce on chain is now
    // below what Postgres has handed out.
    await chain.control.revert({ id: snapshot });
    await chain.control.setAutomine(false);
    const filler = await newPayer(chain);
    const fillerWallet = createWalletClient({ account: filler, chain: devChain(chain.rpcUrl), transport: viemHttp(chain.rpcUrl) });
    await fillerWallet.sendTransaction({ to: randomAddress(), value: 1n });
    await chain.publicClient.sendRawTransaction({ serializedTransaction: signed });
    await chain.control.mine({ blocks: 1 });
    await chain.control.setAutomine(true);
    const again = await chain.publicClient.getTransactionReceipt({ hash: first.transactionHash });
    expect(again.blockHash).not.toBe(first.blockHash);
    expect(await chain.publicClient.getTransactionCount({ address: treasury })).toBeLessThan(treasuryNonce);

    // B is settled now: its sweep comes from the treasury, behind A's payout whose block left the chain.
    const b = await openSession(ctx, m.apiKey);
    const gb = await pressPay(ctx, b);
    const { depositAddress: bAddress } = await sessionRow(ctx, b);
    const bPayer = await newPayer(chain);
    await mint(chain, token, bPayer.address, gb);
    await pay(chain, bPayer, token, bAddress, gb);
    if ((await chain.publicClient.getBlockNumber()) <= headBefore)
      await chain.control.mine({ blocks: Number(headBefore - (await chain.publicClient.getBlockNumber())) + 1 });
    await waitForStatus(ctx, b, 'completed');
    const bPaid = await waitForPayouts(ctx, b);

    // A: the credit followed its transaction to the new block, no exception; its payouts were sent
    // again, the same transactions, and are confirmed in new blocks.
    const [credit] = await ctx.db.sql`select state, block_hash from chain_credits where payment_id = ${a}`;
    expect(credit).toMatchObject({ state: 'credited', block_hash: again.blockHash.toLowerCase() });
    expect(await exceptionsOf(ctx, a)).toEqual([]);
    const aAfter = await settledAfterReorg(a, paid.length);
    expect(aAfter.map((p) => p.status)).toEqual(paid.map(() => 'confirmed'));
    expect(aAfter.map((p) => [p.kind, p.txHash, p.nonce])).toEqual(paid.map((p) => [p.kind, p.txHash, p.nonce]));
    for (const p of aAfter) expect((await chain.publicClient.getTransactionReceipt({ hash: p.txHash as Hash })).status).toBe('success');
    expect(await balanceOf(chain, token, m.wallet)).toBe(aAfter[1]!.amount + bPaid[1]!.amount);
    // B's sweep took the nonce after A's payout: nobody re-signed anything.
    const [aLast, bFirst] = [aAfter.at(-1)!, bPaid[0]!];
    expect(bFirst.nonce).toBe(aLast.nonce! + 1);
    expect([...aAfter, ...bPaid].every((p) => p.replaced.length === 0)).toBe(true);
    expect(await unbalancedPostings(ctx)).toEqual([]);
  }, 120_000);
});

describe('a reorg deeper than the confirmations, after an underpaid end', () => {
  it('takes the log’s share out of the underpaid hold, records it reorged, and the money that left is neither accepted nor refunded', async () => {
    const token = chain.tokens.polygon.USDC;
    const m = await merchantWithFreshWallet(ctx, 150);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const half = g / 2n;
    const payer = await newPayer(chain);
    await mint(chain, token, payer.address, half);
    const snapshot = await chain.control.snapshot();
    await pay(chain, payer, token, depositAddress, half);
    await eventually(
      () => creditsOf(ctx, id),
      (c) => c.length === 1 && c[0]!.state === 'credited',
      20_000,
      'the half credited',
    );
    // The merchant ends it short: the credits become the underpaid exception's money, held for the customer.
    const expired = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/checkout/sessions/${id}/expire`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    expect(expired.statusCode).toBe(200);
    const [underpaid] = await eventually(
      () => exceptionsOf(ctx, id),
      (e) => e.some((x) => x.kind === 'underpaid'),
      20_000,
      'the underpaid exception',
    );
    expect(underpaid).toMatchObject({ kind: 'underpaid', amount: half, status: 'open' });
    const held = async () =>
      BigInt(
        (
          await ctx.db.sql`select coalesce(sum(amount), 0)::text as b from ledger_entries where account = ${`exception:${underpaid!.id}`}`
        )[0]!.b as string,
      );
    expect(await held()).toBe(-half);

    // The half leaves the chain with its block.
    const headBefore = await chain.publicClient.getBlockNumber();
    await chain.control.revert({ id: snapshot });
    await chain.control.mine({ blocks: Number(headBefore - (await chain.publicClient.getBlockNumber())) + 2 });
    const [, reorged] = await eventually(
      () => exceptionsOf(ctx, id),
      (e) => e.some((x) => x.kind === 'reorged'),
      20_000,
      'a reorged exception',
    );
    expect(reorged).toMatchObject({ kind: 'reorged', amount: half, status: 'open' });
    expect(reorged!.references).toMatchObject({ exceptionId: underpaid!.id, exceptionKind: 'underpaid', paymentStatus: 'expired' });
    await eventually(
      () => creditsOf(ctx, id),
      (c) => c[0]!.state === 'removed',
      20_000,
      'the credit removed',
    );
    expect(await held()).toBe(0n);
    expect(await unbalancedPostings(ctx)).toEqual([]);

    // Accepted, it would complete a payment with nothing on chain; refunded, it would send someone else's money.
    const accept = await ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${underpaid!.id}/accept`, headers: adminHeaders });
    expect(accept.statusCode).toBe(409);
    expect(accept.json()).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('not credited on chain') });
    const refund = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/exceptions/${underpaid!.id}/refund`,
      headers: adminHeaders,
      payload: { address: randomAddress() },
    });
    expect(refund.statusCode).toBe(409);
    expect((await sessionRow(ctx, id)).status).toBe('expired');
    expect(await ctx.db.sql`select 1 from transactions where payment_id = ${id}`).toHaveLength(0);
  }, 120_000);
});

describe('the next free nonce after a reorg', () => {
  it('takes the chain’s count when no payout of ours holds the nonces above it, else one past the highest held', async () => {
    const sender = randomAddress();
    const db = ctx.db.db;
    const next = (chainNext: number) => nextFreeNonce(db, { network: 'polygon', sender, chainNext });
    const payout = (id: string, fields: { nonce?: number; status: 'planned' | 'confirmed' }) =>
      db.insert(payoutsTable).values({
        id,
        paymentId: 'SV_nonce',
        kind: fields.status === 'planned' ? 'merchant' : 'sweep',
        attempt: Number(id.slice(-2)),
        network: 'polygon',
        asset: 'native',
        fromAddress: sender,
        toAddress: randomAddress(),
        amount: '1',
        ...fields,
      });
    const signature = (id: string, nonce: number) =>
      storeSignedPayout(db, {
        id,
        replacing: null,
        nonce,
        changes: {
          signedTx: '0x01',
          txHash: `0x${id.slice(-2)}`,
          gasLimit: '21000',
          maxFeePerGas: '1',
          maxPriorityFeePerGas: '1',
          signedAt: new Date(),
        },
      });
    // The chain (after a reorg) counts 3, and no row of ours holds a nonce above: 3.
    expect(await next(3)).toBe(3);
    // A payout of ours holds 5 above the chain's count (mined nowhere now, to be sent again): the
    // next is past the highest held, never in between.
    await payout('po_reorgnoncetest000000005', { nonce: 5, status: 'confirmed' });
    expect(await next(3)).toBe(6);
    // As signing does: two payouts read the same free nonce; the first stored keeps it, the second is
    // refused (NonceTaken) and reads the next.
    await payout('po_reorgnoncetest000000006', { status: 'planned' });
    await payout('po_reorgnoncetest000000007', { status: 'planned' });
    expect((await signature('po_reorgnoncetest000000006', 6))?.nonce).toBe(6);
    await expect(signature('po_reorgnoncetest000000007', 6)).rejects.toBeInstanceOf(NonceTaken);
    expect(await next(3)).toBe(7);
    expect((await signature('po_reorgnoncetest000000007', 7))?.nonce).toBe(7);
    // A row already signed is not signed again: nothing stored, nothing refused.
    expect(await signature('po_reorgnoncetest000000007', 8)).toBeUndefined();
    // The chain ahead of us (another wallet with the same key): the chain's count.
    expect(await next(20)).toBe(20);
  });
});
