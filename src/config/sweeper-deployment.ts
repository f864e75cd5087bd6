import type { Address } from 'viem';
import type { EvmNetwork } from '../domain/assets';
import { chainPrefix, chainSchema, chainVariables, DEV_CHAIN_ID, MAINNET_CHAIN_IDS } from './chains';
import { ConfigError, issuesOf, presentOf, type Issue } from './parse';
import { DEVELOPMENT_VALUES } from './production';

/** What `npm run ops -- deploy-sweeper` needs of one network: no database, no service, no admin token. */
export interface SweeperDeploymentConfig {
  network: EvmNetwork;
  rpcUrl: string;
  chainId: number;
  /** Its treasury owns the sweeper and pays for the deployment. Never printed. */
  settlementMnemonic: string;
  /** CHAIN_<NETWORK>_SWEEPER when set: the sweeper an earlier run deployed, checked rather than replaced. */
  sweeper: Address | null;
}

/**
 * The operator's sweeper deployment reads the variables the service will read, through the same
 * schemas, so that what it checks and prints is what the service then accepts.
 */
export function loadSweeperDeploymentConfig(env: Record<string, string | undefined>, network: EvmNetwork): SweeperDeploymentConfig {
  const present = presentOf(env);
  const prefix = chainPrefix(network);
  const mnemonic = chainVariables.SETTLEMENT_MNEMONIC.safeParse(present.SETTLEMENT_MNEMONIC);
  const chain = chainSchema
    .pick({ RPC_URL: true, CHAIN_ID: true, SWEEPER: true })
    .safeParse({ RPC_URL: present[`${prefix}RPC_URL`], CHAIN_ID: present[`${prefix}CHAIN_ID`], SWEEPER: present[`${prefix}SWEEPER`] });
  const issues: Issue[] = [
    ...(mnemonic.success ? [] : mnemonic.error.issues.map((i) => ({ variable: 'SETTLEMENT_MNEMONIC', message: i.message }))),
    ...(mnemonic.success && mnemonic.data === undefined
      ? [{ variable: 'SETTLEMENT_MNEMONIC', message: 'is required: its treasury owns the sweeper and pays for the deployment' }]
      : []),
    ...(chain.success ? [] : issuesOf(chain.error.issues, prefix)),
    ...(chain.success && chain.data.RPC_URL === undefined
      ? [{ variable: `${prefix}RPC_URL`, message: `is required: the ${network} node the deployment is sent through` }]
      : []),
  ];
  if (!mnemonic.success || !mnemonic.data || !chain.success || !chain.data.RPC_URL) throw new ConfigError(issues);
  const chainId = chain.data.CHAIN_ID ?? MAINNET_CHAIN_IDS[network];
  // The published phrase's treasury key is public: anyone could sweep the deposits of a sweeper it
  // owns. The dev chain is the only place it belongs.
  if (DEVELOPMENT_VALUES.SETTLEMENT_MNEMONIC!.includes(mnemonic.data) && chainId !== DEV_CHAIN_ID) {
    throw new ConfigError([
      {
        variable: 'SETTLEMENT_MNEMONIC',
        message: `is the published development phrase, whose keys anyone can use; it owns sweepers on the dev chain (${prefix}CHAIN_ID=${DEV_CHAIN_ID}) only`,
      },
    ]);
  }
  return { network, rpcUrl: chain.data.RPC_URL, chainId, settlementMnemonic: mnemonic.data, sweeper: chain.data.SWEEPER ?? null };
}
