import { createWalletClient, encodeFunctionData, http, parseGwei, type Hash } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_MINTER_ADDRESS, devChain, nodeAccountSender, type NodeAccountSender } from '../../tools/dev/dev-accounts';
import { testTokenAbi } from '../../tools/dev/test-token-artifact';
import { balanceOf, privateChain, randomAddress, type TestChain } from '../support/chain';
import { eventually } from '../support/http';
import { startRpcTrapProxy } from '../support/rpc-trap-proxy';

// The dev minter is shared by every process that mints on the run's chain. A transaction of another
// sender that takes the nonce of one of ours while ours is pending, at a higher fee, replaces it: ours
// is never mined. The sender must not take the replacement's receipt for its own (the sandbox would
// report a delivery that never happened, and the payment it paid would wait forever), and must send
// its call again. On a private anvil with automine off, so the replacement is made on purpose.
let chain: TestChain & { stop(): Promise<void> };
beforeAll(async () => {
  chain = await privateChain();
});
afterAll(() => chain?.stop());

const nonceOf = (blockTag: 'pending' | 'latest') => chain.publicClient.getTransactionCount({ address: DEV_MINTER_ADDRESS, blockTag });

/**
 * With automine off: `sender` mints `amount` to a fresh address, and this resolves once the mint is
 * pending (its nonce, `mined`, the account's mined count before it), with the execution under way.
 */
async function pendingMint(sender: NodeAccountSender, amount: bigint) {
  const token = chain.tokens.polygon.USDC;
  const to = randomAddress();
  await chain.control.setAutomine(false);
  const mined = await nonceOf('latest');
  const executing = sender.execute({
    to: token,
    data: encodeFunctionData({ abi: testTokenAbi, functionName: 'mint', args: [to, amount] }),
  });
  await eventually(
    () => nonceOf('pending'),
    (n) => n === mined + 1,
    10_000,
    'the mint pending',
  );
  return { token, to, mined, executing };
}

describe('the node account sender', () => {
  it('sends a call again when another transaction replaced it, and resolves with its own receipt', async () => {
    const { token, to, mined, executing } = await pendingMint(chain.minter, 5_000_000n);

    // Another sender's transaction in the same nonce, at a higher fee: the pool keeps it, not ours.
    const other = createWalletClient({ chain: devChain(chain.rpcUrl), transport: http(chain.rpcUrl) });
    const replacement: Hash = await other.request({
      method: 'eth_sendTransaction',
      params: [
        {
          from: DEV_MINTER_ADDRESS,
          to: DEV_MINTER_ADDRESS,
          value: '0x0',
          nonce: `0x${mined.toString(16)}`,
          maxFeePerGas: `0x${parseGwei('500').toString(16)}`,
          maxPriorityFeePerGas: `0x${parseGwei('100').toString(16)}`,
        },
      ],
    });
    await chain.control.mine({ blocks: 1 });
    const replaced = await chain.publicClient.getTransactionReceipt({ hash: replacement });
    expect(replaced.status).toBe('success');
    expect(await nonceOf('latest')).toBe(mined + 1);
    expect(await balanceOf(chain, token, to)).toBe(0n);

    // The mint is sent again in the next nonce; mined at once from here on.
    await chain.control.setAutomine(true);
    const receipt = await executing;
    expect(receipt.transactionHash).not.toBe(replacement);
    expect(receipt.status).toBe('success');
    expect(await balanceOf(chain, token, to)).toBe(5_000_000n);
    expect(await nonceOf('latest')).toBe(mined + 2);
  });

  it('does not take a node it cannot reach for a replacement: the pending call is mined once', async () => {
    const proxy = await startRpcTrapProxy(chain.rpcUrl);
    try {
      const { token, to, mined, executing } = await pendingMint(nodeAccountSender(proxy.url, DEV_MINTER_ADDRESS), 7_000_000n);
      // The sender's node is away for much longer than a transaction may be unseen before it counts
      // as replaced (1 s; viem's own retries of each look take about 1 s more); every look fails
      // meanwhile, which says nothing about the transaction. Waited for in the sender's own looks:
      // its calls kept failing over three times that window.
      proxy.setDown(true);
      await eventually(
        async () => proxy.dropped(),
        (calls) => calls.length > 1 && calls.at(-1)! - calls[0]! >= 3_000,
        20_000,
        'the sender looking while its node is away',
      );
      await chain.control.mine({ blocks: 1 });
      proxy.setDown(false);
      await chain.control.setAutomine(true);

      const receipt = await executing;
      expect(receipt.status).toBe('success');
      expect(await balanceOf(chain, token, to)).toBe(7_000_000n);
      expect(await nonceOf('latest')).toBe(mined + 1);
    } finally {
      proxy.setDown(false);
      await chain.control.setAutomine(true);
      await proxy.close();
    }
  });
});
