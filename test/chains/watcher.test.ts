import { createWalletClient, custom, encodeFunctionData, http, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devChain } from '../../tools/dev/dev-accounts';
import { testTokenAbi } from '../../tools/dev/test-token-artifact';
import { cursorFromJson, cursorToJson, TransferWatcher, type WatchCursor } from '../../src/chains/watcher';
import { clientFor, mint, newPayer, pay, privateChain, randomAddress, type TestChain } from '../support/chain';

// On a private anvil: these tests mine, rewind and replace blocks, which must not reach the files
// sharing the run's chain.
describe('TransferWatcher', () => {
  let chain: TestChain & { stop(): Promise<void> };
  beforeAll(async () => {
    chain = await privateChain();
  });
  afterAll(() => chain?.stop());

  it('counts confirmations as blocks are mined and reports a transfer confirmed exactly once', async () => {
    const client = clientFor(chain, 'arbitrum', 3);
    const deposit = randomAddress();
    const watcher = new TransferWatcher({ client, addresses: () => [deposit] });
    let cursor = await watcher.startCursor();
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.arbitrum.USDC, payer.address, 10_000_000n);
    const receipt = await pay(chain, payer, chain.tokens.arbitrum.USDC, deposit, 10_000_000n);

    let scan = await watcher.scan(cursor);
    expect(scan.seen).toEqual([
      expect.objectContaining({ transactionHash: receipt.transactionHash, amount: 10_000_000n, confirmations: 1n }),
    ]);
    expect(scan.confirmed).toEqual([]);
    cursor = scan.cursor;

    // Scanning again with nothing new reports nothing new.
    scan = await watcher.scan(cursor);
    expect([scan.seen, scan.confirmed, scan.removed]).toEqual([[], [], []]);

    await chain.control.mine({ blocks: 1 });
    scan = await watcher.scan(scan.cursor);
    expect(scan.confirmed).toEqual([]);
    expect(scan.unconfirmed).toEqual([expect.objectContaining({ transactionHash: receipt.transactionHash, confirmations: 2n })]);

    await chain.control.mine({ blocks: 1 });
    scan = await watcher.scan(scan.cursor);
    expect(scan.confirmed).toEqual([
      expect.objectContaining({ transactionHash: receipt.transactionHash, asset: 'USDC', confirmations: 3n }),
    ]);
    expect(scan.cursor.pending).toEqual([]);
    expect(scan.unconfirmed).toEqual([]);
    expect(scan.cursor.confirmedThrough).toBe(receipt.blockNumber);

    await chain.control.mine({ blocks: 5 });
    scan = await watcher.scan(scan.cursor);
    expect([scan.seen, scan.confirmed, scan.removed]).toEqual([[], [], []]);
  });

  it("uses the caller's set of lowercase addresses as it is, and keeps watching a pending transfer's address the caller dropped", async () => {
    const client = clientFor(chain, 'arbitrum', 2);
    const deposit = randomAddress();
    // Held by the caller between scans (as the worker's chain-watch.ts does), never copied or changed by a scan.
    const watched = new Set([deposit.toLowerCase()]);
    const watcher = new TransferWatcher({ client, addresses: () => watched });
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.arbitrum.USDC, payer.address, 5_000_000n);
    const cursor = await watcher.startCursor();
    const receipt = await pay(chain, payer, chain.tokens.arbitrum.USDC, deposit, 5_000_000n);
    let scan = await watcher.scan(cursor);
    expect(scan.seen).toEqual([expect.objectContaining({ transactionHash: receipt.transactionHash, to: expect.any(String) })]);
    // The payment closed before its transfer confirmed: the caller no longer lists the address.
    watched.delete(deposit.toLowerCase());
    await chain.control.mine({ blocks: 1 });
    scan = await watcher.scan(scan.cursor);
    expect(scan.confirmed).toEqual([expect.objectContaining({ transactionHash: receipt.transactionHash, amount: 5_000_000n })]);
    expect([...watched]).toEqual([]);
  });

  it('reads transfers to any number of addresses in one eth_getLogs per scan', async () => {
    const calls: string[] = [];
    const inner = http(chain.rpcUrl)({});
    const counting = custom({
      request: ({ method, params }: { method: string; params?: unknown }) => {
        calls.push(method);
        return inner.request({ method, params } as never);
      },
    });
    const client = clientFor(chain, 'ethereum', 1, counting);
    const deposits = Array.from({ length: 25 }, randomAddress);
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.ethereum.USDT, payer.address, 1_000_000_000n);
    const watcher = new TransferWatcher({ client, addresses: () => deposits, limits: { addressesPerCall: 10, blocksPerCall: 2000n } });
    const cursor = await watcher.startCursor();
    const paid = [deposits[0]!, deposits[9]!, deposits[10]!, deposits[24]!];
    for (const [i, to] of paid.entries()) await pay(chain, payer, chain.tokens.ethereum.USDT, to, BigInt(i + 1) * 1_000_000n);
    // A transfer to an address nobody watches is not ours.
    await pay(chain, payer, chain.tokens.ethereum.USDT, randomAddress(), 7n);
    // A contract this network does not configure, at a watched address: still seen.
    const unlisted = chain.tokens.polygon.USDC;
    await mint(chain, unlisted, payer.address, 1_000_000n);
    await pay(chain, payer, unlisted, deposits[17]!, 5n);

    calls.length = 0;
    const scan = await watcher.scan(cursor);
    expect(scan.confirmed.map((t) => [t.to, t.amount, t.asset])).toEqual([
      ...paid.map((to, i) => [to, BigInt(i + 1) * 1_000_000n, 'USDT']),
      [deposits[17], 5n, null],
    ]);
    expect(scan.confirmed.at(-1)?.token).toBe(unlisted);
    // 25 addresses, more than a topic list holds here (10): one eth_getLogs of every Transfer log of
    // the span, kept in memory when the recipient is watched (not one per 10 addresses).
    expect(calls.filter((m) => m === 'eth_getLogs')).toHaveLength(1);
    expect(calls.filter((m) => m !== 'eth_blockNumber' && m !== 'eth_getLogs')).toEqual([]);

    // Ten or fewer: one eth_getLogs with the recipients as its topic list.
    const few = new TransferWatcher({ client, addresses: () => paid, limits: { addressesPerCall: 10, blocksPerCall: 2000n } });
    calls.length = 0;
    const again = await few.scan(cursor);
    expect(again.confirmed.map((t) => t.to)).toEqual(paid);
    expect(calls.filter((m) => m === 'eth_getLogs')).toHaveLength(1);
  });

  it('reads the head before the addresses, so a payment opened and paid between the two reads is not passed over', async () => {
    // The node answers the head late (a loaded node, a slow network); meanwhile the set is read, and
    // a payment is opened and paid right after. Read at once, the head would include the transfer's
    // block while the set lacked its address, and the cursor would pass the transfer for good.
    const inner = http(chain.rpcUrl)({});
    let slowHead = false;
    const transport = custom({
      request: async ({ method, params }: { method: string; params?: unknown }) => {
        if (method === 'eth_blockNumber' && slowHead) await new Promise((r) => setTimeout(r, 1500));
        return inner.request({ method, params } as never);
      },
    });
    const client = clientFor(chain, 'base', 1, transport);
    const deposit = randomAddress();
    const watched = new Set<string>();
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.base.USDC, payer.address, 3_000_000n);
    let paid: Promise<{ transactionHash: Hex }> | null = null;
    let opened!: () => void;
    const openedNow = new Promise<void>((resolve) => (opened = resolve));
    const watcher = new TransferWatcher({
      client,
      addresses: () => {
        const now = new Set(watched);
        if (!paid) {
          // Opened after this read, and paid at once.
          watched.add(deposit.toLowerCase());
          paid = pay(chain, payer, chain.tokens.base.USDC, deposit, 3_000_000n);
          opened();
        }
        return now;
      },
    });
    let cursor = await watcher.startCursor();
    slowHead = true;
    const first = watcher.scan(cursor);
    await openedNow;
    const receipt = await paid!;
    cursor = (await first).cursor;
    slowHead = false;
    const second = await watcher.scan(cursor);
    expect([...(await first).confirmed, ...second.confirmed].map((t) => t.transactionHash)).toEqual([receipt.transactionHash]);
  });

  it('reads the previous range again, so a log the node answered late is reported once, a scan late', async () => {
    // The node answers the head before it answers the newest block's logs (anvil under load did):
    // the scan that reaches the transfer's block gets no log for it, and the next one must find it.
    const inner = http(chain.rpcUrl)({});
    let hideNewest = false;
    const transport = custom({
      request: async ({ method, params }: { method: string; params?: unknown }) => {
        const answer: unknown = await inner.request({ method, params } as never);
        if (method !== 'eth_getLogs' || !hideNewest) return answer;
        hideNewest = false;
        const logs = answer as { blockNumber: Hex }[];
        const newest = logs.reduce((n, l) => (BigInt(l.blockNumber) > n ? BigInt(l.blockNumber) : n), 0n);
        return logs.filter((l) => BigInt(l.blockNumber) !== newest);
      },
    });
    const client = clientFor(chain, 'base', 1, transport);
    const deposit = randomAddress();
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.base.USDC, payer.address, 2_000_000n);
    const watcher = new TransferWatcher({ client, addresses: () => [deposit] });
    let cursor = await watcher.startCursor();
    const receipt = await pay(chain, payer, chain.tokens.base.USDC, deposit, 2_000_000n);
    hideNewest = true;
    const first = await watcher.scan(cursor);
    expect(first.confirmed).toEqual([]);
    expect(first.cursor.confirmedThrough).toBeGreaterThanOrEqual(receipt.blockNumber);
    cursor = first.cursor;
    // A process taking the network over (the cursor as Postgres keeps it) reads the range again too.
    const takenOver = new TransferWatcher({ client, addresses: () => [deposit] });
    const elsewhere = await takenOver.scan(cursorFromJson(JSON.parse(JSON.stringify(cursorToJson(cursor)))));
    expect(elsewhere.confirmed.map((t) => t.transactionHash)).toEqual([receipt.transactionHash]);
    const second = await watcher.scan(cursor);
    expect(second.confirmed.map((t) => t.transactionHash)).toEqual([receipt.transactionHash]);
    // Read a third time no more, and reported no more.
    const third = await watcher.scan(second.cursor);
    expect(third.confirmed).toEqual([]);
  });

  it('reports a transfer whose block is reorganised away before confirmation as removed, and finds it again when re-mined', async () => {
    const client = clientFor(chain, 'polygon', 3);
    const deposit = randomAddress();
    const watcher = new TransferWatcher({ client, addresses: () => [deposit] });
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.polygon.USDC, payer.address, 50_000_000n);
    let cursor: WatchCursor = await watcher.startCursor();
    const snapshot = await chain.control.snapshot();

    // The customer's signed transaction, kept so that it can be mined again after the reorg.
    const wallet = createWalletClient({ account: payer, chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) });
    const request = await wallet.prepareTransactionRequest({
      to: chain.tokens.polygon.USDC,
      data: encodeTransfer(deposit, 50_000_000n),
      gas: 100_000n,
    });
    const signed = await wallet.signTransaction(request);
    const hash = await wallet.sendRawTransaction({ serializedTransaction: signed });
    const first = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });

    let scan = await watcher.scan(cursor);
    expect(scan.seen).toEqual([expect.objectContaining({ transactionHash: hash, blockHash: first.blockHash, confirmations: 1n })]);
    cursor = scan.cursor;

    // The block leaves the canonical chain: another chain of the same height and more takes its place.
    await chain.control.revert({ id: snapshot });
    await chain.control.mine({ blocks: 2 });
    scan = await watcher.scan(cursor);
    expect(scan.removed).toEqual([expect.objectContaining({ transactionHash: hash, blockHash: first.blockHash })]);
    expect(scan.confirmed).toEqual([]);
    expect(scan.cursor.pending).toEqual([]);
    cursor = scan.cursor;

    // The same transaction is mined again, in another block.
    await chain.publicClient.request({ method: 'eth_sendRawTransaction', params: [signed] });
    const again = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(again.blockHash).not.toBe(first.blockHash);
    scan = await watcher.scan(cursor);
    expect(scan.removed).toEqual([]);
    expect(scan.seen).toEqual([expect.objectContaining({ transactionHash: hash, blockHash: again.blockHash, amount: 50_000_000n })]);

    await chain.control.mine({ blocks: 2 });
    scan = await watcher.scan(scan.cursor);
    expect(scan.confirmed).toEqual([expect.objectContaining({ transactionHash: hash, blockHash: again.blockHash, confirmations: 3n })]);
  });

  it('reports a transfer removed when the chain is replaced by a shorter one', async () => {
    const client = clientFor(chain, 'arbitrum', 4);
    const deposit = randomAddress();
    const watcher = new TransferWatcher({ client, addresses: () => [deposit] });
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.arbitrum.USDT, payer.address, 9n);
    const start = await watcher.startCursor();
    const snapshot = await chain.control.snapshot();
    const receipt = await pay(chain, payer, chain.tokens.arbitrum.USDT, deposit, 9n);
    let scan = await watcher.scan(start);
    expect(scan.seen).toHaveLength(1);
    await chain.control.revert({ id: snapshot });
    scan = await watcher.scan(scan.cursor);
    expect(scan.head).toBeLessThan(receipt.blockNumber);
    expect(scan.removed).toEqual([expect.objectContaining({ transactionHash: receipt.transactionHash })]);
    expect(scan.cursor.pending).toEqual([]);
  });

  it('reports a transfer that appears in a replacement block below the cursor', async () => {
    const client = clientFor(chain, 'base', 5);
    const deposit = randomAddress();
    const watcher = new TransferWatcher({ client, addresses: () => [deposit] });
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.base.USDC, payer.address, 3_000_000n);
    const start = await watcher.startCursor();
    const snapshot = await chain.control.snapshot();
    await chain.control.mine({ blocks: 2 });
    let scan = await watcher.scan(start);
    expect(scan.seen).toEqual([]);
    const cursor = scan.cursor;
    // The scanned empty blocks are replaced by blocks carrying a payment.
    await chain.control.revert({ id: snapshot });
    const receipt = await pay(chain, payer, chain.tokens.base.USDC, deposit, 3_000_000n);
    await chain.control.mine({ blocks: 1 });
    scan = await watcher.scan(cursor);
    expect(scan.seen).toEqual([expect.objectContaining({ transactionHash: receipt.transactionHash, amount: 3_000_000n })]);
  });

  it('keeps its cursor serialisable for the caller to store', async () => {
    const client = clientFor(chain, 'polygon', 3);
    const deposit = randomAddress();
    const watcher = new TransferWatcher({ client, addresses: () => [deposit] });
    const cursor = await watcher.startCursor();
    const payer = await newPayer(chain);
    await mint(chain, chain.tokens.polygon.USDT, payer.address, 2n);
    await pay(chain, payer, chain.tokens.polygon.USDT, deposit, 2n);
    const scan = await watcher.scan(cursor);
    const restored = cursorFromJson(JSON.parse(JSON.stringify(cursorToJson(scan.cursor))));
    expect(restored).toEqual(scan.cursor);
    // A restored cursor behaves as the original: the pending transfer is not seen twice.
    const next = await watcher.scan(restored);
    expect(next.seen).toEqual([]);
    expect(next.cursor.pending).toHaveLength(1);
  });
});

function encodeTransfer(to: `0x${string}`, amount: bigint): Hex {
  return encodeFunctionData({ abi: testTokenAbi, functionName: 'transfer', args: [to, amount] });
}
