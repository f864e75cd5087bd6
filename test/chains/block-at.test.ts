import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstBlockSince } from '../../src/chains/block-at';

/** A chain whose block n was mined at timestamps[n] (seconds, never decreasing), counting its reads. */
function chainOf(timestamps: readonly number[]) {
  const reads = { blocks: 0 };
  const client = {
    getBlockNumber: async () => BigInt(timestamps.length - 1),
    getBlock: async ({ blockNumber }: { blockNumber: bigint }) => {
      reads.blocks++;
      return { timestamp: BigInt(timestamps[Number(blockNumber)]!) };
    },
  };
  return { client: client as unknown as Parameters<typeof firstBlockSince>[0], reads };
}

describe('firstBlockSince', () => {
  it('answers the first block mined at or after the time, or the head when none was', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 0, max: 1600 }),
        async (gaps, at) => {
          // Anvil mines several blocks in one second: equal timestamps are allowed.
          const timestamps = gaps.reduce<number[]>((all, gap) => [...all, (all.at(-1) ?? 0) + gap], []);
          const { client, reads } = chainOf(timestamps);
          const found = Number(await firstBlockSince(client, new Date(at * 1000)));
          const first = timestamps.findIndex((t) => t >= at);
          expect(found).toBe(first === -1 ? timestamps.length - 1 : first);
          expect(reads.blocks).toBeLessThanOrEqual(Math.ceil(Math.log2(timestamps.length)) + 2);
        },
      ),
    );
  });
});
