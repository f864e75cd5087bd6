import { describe, expect, it } from 'vitest';
import { runsAtRest, watcherPast } from '../support/at-rest';
import { formatCrypto } from '../../src/domain/money';
import { depositSignal } from '../../src/workflows/checkout-session/messages';
import { balanceOf, sharedChain } from '../support/chain';
import { useTestApp } from '../support/harness';
import { http } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import {
  creditsOf,
  exceptionsOf,
  merchantOnEveryNetwork,
  openSession,
  payFromWallet,
  pressPay,
  sessionRow,
  waitForStatus,
} from './support';

// Proof on chain against the run's real anvil: a session completes only when its own deposit
// address is credited at least G on chain, confirmed; the provider's word is a hint.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();

describe('completion proven on chain', () => {
  for (const network of ['polygon', 'ethereum', 'base', 'arbitrum'] as const) {
    it(`completes a sandbox payment on ${network} from the transfer into the deposit address`, async () => {
      const m = await merchantOnEveryNetwork(ctx);
      const id = await openSession(ctx, m.apiKey, { network });
      const opened = await sessionRow(ctx, id);
      expect(opened.verification).toBe('chain');
      expect(opened.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
      // The merchant's wallet stays the settlement wallet; the money goes to our address.
      expect(opened.depositAddress).not.toBe(opened.walletAddress);

      const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
        body: { reference: id, outcome: 'succeeded' },
      });
      expect(paid.status).toBe(200);
      await waitForStatus(ctx, id, 'completed');

      const tx = (await http('GET', `${ctx.baseUrl}/api/v1/transactions/${id}`, { headers: { authorization: `Bearer ${m.apiKey}` } })).json
        .transaction;
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: tx.depositTransactionHash });
      expect(receipt.status).toBe('success');
      const token = chain.tokens[network].USDC;
      // As of the deposit's block: the payouts that follow the completion empty the address soon after.
      expect(await balanceOf(chain, token, opened.depositAddress, receipt.blockNumber)).toBe(25_000_000n);
      expect(tx.grossAmount).toBe('25.000000');
      const credits = await creditsOf(ctx, id);
      expect(credits).toEqual([
        { network, hash: tx.depositTransactionHash, logIndex: expect.any(Number), amount: 25_000_000n, state: 'credited' },
      ]);
      const [row] = await ctx.db.sql`select deposit_transaction_hash from transactions where payment_id = ${id}`;
      expect(row!.deposit_transaction_hash).toBe(tx.depositTransactionHash);
    });
  }

  it('does not complete on a forged success callback with a valid signature and no transfer', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const forged = sandboxEvent(
      { id, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress: depositAddress },
      'payment.succeeded',
      { destinationAmount: '25.000000' },
    );
    const res = await postCallback(ctx.app, forged, { secret: ctx.config.providers.sandbox.callbackSecret });
    expect(res.statusCode).toBe(200);
    await waitForStatus(ctx, id, 'processing');
    await runsAtRest(ctx.temporal, [id]);
    expect((await sessionRow(ctx, id)).status).toBe('processing');
    const [tx] = await ctx.db.sql`select count(*)::int as n from transactions where payment_id = ${id}`;
    expect(tx!.n).toBe(0);
  });

  it('does not complete when less than G arrives', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    expect(g).toBe(25_000_000n);
    const { depositAddress } = await sessionRow(ctx, id);
    const receipt = await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g - 1n);
    // The watcher has confirmed the transfer's block and handed it to the run, and the run has done with it.
    await watcherPast(ctx, 'polygon', receipt.blockNumber, { confirmed: true });
    await runsAtRest(ctx.temporal, [id]);
    expect((await creditsOf(ctx, id)).map((c) => c.hash)).toEqual([receipt.transactionHash]);
    expect((await sessionRow(ctx, id)).status).toBe('pending');
  });

  it('completes an over-delivery with gross = credited and records the excess as overpaid', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g + 3_500_000n);
    await waitForStatus(ctx, id, 'completed');
    const [tx] = await ctx.db.sql`select gross_micro from transactions where payment_id = ${id}`;
    expect(BigInt(tx!.gross_micro as string)).toBe(g + 3_500_000n);
    const exceptions = await exceptionsOf(ctx, id);
    expect(exceptions).toMatchObject([{ kind: 'overpaid', amount: 3_500_000n, status: 'open' }]);
    expect(exceptions[0]!.references.expectedMicro).toBe(g.toString());
  });

  it('credits one log to one payment only, even when it is offered to another', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const first = await openSession(ctx, m.apiKey);
    const second = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, first);
    await pressPay(ctx, second);
    const { depositAddress } = await sessionRow(ctx, first);
    const receipt = await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g);
    await waitForStatus(ctx, first, 'completed');
    const [credit] = await creditsOf(ctx, first);
    // The same log, as a confused or malicious watcher might send it to the other session.
    await ctx.temporal.workflow.getHandle(second).signal(depositSignal, {
      kind: 'credited',
      network: 'polygon',
      transactionHash: receipt.transactionHash,
      logIndex: credit!.logIndex,
      asset: 'USDC',
      token: chain.tokens.polygon.USDC,
      from: receipt.from,
      to: depositAddress,
      amountMicro: g.toString(),
      blockNumber: receipt.blockNumber.toString(),
      blockHash: receipt.blockHash,
    });
    await runsAtRest(ctx.temporal, [second]);
    expect((await sessionRow(ctx, second)).status).toBe('pending');
    expect(await creditsOf(ctx, second)).toEqual([]);
    expect(formatCrypto((await creditsOf(ctx, first))[0]!.amount)).toBe(formatCrypto(g));
  });
});
