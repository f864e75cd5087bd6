import { z } from 'zod';
import { parseEvmAddress } from '../src/domain/evm-address';
import { DEV_MINTER_ADDRESS, nodeAccountSender } from '../tools/dev/dev-accounts';
import { createChainClient, type ChainEndpoint } from '../src/chains/clients';
import { mintTestTokens } from '../tools/dev/test-tokens';
import { ASSETS, EVM_NETWORKS, type Asset, type EvmNetwork } from '../src/domain/assets';
import { AmountError, formatCrypto, parseCrypto } from '../src/domain/money';

// The dev faucet: mints the project's test tokens to any address, so that a developer
// or a test can pay a deposit address from a wallet of their own. It signs as the dev chain's minter,
// an account anvil itself holds, so it only works against the local chain, which is the point.

/** At most a million a mint: enough for any test, and a typo of extra zeros is refused. */
const MAX_MICRO = 1_000_000n * 1_000_000n;

export const faucetRequest = z
  .object({
    network: z.string().toLowerCase().pipe(z.enum(EVM_NETWORKS)),
    asset: z.string().toUpperCase().pipe(z.enum(ASSETS)),
    address: z
      .string()
      .transform(
        (v, ctx) =>
          parseEvmAddress(v) ??
          (ctx.addIssue({ code: 'custom', message: 'must be an EVM address (EIP-55 checksum when mixed case)' }), z.NEVER),
      ),
    amount: z.union([z.number(), z.string()]).transform((v, ctx) => {
      try {
        const micro = parseCrypto(String(v));
        if (micro > 0n && micro <= MAX_MICRO) return micro;
        ctx.addIssue({ code: 'custom', message: 'must be greater than 0 and at most 1000000' });
      } catch (err) {
        if (!(err instanceof AmountError)) throw err;
        ctx.addIssue({ code: 'custom', message: `must be a decimal amount with at most 6 decimals (${err.message})` });
      }
      return z.NEVER;
    }),
  })
  .strict();

export type FaucetRequest = z.infer<typeof faucetRequest>;

export interface Minted {
  network: EvmNetwork;
  asset: Asset;
  address: string;
  amount: string;
  token: string;
  transactionHash: string;
}

export class FaucetUnavailable extends Error {}

export function createFaucet(networks: readonly ChainEndpoint[]) {
  const clients = new Map(networks.map((n) => [n.network, createChainClient(n)]));
  const minters = new Map(networks.map((n) => [n.network, nodeAccountSender(n.rpcUrl, DEV_MINTER_ADDRESS, n.chainId)]));
  return {
    async mint(request: FaucetRequest): Promise<Minted> {
      const client = clients.get(request.network);
      const token = client?.tokens.find((t) => t.asset === request.asset);
      if (!client || !token) throw new FaucetUnavailable(`${request.asset} on ${request.network} is not configured on this sandbox`);
      const transactionHash = await mintTestTokens({
        minter: minters.get(request.network)!,
        token: token.address,
        to: request.address,
        amount: request.amount,
      });
      return {
        network: request.network,
        asset: request.asset,
        address: request.address,
        amount: formatCrypto(request.amount),
        token: token.address,
        transactionHash,
      };
    },
  };
}
