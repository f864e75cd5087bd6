import { ApplicationFailure } from '@temporalio/activity';
import type { Address, LocalAccount } from 'viem';
import { createChainClient, type ChainClient } from '../chains/clients';
import { settlementKeys, type SettlementKeys } from '../chains/derivation';
import type { ChainSettings } from '../config';
import type { PayoutRow } from '../db/queries/payouts';

// What the payout activities need of the chains: each configured network's client, and the key that
// signs every payout: the treasury's. A deposit address never sends anything itself: the treasury
// has the network's sweeper move its money (docs/settlement.md).

export interface PayoutChains {
  client(network: string): ChainClient;
  treasury(): Address;
  /** The treasury, for a payout it sends; refused for any other sender. */
  signerOf(payout: PayoutRow): LocalAccount;
}

export const payoutImpossible = (message: string) => ApplicationFailure.nonRetryable(message, 'PayoutImpossible');

export function payoutChains(settings: ChainSettings): PayoutChains {
  const clients = new Map<string, ChainClient>();
  let keys: SettlementKeys | null = null;
  const keysOf = () => {
    if (!settings.settlementMnemonic) throw payoutImpossible('SETTLEMENT_MNEMONIC is not configured');
    keys ??= settlementKeys(settings.settlementMnemonic);
    return keys;
  };
  return {
    client(network) {
      const existing = clients.get(network);
      if (existing) return existing;
      const endpoint = settings.networks.find((n) => n.network === network);
      if (!endpoint) throw payoutImpossible(`network ${network} has no RPC configured`);
      const client = createChainClient(endpoint);
      clients.set(network, client);
      return client;
    },
    treasury: () => keysOf().treasury.address,
    signerOf(payout) {
      const { treasury } = keysOf();
      if (payout.fromAddress !== treasury.address) throw payoutImpossible(`${payout.fromAddress} is not the treasury`);
      return treasury;
    },
  };
}
