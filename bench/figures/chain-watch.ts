import { randomBytes } from 'node:crypto';
import { custom, getAddress, http, parseAbiItem, toHex, type Address } from 'viem';
import { createDelivery } from '../../sandbox/chain';
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
 * addresses (a few of them paid inside the range), counting its JSON-RPC calls (eth_getLogs apart),
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
  const deliver = createDelivery([endpoint]);
  const figures: Figure[] = [];
  // The range needs its blocks: a fresh anvil (this group run alone) holds only the tokens' deployments.
  await inner.request({ method: 'anvil_mine', params: [toHex(BLOCKS)] } as never);
  for (const size of options.watchSizes) {
    // Random addresses (a key pair each would cost minutes at 100,000): nobody can pay them but the bench.
    const addresses: Address[] = Array.from({ length: size }, () => getAddress(`0x${randomBytes(20).toString('hex')}`));
    for (const to of addresses.slice(0, 3)) await deliver({ network: 'polygon', asset: 'USDC', to, amount: '1.000000' });
    const head = await client.publicClient.getBlockNumber({ cacheTime: 0 });
    const from = head - BLOCKS + 1n;
    const watcher = new TransferWatcher({ client, addresses: () => addresses });
    const watched = new Set(addresses.map((a) => a.toLowerCase()));
    const heapMiB = () => process.memoryUsage().heapUsed / 2 ** 20;
    const scan = async () => {
      const before = { calls, getLogs };
      const t0 = performance.now();
      const result = await watcher.scan({ confirmedThrough: from - 1n, pending: [] });
      const ms = performance.now() - t0;
      if (result.confirmed.length + result.unconfirmed.length < 3) throw new Error('chain watch: the watcher missed a paid address');
      return {
        ms,
        usPerOpen: (ms * 1000) / size,
        calls: calls - before.calls,
        getLogs: getLogs - before.getLogs,
        heapMiB: heapMiB(),
      };
    };
    const floor = async () => {
      const before = { calls, getLogs };
      const t0 = performance.now();
      const logs = await client.publicClient.getLogs({
        address: [tokens.USDC, tokens.USDT],
        event: TRANSFER,
        fromBlock: from,
        toBlock: head,
      });
      const mine = logs.filter((l) => watched.has((l.args.to ?? '').toLowerCase()));
      const ms = performance.now() - t0;
      if (mine.length < 3) throw new Error('chain watch: the floor missed a paid address');
      return {
        ms,
        usPerOpen: (ms * 1000) / size,
        calls: calls - before.calls,
        getLogs: getLogs - before.getLogs,
        heapMiB: heapMiB(),
      };
    };
    await scan();
    await floor();
    const rounds = await interleaved(options.watchScans, scan, floor);
    const includes = `One scan of ${BLOCKS} blocks (both test tokens, 3 paid addresses) with ${size} open deposit addresses, the watcher core against anvil; per open payment: divide by ${size}.`;
    const baselineIs = "one eth_getLogs of both tokens' Transfer events over the same range, filtered in memory (the floor).";
    figures.push(
      figureFrom(rounds, 'ms', {
        id: `chain_watch_ms_${size}`,
        title: `chain-watch scan ms (${size} open)`,
        unit: 'ms',
        better: 'lower',
        includes,
        baselineIs,
      }),
    );
    figures.push(
      figureFrom(rounds, 'usPerOpen', {
        id: `chain_watch_us_per_open_${size}`,
        title: `chain-watch scan µs per open address (${size} open)`,
        unit: 'µs',
        better: 'lower',
        includes: `${includes} The scan's time divided by the open addresses.`,
        baselineIs,
      }),
    );
    figures.push(
      figureFrom(rounds, 'calls', {
        id: `chain_watch_rpc_calls_${size}`,
        title: `chain-watch RPC calls/scan (${size} open)`,
        unit: 'calls',
        better: 'lower',
        includes: `${includes} Every JSON-RPC call that reaches the node (ours: eth_blockNumber for the head, then the logs; the floor is given the head).`,
        baselineIs,
      }),
    );
    figures.push(
      figureFrom(rounds, 'getLogs', {
        id: `chain_watch_get_logs_${size}`,
        title: `chain-watch eth_getLogs/scan (${size} open)`,
        unit: 'calls',
        better: 'lower',
        includes: `${includes} The eth_getLogs calls alone: one per scan at any number of open addresses (issue 32).`,
        baselineIs,
      }),
    );
    figures.push(
      figureFrom(rounds, 'heapMiB', {
        id: `chain_watch_heap_mib_${size}`,
        title: `chain-watch heap in use after a scan (${size} open)`,
        unit: 'MiB',
        better: 'lower',
        includes: `${includes} The bench process's V8 heap in use right after the scan: the ${size} open addresses (held by the caller, as chain-watch.ts holds what it read), what the scan allocated and garbage not yet collected; the same process and addresses for the floor.`,
        baselineIs,
      }),
    );
    const [ms, us, rpc, logs, heap] = figures.slice(-5);
    input.log(
      `chain watch ${size}: ${ms!.ours.toFixed(1)} ms (${us!.ours.toFixed(2)} µs per open), ${rpc!.ours} calls, ${logs!.ours} eth_getLogs, heap ${heap!.ours.toFixed(0)} MiB vs floor ${ms!.baseline.toFixed(1)} ms`,
    );
  }
  return figures;
}
