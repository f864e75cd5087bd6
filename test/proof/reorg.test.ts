import { createWalletClient, encodeFunctionData, http as viemHttp } from 'viem';
import { describe, expect, it } from 'vitest';
import { devChain } from '../../tools/dev/dev-accounts';
import { testTokenAbi } from '../../tools/dev/test-token-artifact';
import { mint, newPayer, usePrivateChain, type TestChain } from '../support/chain';
import { useTestApp } from '../support/harness';
import { runsAtRest, watcherPast } from '../support/at-rest';
import { eventually } from '../support/http';
import { creditsOf, merchantOnEveryNetwork, openSession, pressPay, sessionRow, waitForStatus } from './support';

// A reorganisation before confirmation, on a private anvil (it rewinds the chain) with 3
// confirmations: the transfer's first block leaves the chain and credits nothing; mined again and
// confirmed, it completes the session once.
const overrides: Record<string, string> = {};
let chain: TestChain;
usePrivateChain(overrides, 3, (started) => (chain = started));
const ctx = useTestApp(overrides, { listen: true, sandbox: true, worker: true });

const cursorText = () =>
  ctx.db.sql`select cursor from chain_cursors where network = 'polygon'`.then((r) => (r[0]?.cursor as string | undefined) ?? '');

describe('a reorg before confirmation', () => {
  it('credits nothing for the orphaned block, then completes once when the transfer is mined again and confirmed', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.polygon.USDC, payer.address, g);
    const snapshot = await chain.control.snapshot();

    const wallet = createWalletClient({ account: payer, chain: devChain(chain.rpcUrl), transport: viemHttp(chain.rpcUrl) });
    const data = encodeFunctionData({ abi: testTokenAbi, functionName: 'transfer', args: [depositAddress, g] });
    const signed = await wallet.signTransaction(
      await wallet.prepareTransactionRequest({ to: chain.tokens.polygon.USDC, data, gas: 100_000n }),
    );
    const hash = await wallet.sendRawTransaction({ serializedTransaction: signed });
    const first = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    // The watcher has read it (1 of 3 confirmations): it sits in the stored cursor, uncredited.
    await eventually(cursorText, (c) => c.includes(hash), 10_000, 'the watcher to see the transfer');
    expect(await creditsOf(ctx, id)).toEqual([]);

    // Another chain of greater height replaces the block.
    await chain.control.revert({ id: snapshot });
    await chain.control.mine({ blocks: 4 });
    await eventually(cursorText, (c) => !c.includes(hash), 10_000, 'the watcher to drop the orphaned transfer');
    // Every block of the new chain read and, but for the last two, confirmed: what the watcher had to say, it said.
    const head = await chain.publicClient.getBlockNumber();
    await watcherPast(ctx, 'polygon', head - 2n, { confirmed: true });
    await runsAtRest(ctx.temporal, [id]);
    expect(await creditsOf(ctx, id)).toEqual([]);
    expect((await sessionRow(ctx, id)).status).toBe('pending');

    // The same signed transaction is mined again, in another block, and confirmed.
    await chain.publicClient.request({ method: 'eth_sendRawTransaction', params: [signed] });
    const again = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(again.blockHash).not.toBe(first.blockHash);
    // Read by the watcher (1 of 3 confirmations), so nothing handed to the run yet.
    await watcherPast(ctx, 'polygon', again.blockNumber);
    await eventually(cursorText, (c) => c.includes(hash), 10_000, 'the watcher to see the transfer again');
    await runsAtRest(ctx.temporal, [id]);
    expect((await sessionRow(ctx, id)).status).toBe('pending');
    await chain.control.mine({ blocks: 2 });
    await waitForStatus(ctx, id, 'completed');
    const credits = await creditsOf(ctx, id);
    expect(credits).toEqual([{ network: 'polygon', hash, logIndex: again.logs[0]!.logIndex, amount: g, state: 'credited' }]);
    const [block] = await ctx.db.sql`select block_hash from chain_credits where payment_id = ${id}`;
    expect(block!.block_hash).toBe(again.blockHash.toLowerCase());
  }, 90_000);
});
