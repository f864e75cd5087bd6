import type { Address } from 'viem';
import { z } from 'zod';
import { EVM_NETWORKS, type EvmNetwork } from '../domain/assets';
import { isEvmAddress } from '../domain/evm-address';
import { isValidMnemonic } from '../domain/mnemonic';
import { booleanFlag, httpUrl, issuesOf, port, type Issue } from './parse';

// The chains: each network's node, tokens and sweeper, the treasury's keys, and how proof, payouts,
// settlement runs and the watchers after a payment behave on them.

export const chainVariables = {
  // The platform's keys (treasury, deposit addresses). Never logged.
  SETTLEMENT_MNEMONIC: z
    .string()
    .transform((v) => v.normalize('NFKD').trim().split(/\s+/).join(' '))
    .refine(isValidMnemonic, { message: 'must be a BIP-39 English mnemonic (12 to 24 words, valid checksum)' })
    .optional(),
  // Only `npm start` reads it (its local anvil); listed so that it is documented and checked like the rest.
  CHAIN_DEV_PORT: port.default(8545),
  ALLOW_UNVERIFIED_NETWORKS: booleanFlag.default(false),
  PROVIDER_PROOF_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(3600),
  // How long a payout the chain refuses is retried before it fails
  // for an operator (activities/payout-failures.ts says why a minute). At least 5 s: a node's lagging
  // view passes within seconds.
  PAYOUT_REFUSAL_WINDOW_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
  // Money reaches merchants in settlement runs (docs/settlement.md): completions credit balances,
  // deposits are swept by the network's sweeper, one payout per merchant and asset. A run per
  // network this often: it sweeps, then pays what is available.
  PAYOUT_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
  // Deposits one sweep transaction takes at most: its gas grows with each, and a block has a limit.
  SWEEP_BATCH_SIZE: z.coerce.number().int().min(1).max(200).default(50),
  // How long a completed payment's share stays pending before it can be paid out: a
  // window for chargebacks of the fiat leg or disputes. 0: available at completion. At most 90 days.
  PAYOUT_HOLD_SECONDS: z.coerce.number().int().min(0).max(7_776_000).default(0),
  // How long the deposit address of an ended session stays watched, so money that
  // still arrives becomes a late (or duplicate) exception. 7 days: longer than a slow bank transfer
  // behind an on-ramp or a customer's retry from their wallet history.
  LATE_DEPOSIT_WATCH_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 365)
    .default(168),
  // How long after it was credited a log (and after it was confirmed a payout) is
  // re-checked against the chain, for a reorg deeper than the confirmations. By time, not blocks, so
  // one value fits every network. 24 hours: far past the deepest reorgs seen on the supported
  // networks (minutes on Polygon, Ethereum final after about 13 minutes) and past the hours an L2's
  // batch may wait for L1 before it is final; each pass reads at most a few hundred receipts per
  // network in batched requests. 0 turns the re-check off.
  REORG_WATCH_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 30)
    .default(24),
  // Below this (micro units of the token that arrived) a transfer to an ended
  // payment, or of a token other than the payment's, is recorded and nothing more. 10,000 = 0.01 of a
  // 6-decimal stablecoin: less than any supported network charges in gas to send it back, and the
  // size of the address-poisoning transfers anyone can send to any address for free.
  DUST_THRESHOLD_MICRO: z.coerce.bigint().min(0n).default(10_000n),
};

// Each EVM network is configured on its own through CHAIN_<NETWORK>_*; one without an RPC URL has no
// chain verifier. Token addresses must carry their EIP-55 checksum: a mistyped contract address would
// make the watcher wait for transfers that can never come.
const evmAddress = z.string().refine(isEvmAddress, { message: 'must be an EIP-55 checksummed address' });

export const chainSchema = z.object({
  RPC_URL: httpUrl.optional(),
  CHAIN_ID: z.coerce.number().int().min(1).optional(),
  USDC: evmAddress.optional(),
  USDT: evmAddress.optional(),
  // The network's deposit sweeper (contracts/DepositSweeper.sol, docs/settlement.md): every deposit
  // address is one of its forwarders, and only it moves their money. Required with RPC_URL.
  SWEEPER: evmAddress.optional(),
  CONFIRMATIONS: z.coerce.number().int().min(1).max(10_000).optional(),
});
const CHAIN_SUFFIXES = Object.keys(chainSchema.shape);
export const chainPrefix = (network: EvmNetwork) => `CHAIN_${network.toUpperCase()}_`;

/** Chain ids of the public networks; the dev chain (anvil) is 31337 and needs one confirmation. */
export const MAINNET_CHAIN_IDS: Readonly<Record<EvmNetwork, number>> = { ethereum: 1, polygon: 137, base: 8453, arbitrum: 42161 };
const DEFAULT_CONFIRMATIONS: Readonly<Record<EvmNetwork, number>> = { ethereum: 12, polygon: 30, base: 10, arbitrum: 10 };
export const DEV_CHAIN_ID = 31337;

