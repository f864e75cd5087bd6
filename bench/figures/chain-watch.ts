import { randomBytes } from 'node:crypto';
import { custom, getAddress, http, parseAbiItem, toHex, type Address } from 'viem';
import { createSandboxChains } from '../../sandbox/chain';
import { createChainClient } from '../../src/chains/clients';
import { TransferWatcher } from '../../src/chains/watcher';
import type { BenchOptions } from '../options';
import { figureFrom, type Figure } from '../support/figures';
import type { Stack } from '../support/stack';
import { interleaved } from '../support/stats';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const BLOCKS = 50n;

/**
 * The watcher core (src/chains/watcher.ts) scanning the same 50 blocks with 10 to 100,000 open deposit
 * addresses (a few of them paid inside the range), held as the worker holds them (one set kept between scans), counting its JSON-RPC calls (eth_getLogs apart),
 * its time per scan and per open address, and the heap it holds; the floor is one eth_getLogs of both
 * tokens' Transfer events over the same range, filtered in memory, with the head already known.
 */
export async function chainWatchFigures(input: { options: BenchOptions; stack: Stack; log: (line: string) => void }): Promise<Figure[]> {
  const { stack, options } = input;
  const tokens = stack.tokens.polygon;
  const endpoint = { network: 'polygon' as const, rpcUrl: stack.rpcUrl, chainId: 31337, confirmations: 1, tokens };
  let calls = 0;
  let getLogs = 0;
  const inner = http(stack.rpcUrl, { batch: true })({});
  // Counts what reaches the node: a batch of N calls counts N (what a hosted RPC bills).
  const transport = custom({
    request: ({ method, params }: { method: string; params?: unknown }) => {
      calls++;
      if (method === 'eth_getLogs') getLogs++;
      return inner.request({ method, params } as never);
    },
  });
  const client = createChainClient(endpoint, { transport });
  const { deliver } = createSandboxChains([endpoint]);
  const figures: Figure[] = [];
  // The range needs its blocks: a fresh anvil (this group run alone) holds only the tokens' deployments.
  await inner.request({ method: 'anvil_mine', params: [toHex(BLOCKS)] } as never);
  for (const size of options.watchSizes) {
    // Random addresses (a key pair each would cost minutes at 100,000): nobody can pay them but the bench.
    const addresses: Address[] = Array.from({ length: size }, () => getAddress(`0x${randomBytes(20).toString('hex')}`));
    for (const to of addresses.slice(0, 3)) await deliver({ network: 'polygon', asset: 'USDC', to, amount: '1.000000' });
    const head = await client.publicClient.getBlockNumber({ cacheTime: 0 });
    const from = head - BLOCKS + 1n;
    const watched = new Set(addresses.map((a) => a.toLowerCase()));
    // The set held between scans, as the worker's chain-watch.ts holds it (read whole every minute,
    // added to from the rows changed since between): a scan folds nothing into a set of its own.
    const watcher = new TransferWatcher({ client, addresses: () => watched });
    // One measured read: its time (per scan and per open address), its calls, the heap after it.
    const measured = async (read: () => Promise<number>, what: string) => {
      const before = { calls, getLogs };
      const t0 = performance.now();
      const found = await read();
      const ms = performance.now() - t0;
      if (found < 3) throw new Error(`chain watch: ${what} missed a paid address`);
      return {
        ms,
        usPerOpen: (ms * 1000) / size,
        calls: calls - before.calls,
        getLogs: getLogs - before.getLogs,
        heapMiB: process.memoryUsage().heapUsed / 2 ** 20,
      };
    };
    const scan = () =>
      measured(async () => {
        const result = await watcher.scan({ confirmedThrough: from - 1n, pending: [] });
        return result.confirmed.length + result.unconfirmed.length;
      }, 'the watcher');
    const floor = () =>
      measured(async () => {
        const logs = await client.publicClient.getLogs({
          address: [tokens.USDC, tokens.USDT],
          event: TRANSFER,
          fromBlock: from,
          toBlock: head,
        });
        return logs.filter((l) => watched.has((l.args.to ?? '').toLowerCase())).length;
      }, 'the floor');
    await scan();
    await floor();
    const rounds = await interleaved(options.watchScans, scan, floor);
    const includes = `One scan of ${BLOCKS} blocks (both test tokens, 3 paid addresses) with ${size} open deposit addresses, the watcher core against anvil; per open payment: divide by ${size}.`;
    const baselineIs = "one eth_getLogs of both tokens' Transfer events over the same range, filtered in memory (the floor).";
    const parts = [
      { key: 'ms', id: 'ms', title: 'scan ms', unit: 'ms', more: '' },
      {
        key: 'usPerOpen',
        id: 'us_per_open',
        title: 'scan µs per open address',
        unit: 'µs',
        more: " The scan's time divided by the open addresses.",
      },
      {
        key: 'calls',
        id: 'rpc_calls',
        title: 'RPC calls/scan',
        unit: 'calls',
        more: ' Every JSON-RPC call that reaches the node (ours: eth_blockNumber for the head, then the logs; the floor is given the head).',
      },
      {
        key: 'getLogs',
        id: 'get_logs',
        title: 'eth_getLogs/scan',
        unit: 'calls',
        more: ' The eth_getLogs calls alone: one per scan at any number of open addresses.',
      },
      {
        key: 'heapMiB',
        id: 'heap_mib',
        title: 'heap in use after a scan',
        unit: 'MiB',
        more: ` The bench process's V8 heap in use right after the scan: the ${size} open addresses (held by the caller as one set, as chain-watch.ts holds them between scans), what the scan allocated and garbage not yet collected; the same process and addresses for the floor.`,
      },
    ];
    for (const part of parts) {
      figures.push(
        figureFrom(rounds, part.key, {
          id: `chain_watch_${part.id}_${size}`,
          title: `chain-watch ${part.title} (${size} open)`,
          unit: part.unit,
          better: 'lower',
          includes: `${includes}${part.more}`,
          baselineIs,
        }),
      );
    }
    const [ms, us, rpc, logs, heap] = figures.slice(-5);
    input.log(
      `chain watch ${size}: ${ms!.ours.toFixed(1)} ms (${us!.ours.toFixed(2)} µs per open), ${rpc!.ours} calls, ${logs!.ours} eth_getLogs, heap ${heap!.ours.toFixed(0)} MiB vs floor ${ms!.baseline.toFixed(1)} ms`,
    );
  }
  return figures;
}
