import { describe, expect, it } from 'vitest';
import { gasLimitFor } from '../../src/chains/payouts';
import { inWords, revertReason } from '../../src/chains/reverts';
import { ZERO_ADDRESS } from '../../src/domain/evm-address';
import { DEV_CHAIN_ID } from '../../tools/dev/dev-chain';
import { createChainClient } from '../../src/chains/clients';
import { clientFor, mint, newPayer, randomAddress, sharedChain } from '../support/chain';

// A refund's plan estimates its transfer's gas: a revert there is a reason no retry can fix (the
// token refuses the transfer), an unreachable node is not. The real token on the run's anvil.
const chain = sharedChain();

describe('revertReason', () => {
  it('names the revert of a gas estimate the token refuses, and nothing else', async () => {
    const client = clientFor(chain, 'polygon');
    const token = chain.tokens.polygon.USDC;
    const holder = await newPayer(chain);
    await mint(chain, token, holder.address, 5_000_000n);
    // The same transfer to a customer estimates; to the zero address, or beyond the balance, it reverts.
    expect(await gasLimitFor(client, holder.address, { token, to: randomAddress(), amount: 5_000_000n })).toBeGreaterThan(21_000n);
    for (const [order, words] of [
      [{ token, to: ZERO_ADDRESS, amount: 5_000_000n }, 'the token refuses a transfer to the zero address'],
      [{ token, to: randomAddress(), amount: 5_000_001n }, 'the sender holds less of the token than the transfer sends'],
    ] as const) {
      const err = await gasLimitFor(client, holder.address, order).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).not.toBeNull();
      expect(revertReason(err)).toBe(words);
    }
    // A node that does not answer is a reason a retry may get past.
    const down = createChainClient({
      network: 'polygon',
      rpcUrl: 'http://127.0.0.1:9',
      chainId: DEV_CHAIN_ID,
      confirmations: 1,
      tokens: chain.tokens.polygon,
    });
    const unreachable = await gasLimitFor(down, holder.address, { token, to: ZERO_ADDRESS, amount: 1n }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(unreachable).not.toBeNull();
    expect(revertReason(unreachable)).toBeNull();
    expect(revertReason(new Error('execution reverted'))).toBeNull();
  });
});

describe('a custom error in words', () => {
  it("names our contracts' and the tokens' errors, keeps any other message, and never shows a bare selector", () => {
    expect(inWords('Execution reverted with reason: custom error 0x30cd7471.')).toMatch(/sweeper is owned by another address/);
    expect(inWords('execution reverted: custom error 0xf4d678b8')).toBe('the sender holds less of the token than the transfer sends');
    expect(inWords('execution reverted: custom error 0x523c3aaa:000000…')).toBe(
      'the token refused the transfer out of the deposit address',
    );
    expect(inWords('execution reverted: paused')).toBe('execution reverted: paused');
    expect(inWords('custom error 0xdeadbeef')).toMatch(/^the contract refused the call with an error this service does not know/);
  });
});
