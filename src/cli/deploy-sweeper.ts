import { BaseError, formatEther, formatGwei, WaitForTransactionReceiptTimeoutError, type Address } from 'viem';
import { assertChainId, ChainMismatchError, createChainClient } from '../chains/clients';
import { settlementKeys } from '../chains/derivation';
import { isOwnedBy, planSweeperDeployment, sendSweeperDeployment, sweeperAt, type SweeperAt } from '../chains/sweeper-deployment';
import { ConfigError, loadSweeperDeploymentConfig } from '../config';
import type { EvmNetwork } from '../domain/assets';
import { SettingsError, type Env } from './settings';

// `npm run ops -- deploy-sweeper --network <network>`: the one ops command that needs no running
// service. A network's sweeper must exist before the service will take payments on it, so there is
// no admin API to ask yet; and deploying it takes the treasury key, which the service holds and the
// admin API never hands out. It reads the variables the service will read (config.ts), signs locally
// with the treasury of SETTLEMENT_MNEMONIC, and prints the line the service then needs.
// Never printed: the mnemonic, any key, and the RPC URL beyond its host (providers put API keys in
// the path).

export interface DeploySweeperOptions {
  network: EvmNetwork;
  env: Env;
  print: (line: string) => void;
}

/** How long to wait for the receipt: an Ethereum block in a busy hour, many times over. */
const RECEIPT_TIMEOUT_MS = 300_000;
const FIX = 'unset it to deploy a new sweeper (deposit addresses belong to the sweeper they were made under)';

/** The chain said no (no gas, a configured address that is not our sweeper, a failed deployment): exit 1. */
export class DeployRefused extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeployRefused';
  }
}

const NATIVE_COIN: Readonly<Record<EvmNetwork, string>> = { ethereum: 'ETH', polygon: 'POL', base: 'ETH', arbitrum: 'ETH' };

export async function deploySweeper(options: DeploySweeperOptions): Promise<void> {
  const { network, print } = options;
  const variable = `CHAIN_${network.toUpperCase()}_SWEEPER`;
  let config;
  try {
    config = loadSweeperDeploymentConfig(options.env, network);
  } catch (err) {
    if (err instanceof ConfigError) throw new SettingsError(err.issues.map((i) => `${i.variable} ${i.message}`).join('; '));
    throw err;
  }
  const host = new URL(config.rpcUrl).host;
  const client = createChainClient({
    network,
    rpcUrl: config.rpcUrl,
    chainId: config.chainId,
    confirmations: 1,
    tokens: { USDC: null, USDT: null },
  });
  const rpc = rpcCaller(network, host);
  try {
    await rpc(() => assertChainId(client));
  } catch (err) {
    if (err instanceof ChainMismatchError)
      throw new SettingsError(
        `${err.message} (CHAIN_${network.toUpperCase()}_RPC_URL, or CHAIN_${network.toUpperCase()}_CHAIN_ID for another chain)`,
      );
    throw err;
  }
  const treasury = settlementKeys(config.settlementMnemonic).treasury;
  const where = `${network} (chain ${config.chainId})`;
  const coin = (wei: bigint, round: 'up' | 'down') => `${amount(wei, round)} ${NATIVE_COIN[network]}`;

  if (config.sweeper) {
    const at = await rpc(() => sweeperAt(client.publicClient, config.sweeper!));
    if (!isOwnedBy(at, treasury.address)) throw new DeployRefused(`${variable}=${config.sweeper} ${notOurs(at, treasury.address)}; ${FIX}`);
    print(`${config.sweeper} is already the deposit sweeper on ${where}, owned by the treasury ${treasury.address}; nothing deployed`);
    print(`${variable}=${config.sweeper}`);
    return;
  }

  const [balance, plan] = await Promise.all([
    rpc(() => client.publicClient.getBalance({ address: treasury.address })),
    rpc(() => planSweeperDeployment(client.publicClient, treasury.address)),
  ]);
  const cost = `${coin(plan.maxCost, 'up')} (${plan.gas.toLocaleString('en-US')} gas at up to ${gwei(plan.maxFeePerGas)} gwei)`;
  if (balance < plan.maxCost) {
    throw new DeployRefused(
      `the treasury ${treasury.address} holds ${coin(balance, 'down')} on ${where}; deploying the sweeper needs up to about ${cost}: send it native coin for gas, then run this again`,
    );
  }
  print(`the treasury ${treasury.address} holds ${coin(balance, 'down')} on ${where}; the deployment costs up to ${cost}`);

  const hash = await rpc(() => sendSweeperDeployment(client, treasury, plan));
  print(`sent ${hash}; the sweeper will be at ${plan.address}`);
  const checkLater = `run this again with ${variable}=${plan.address} to check it`;
  let receipt;
  try {
    receipt = await rpc(() => client.publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS }));
  } catch (err) {
    if (!(err instanceof DeployRefused && err.cause instanceof WaitForTransactionReceiptTimeoutError)) throw err;
    throw new DeployRefused(
      `no receipt for ${hash} within ${RECEIPT_TIMEOUT_MS / 1000} s; once it is mined the sweeper is at ${plan.address}: ${checkLater}`,
    );
  }
  if (receipt.status !== 'success')
    throw new DeployRefused(`the deployment ${hash} reverted in block ${receipt.blockNumber}; nothing was deployed`);

  // A node behind a load balancer may answer from a peer a block behind the one that gave the receipt.
  let at: SweeperAt = { kind: 'no-code' };
  for (let attempt = 1; ; attempt++) {
    at = await rpc(() => sweeperAt(client.publicClient, plan.address));
    if (at.kind !== 'no-code' || attempt === 5) break;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  if (!isOwnedBy(at, treasury.address))
    throw new DeployRefused(`the deployment ${hash} was mined, but ${plan.address} ${notOurs(at, treasury.address)}; ${checkLater}`);
  print(`deployed in block ${receipt.blockNumber}; its owner() is the treasury`);
  print(`${variable}=${plan.address}`);
}

function notOurs(at: SweeperAt, treasury: Address): string {
  if (at.kind === 'no-code') return 'has no contract on this chain (a wrong address, another chain, or a deployment not mined yet)';
  if (at.kind === 'not-a-sweeper') return 'is a contract without owner(), not a deposit sweeper';
  return `is owned by ${at.owner}, not by the treasury ${treasury} of this SETTLEMENT_MNEMONIC (was it deployed under another mnemonic?)`;
}

/**
 * RPC failures as one line naming the node's host: viem's own messages carry the full URL (and with
 * it a provider's API key) and the request body.
 */
function rpcCaller(network: EvmNetwork, host: string) {
  return async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof BaseError)) throw err;
      const details = err.details && !err.details.includes(host) ? `: ${err.details}` : '';
      throw new DeployRefused(`the ${network} node at ${host}: ${err.shortMessage.replace(/\.$/, '')}${details}`, { cause: err });
    }
  };
}

const gwei = (wei: bigint) => Number(formatGwei(wei)).toLocaleString('en-US', { maximumSignificantDigits: 3 });

/** Wei to 6 decimals, enough to judge a balance against a cost: a cost rounded up, a balance down, so neither flatters. */
function amount(wei: bigint, round: 'up' | 'down'): string {
  const step = 10n ** 12n;
  return formatEther(((wei + (round === 'up' ? step - 1n : 0n)) / step) * step);
}
