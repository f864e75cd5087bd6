import { custom, http, parseAbiItem, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
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
 * The watcher core (src/chains/watcher.ts) scanning the same 50 blocks with 10, 100 and 1,000 open
 * deposit addresses (a few of them paid inside the range), counting its JSON-RPC calls; the floor is
 * one eth_getLogs of both tokens' Transfer events over the same range, filtered in memory.
 */
export async function chainWatchFigures(input: { options: BenchOptions; stack: Stack; log: (line: string) => void }): Promise<Figure[]> {
  const { stack, options } = input;
  const tokens = stack.tokens.polygon;
  const endpoint = { network: 'polygon' as const, rpcUrl: stack.rpcUrl, chainId: 31337, confirmations: 1, tokens };
  let calls = 0;
  const inner = http(stack.rpcUrl, { batch: true })({});
  // Counts what reaches the node: a batch of N calls counts N (what a hosted RPC bills).
  const transport = custom({
    request: ({ method, params }: { method: string; params?: unknown }) => {
      calls++;
      return inner.request({ method, params } as never);
    },
  });
  const client = createChainClient(endpoint, { transport });
  const { deliver } = createSandboxChains([endpoint]);
  const figures: Figure[] = [];
  for (const size of options.watchSizes) {
    const addresses: Address[] = Array.from({ length: size }, () => privateKeyToAccount(generatePrivateKey()).address);
    for (const to of addresses.slice(0, 3)) await deliver({ network: 'polygon', asset: 'USDC', to, amount: '1.000000' });
    const head = await client.publicClient.getBlockNumber({ cacheTime: 0 });
    const from = head - BLOCKS + 1n;
    const watcher = new TransferWatcher({ client, addresses: () => addresses });
    const watched = new Set(addresses.map((a) => a.toLowerCase()));
    const scan = async () => {
      const before = calls;
      const t0 = performance.now();
      const result = await watcher.scan({ confirmedThrough: from - 1n, pending: [] });
      if (result.confirmed.length + result.unconfirmed.length < 3) throw new Error('chain watch: the watcher missed a paid address');
      return { ms: performance.now() - t0, calls: calls - before };
    };
    const floor = async () => {
      const before = calls;
      const t0 = performance.now();
      const logs = await client.publicClient.getLogs({
        address: [tokens.USDC, tokens.USDT],
        event: TRANSFER,
        fromBlock: from,
        toBlock: head,
      });
      const mine = logs.filter((l) => watched.has((l.args.to ?? '').toLowerCase()));
      if (mine.length < 3) throw new Error('chain watch: the floor missed a paid address');
      return { ms: performance.now() - t0, calls: calls - before };
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
      figureFrom(rounds, 'calls', {
        id: `chain_watch_rpc_calls_${size}`,
        title: `chain-watch RPC calls/scan (${size} open)`,
        unit: 'calls',
        better: 'lower',
        includes,
        baselineIs,
      }),
    );
    input.log(
      `chain watch ${size}: ${figures.at(-2)!.ours.toFixed(1)} ms, ${figures.at(-1)!.ours} calls vs floor ${figures.at(-2)!.baseline.toFixed(1)} ms`,
    );
  }
  return figures;
}