export interface ChainSettings {
  /** Only the networks with an RPC URL: each has a chain verifier. */
  networks: ChainNetworkConfig[];
  settlementMnemonic: string | null;
  devPort: number;
  allowUnverifiedNetworks: boolean;
  providerProofTimeoutSeconds: number;
  /** PAYOUT_REFUSAL_WINDOW_SECONDS: a refused payout fails once its activity has been retried this long (and 5 times). */
  payoutRefusalWindowSeconds: number;
  lateDepositWatchHours: number;
  /** REORG_WATCH_HOURS: credits and payouts re-checked this long after confirmation (0: never). */
  reorgWatchHours: number;
  /** DUST_THRESHOLD_MICRO (zero-value transfers are dust whatever it says). */
  dustThresholdMicro: bigint;
  settlement: SettlementSettings;
}

export interface SettlementSettings {
  /** PAYOUT_INTERVAL_SECONDS: a settlement run per network this often. */
  intervalSeconds: number;
  /** SWEEP_BATCH_SIZE: deposits per sweep transaction. */
  sweepBatchSize: number;
  /** PAYOUT_HOLD_SECONDS: a completed payment's share is pending this long. */
  holdSeconds: number;
}

export interface ChainNetworkConfig {
  network: EvmNetwork;
  rpcUrl: string;
  chainId: number;
  confirmations: number;
  tokens: { USDC: Address | null; USDT: Address | null };
  /** CHAIN_<NETWORK>_SWEEPER: the factory and owner-only mover of this network's deposit forwarders. */
  sweeper: Address;
  /**
   * Where this network's transaction pages are (`<base>/<hash>`) when it is not the
   * public explorer: on the local dev chain (chain id 31337) the sandbox's own page, or null (no
   * explorer) without the sandbox. Unset: the network's public explorer.
   */
  explorerTxBase?: string | null;
}

/** Every configured token contract, on every network (money sent to one is lost). */
export const tokenContractsOf = (chains: Pick<ChainSettings, 'networks'>): Address[] =>
  chains.networks.flatMap((n) => [n.tokens.USDC, n.tokens.USDT]).filter((t): t is Address => t !== null);

/** The per-network variables of every EVM network, CHAIN_<NETWORK>_<SUFFIX>. */
export const chainNetworkVariables = EVM_NETWORKS.flatMap((n) => CHAIN_SUFFIXES.map((suffix) => chainPrefix(n) + suffix));

export function parseChainNetworks(env: Record<string, string | undefined>): { networks: ChainNetworkConfig[]; issues: Issue[] } {
  const networks: ChainNetworkConfig[] = [];
  const issues: Issue[] = [];
  for (const network of EVM_NETWORKS) {
    const prefix = chainPrefix(network);
    const own = Object.fromEntries(CHAIN_SUFFIXES.map((suffix) => [suffix, env[prefix + suffix]]));
    const parsed = chainSchema.safeParse(own);
    if (!parsed.success) {
      issues.push(...issuesOf(parsed.error.issues, prefix));
      continue;
    }
    const c = parsed.data;
    if (!c.RPC_URL) continue;
    if (!c.USDC && !c.USDT) {
      issues.push({ variable: `${prefix}RPC_URL`, message: `is set, but neither ${prefix}USDC nor ${prefix}USDT is` });
      continue;
    }
    if (!c.SWEEPER) {
      issues.push({
        variable: `${prefix}SWEEPER`,
        message: `is required with ${prefix}RPC_URL: the deposit sweeper the treasury owns; \`npm run ops -- deploy-sweeper --network ${network}\` deploys it and prints the address (docs/settlement.md)`,
      });
      continue;
    }
    const chainId = c.CHAIN_ID ?? MAINNET_CHAIN_IDS[network];
    networks.push({
      network,
      rpcUrl: c.RPC_URL,
      chainId,
      confirmations: c.CONFIRMATIONS ?? (chainId === DEV_CHAIN_ID ? 1 : DEFAULT_CONFIRMATIONS[network]),
      tokens: { USDC: c.USDC ?? null, USDT: c.USDT ?? null },
      sweeper: c.SWEEPER,
    });
  }
  return { networks, issues };
}

/**
 * The chain settings; a network on the local dev chain shows its transactions on the sandbox's
 * explorer page (`sandboxExplorer`), or on none without the sandbox.
 */
export function chainSettingsOf(
  e: z.output<z.ZodObject<typeof chainVariables>>,
  networks: ChainNetworkConfig[],
  sandboxExplorer: string | null,
): ChainSettings {
  return {
    networks: networks.map((n) => (n.chainId === DEV_CHAIN_ID ? { ...n, explorerTxBase: sandboxExplorer } : n)),
    settlementMnemonic: e.SETTLEMENT_MNEMONIC ?? null,
    devPort: e.CHAIN_DEV_PORT,
    allowUnverifiedNetworks: e.ALLOW_UNVERIFIED_NETWORKS,
    providerProofTimeoutSeconds: e.PROVIDER_PROOF_TIMEOUT_SECONDS,
    payoutRefusalWindowSeconds: e.PAYOUT_REFUSAL_WINDOW_SECONDS,
    lateDepositWatchHours: e.LATE_DEPOSIT_WATCH_HOURS,
    reorgWatchHours: e.REORG_WATCH_HOURS,
    dustThresholdMicro: e.DUST_THRESHOLD_MICRO,
    settlement: {
      intervalSeconds: e.PAYOUT_INTERVAL_SECONDS,
      sweepBatchSize: e.SWEEP_BATCH_SIZE,
      holdSeconds: e.PAYOUT_HOLD_SECONDS,
    },
  };
}
