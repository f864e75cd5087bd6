import { ApplicationFailure } from '@temporalio/activity';
import type { Address, LocalAccount } from 'viem';
import { createChainClient, type ChainClient } from '../chains/clients';
import { settlementKeys, type SettlementKeys } from '../chains/derivation';
import type { ChainSettings } from '../config';
import type { DatabaseOrTransaction } from '../db/client';
import { findDepositAddresses } from '../db/queries/deposit-addresses';
import type { PayoutRow } from '../db/queries/payouts';
import { isSettlementPayout } from '../domain/ledger';

// What the payout activities need of the chains: each configured network's client, and the key
// that signs for a payout's sender (the treasury, or the deposit address by its index in Postgres).

export interface PayoutChains {
  client(network: string): ChainClient;
  treasury(): Address;
  /** `deposit`: a deposit address's index already read (a settlement's plan reads it), so not read again. */
  signerOf(db: DatabaseOrTransaction, payout: PayoutRow, deposit?: { address: string; index: number } | null): Promise<LocalAccount>;
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
    async signerOf(db, payout, deposit) {
      const k = keysOf();
      // The treasury sends the gas, a completed payment's refund (its deposit address was emptied by the
      // payout), all of batched settlement (sweeps through the sweeper, payouts of balances) and every
      // other call of the sweeper (a refund it forwards from a deposit).
      if (payout.kind === 'gas' || payout.kind === 'payment_refund' || isSettlementPayout(payout) || payout.callData) {
        if (payout.kind !== 'gas' && payout.fromAddress !== k.treasury.address)
          throw payoutImpossible(`${payout.fromAddress} is not the treasury`);
        return k.treasury;
      }
      const index =
        deposit?.address === payout.fromAddress
          ? deposit.index
          : (await findDepositAddresses(db, [payout.fromAddress]))[0]?.derivationIndex;
      if (index === undefined) throw payoutImpossible(`${payout.fromAddress} is not one of our deposit addresses`);
      const account = k.depositAccount(index);
      // The stored index must still derive the stored address (a changed mnemonic would sign for another).
      if (account.address !== payout.fromAddress) throw payoutImpossible(`deposit index ${index} does not derive ${payout.fromAddress}`);
      return account;
    },
  };
}
