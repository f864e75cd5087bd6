import type { Address } from 'viem';
import { gasTermsFor, maxCostOf, type GasTerms, type TransferOrder } from '../chains/payouts';
import type { Database } from '../db/client';
import { findSession } from '../db/queries/checkout-sessions';
import { insertPayoutsOnce, listPayouts, type NewPayout } from '../db/queries/payouts';
import { findTransaction } from '../db/queries/transactions';
import { newPayoutId } from '../domain/ids';
import { NATIVE_ASSET } from '../domain/ledger';
import { payoutImpossible, type PayoutChains } from './payout-chains';

/**
 * Decisions §11: a completed chain-verified session's payouts, written before anything is signed:
 * the merchant's net to its wallet, the commission to the treasury, and (when the deposit address
 * lacks it) the native coin for those two transfers' gas, from the treasury. Planned once: a retry
 * returns the rows already written. Returns their ids in sending order (gas first).
 */
export async function planSessionPayouts(db: Database, chains: PayoutChains, paymentId: string): Promise<string[]> {
  const planned = await listPayouts(db, paymentId);
  if (planned.length > 0) return planned.map((p) => p.id);
  const [session, tx] = await Promise.all([findSession(db, paymentId), findTransaction(db, paymentId)]);
  if (!session || !tx || tx.status !== 'completed') throw payoutImpossible(`${paymentId} has no completed transaction`);
  if (!session.depositAddress) throw payoutImpossible(`${paymentId} has no deposit address`);
  const client = chains.client(session.network);
  const token = client.tokens.find((t) => t.asset === session.destinationAsset)?.address;
  if (!token) throw payoutImpossible(`${session.destinationAsset} is not configured on ${session.network}`);
  const deposit = session.depositAddress as Address;
  const treasury = chains.treasury();

  const transfers: { kind: 'merchant' | 'commission'; order: TransferOrder }[] = [
    { kind: 'merchant' as const, order: { token, to: session.walletAddress as Address, amount: tx.merchantSettlementMicro ?? 0n } },
    { kind: 'commission' as const, order: { token, to: treasury, amount: tx.platformCommissionMicro ?? 0n } },
  ].filter((t) => t.order.amount > 0n);
  const terms: GasTerms[] = [];
  for (const t of transfers) terms.push(await gasTermsFor(client, deposit, t.order));
  const needed = terms.reduce((sum, t) => sum + maxCostOf(t), 0n) - (await client.publicClient.getBalance({ address: deposit }));

  const base = { paymentId, network: session.network };
  const rows: NewPayout[] = transfers.map((t, i) => ({
    ...base,
    id: newPayoutId(),
    kind: t.kind,
    asset: session.destinationAsset,
    token,
    fromAddress: deposit,
    toAddress: t.order.to,
    amount: t.order.amount.toString(),
    gasLimit: terms[i]!.gasLimit.toString(),
    maxFeePerGas: terms[i]!.maxFeePerGas.toString(),
    maxPriorityFeePerGas: terms[i]!.maxPriorityFeePerGas.toString(),
  }));
  if (needed > 0n && rows.length > 0) {
    rows.unshift({ ...base, id: newPayoutId(), kind: 'gas', asset: NATIVE_ASSET, token: null, fromAddress: treasury, toAddress: deposit, amount: needed.toString() });
  }
  return (await insertPayoutsOnce(db, rows)).map((p) => p.id);
}
