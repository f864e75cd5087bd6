import { describe, expect, it } from 'vitest';
import { parseMicro } from '../../src/chains/amounts';
import { assertChainId, ChainMismatchError, createChainClient } from '../../src/chains/clients';
import { DEV_MINTER_ADDRESS } from '../../tools/dev/dev-accounts';
import { testTokenAbi } from '../../tools/dev/test-token-artifact';
import { readTransfers } from '../../src/chains/transfer-logs';
import { EVM_NETWORKS } from '../../src/domain/assets';
import { DEV_CHAIN_ID } from '../../tools/dev/dev-chain';
import { balanceOf, clientFor, mint, newPayer, pay, randomAddress, sharedChain } from '../support/chain';

// Against the run's dev chain (global setup deployed the tokens). Every test uses fresh addresses,
// so other files minting and paying on the same chain at the same time cannot change its answers.
describe('test tokens on the dev chain', () => {
  const chain = sharedChain();

  it('deploys a distinct USDC and USDT contract per EVM network, 6 decimals, minter = the dev minter', async () => {
    const all = EVM_NETWORKS.flatMap((n) => [chain.tokens[n].USDC, chain.tokens[n].USDT]);
    expect(new Set(all.map((a) => a.toLowerCase())).size).toBe(8);
    const token = chain.tokens.base.USDT;
    const read = <F extends 'decimals' | 'symbol' | 'minter' | 'name'>(functionName: F) =>
      chain.publicClient.readContract({ address: token, abi: testTokenAbi, functionName });
    expect(await read('decimals')).toBe(6);
    expect(await read('symbol')).toBe('USDT');
    expect(await read('name')).toBe('Tether USD (base, dev)');
    expect(await read('minter')).toBe(DEV_MINTER_ADDRESS);
  });

  it('mints, transfers, and reads the Transfer log back with the exact micro amount', async () => {
    const payer = await newPayer(chain);
    const deposit = randomAddress();
    const token = chain.tokens.polygon.USDC;
    await mint(chain, token, payer.address, parseMicro('100'));
    const receipt = await pay(chain, payer, token, deposit, parseMicro('24.75'));
    expect(receipt.status).toBe('success');
    expect(await balanceOf(chain, token, deposit)).toBe(24_750_000n);
    expect(await balanceOf(chain, token, payer.address)).toBe(75_250_000n);

    const client = clientFor(chain, 'polygon');
    const transfers = await readTransfers(client.publicClient, {
      network: 'polygon',
      tokens: client.tokens,
      recipients: [deposit],
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    });
    expect(transfers).toEqual([
      expect.objectContaining({
        network: 'polygon',
        asset: 'USDC',
        token,
        transactionHash: receipt.transactionHash,
        blockHash: receipt.blockHash,
        from: payer.address,
        to: deposit,
        amount: 24_750_000n,
      }),
    ]);
  });

  it('refuses a mint from anyone but the minter', async () => {
    const stranger = await newPayer(chain);
    await expect(
      chain.publicClient.simulateContract({
        account: stranger,
        address: chain.tokens.ethereum.USDC,
        abi: testTokenAbi,
        functionName: 'mint',
        args: [stranger.address, 1n],
      }),
    ).rejects.toThrow(/NotMinter/);
  });

  it("names only its own network's tokens: on the shared dev chain, base's USDC is a contract polygon does not configure", async () => {
    const payer = await newPayer(chain);
    const deposit = randomAddress();
    await mint(chain, chain.tokens.base.USDC, payer.address, 5_000_000n);
    const receipt = await pay(chain, payer, chain.tokens.base.USDC, deposit, 5_000_000n);
    const range = { recipients: [deposit], fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber };
    const polygon = clientFor(chain, 'polygon');
    const base = clientFor(chain, 'base');
    // Every contract's transfers to the address are read (a wrong asset must be seen to be owned).
    expect(await readTransfers(polygon.publicClient, { network: 'polygon', tokens: polygon.tokens, ...range })).toEqual([
      expect.objectContaining({ network: 'polygon', asset: null, token: chain.tokens.base.USDC, amount: 5_000_000n }),
    ]);
    expect(await readTransfers(base.publicClient, { network: 'base', tokens: base.tokens, ...range })).toEqual([
      expect.objectContaining({ network: 'base', asset: 'USDC', token: chain.tokens.base.USDC, amount: 5_000_000n }),
    ]);
  });

  it('checks that the RPC answers the configured chain id', async () => {
    const endpoint = { network: 'base' as const, rpcUrl: chain.rpcUrl, confirmations: 1, tokens: chain.tokens.base };
    await expect(assertChainId(createChainClient({ ...endpoint, chainId: DEV_CHAIN_ID }))).resolves.toBeUndefined();
    await expect(assertChainId(createChainClient({ ...endpoint, chainId: 8453 }))).rejects.toThrow(ChainMismatchError);
  });
});
