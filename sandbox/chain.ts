import { randomBytes, randomInt } from 'node:crypto';
import { encodeFunctionData, getAddress } from 'viem';
import { parseEvmAddress } from '../src/domain/evm-address';
import { createChainClient, type ChainEndpoint } from '../src/chains/clients';
import { DEV_MINTER_ADDRESS, nodeAccountSender } from '../tools/dev/dev-accounts';
import { testTokenAbi } from '../tools/dev/test-token-artifact';
import { mintTestTokens } from '../tools/dev/test-tokens';
import { isEvmNetwork, type Asset, type Network } from '../src/domain/assets';
import { parseCrypto } from '../src/domain/money';

// On-chain delivery of the stablecoin the customer bought. On a network the sandbox has a chain for
// (the dev chain's test tokens), it is a real ERC-20 transfer from the sandbox's own account, as a
// real on-ramp pays from its hot wallet, so the service can verify it on chain. Elsewhere (solana,
// tron, or no chain configured) it stays simulated: a hash shaped like the network's own.

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function transactionHashFor(network: Network): string {
  switch (network) {
    case 'solana': {
      // A Solana signature is 64 bytes, written in base58 (up to 88 characters).
      let out = '';
      for (let i = 0; i < 88; i++) out += BASE58[randomInt(BASE58.length)];
      return out;
    }
    case 'tron':
      return randomBytes(32).toString('hex');
    default:
      return `0x${randomBytes(32).toString('hex')}`;
  }
}

export const explorerUrlFor = (publicUrl: string, hash: string) => `${publicUrl}/explorer/tx/${hash}`;

/** Sends `amount` (a 6-decimal string) of `asset` to `to`; resolves with the transaction hash once mined. */
export type Deliver = (input: { network: Network; asset: Asset; to: string; amount: string }) => Promise<string>;

/** What `address` holds of `asset`; null where the sandbox has no chain for it (nothing there can be watched). */
export type Holdings = (input: { network: Network; asset: Asset; address: string }) => Promise<bigint | null>;

/** The sandbox's hands on the chains it has: delivering what it sold, and reading what arrived at its deposit addresses. */
export function createSandboxChains(networks: readonly ChainEndpoint[]): { deliver: Deliver; holdings: Holdings } {
  const clients = new Map(networks.map((n) => [n.network, createChainClient(n)]));
  const senders = new Map(networks.map((n) => [n.network, nodeAccountSender(n.rpcUrl, DEV_MINTER_ADDRESS, n.chainId)]));
  const tokenOf = (network: Network, asset: Asset) => {
    const client = isEvmNetwork(network) ? clients.get(network) : undefined;
    const token = client?.tokens.find((t) => t.asset === asset);
    return client && token ? { client, token } : null;
  };
  const holdings: Holdings = async ({ network, asset, address }) => {
    const found = tokenOf(network, asset);
    if (!found) return null;
    return found.client.publicClient.readContract({
      address: found.token.address,
      abi: testTokenAbi,
      functionName: 'balanceOf',
      args: [getAddress(address)],
    });
  };
  const deliver: Deliver = async ({ network, asset, to, amount }) => {
    const found = tokenOf(network, asset);
    if (!found) return transactionHashFor(network);
    const { client, token } = found;
    // The wallet was checked for its shape when the payment was opened; its case is not ours to judge.
    const recipient = parseEvmAddress(to) ?? getAddress(to.toLowerCase());
    const micro = parseCrypto(amount);
    // The sandbox's account is the dev chain's minter: it mints what it is about to send, so it never
    // runs dry, and the customer's transfer is a plain Transfer from it to the wallet.
    const sender = senders.get(client.network)!;
    await mintTestTokens({ minter: sender, token: token.address, to: DEV_MINTER_ADDRESS, amount: micro });
    const data = encodeFunctionData({ abi: testTokenAbi, functionName: 'transfer', args: [recipient, micro] });
    const receipt = await sender.execute({ to: token.address, data });
    if (receipt.status !== 'success') throw new Error(`delivery of ${amount} ${asset} to ${to} on ${network} reverted`);
    return receipt.transactionHash;
  };
  return { deliver, holdings };
}
