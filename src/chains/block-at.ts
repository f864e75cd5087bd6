import type { PublicClient } from 'viem';

/**
 * The first block mined at or after `at` (by the blocks' own timestamps), or the head when none is:
 * a binary search, about log2(head) block reads. Where a watcher with no cursor starts reading, so
 * that the transfers to payments opened before it ever ran are read too.
 */
export async function firstBlockSince(client: Pick<PublicClient, 'getBlock' | 'getBlockNumber'>, at: Date): Promise<bigint> {
  const target = BigInt(Math.floor(at.getTime() / 1000));
  const timestampOf = async (blockNumber: bigint) => (await client.getBlock({ blockNumber })).timestamp;
  let high = await client.getBlockNumber({ cacheTime: 0 });
  if ((await timestampOf(high)) < target) return high;
  let low = 0n;
  // Invariant: block `high` was mined at or after `at`; every block below `low` before it.
  while (low < high) {
    const middle = (low + high) / 2n;
    if ((await timestampOf(middle)) >= target) high = middle;
    else low = middle + 1n;
  }
  return high;
}
