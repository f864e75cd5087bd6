import type { Address } from 'viem';
import { feeQuote, gasLimitFor, maxCostOf, nativeTransferTerms, termsUnder, type GasTerms, type TransferOrder } from '../chains/payouts';
import type { ChainClient } from '../chains/clients';
import type { Database } from '../db/client';
import { parseEvmAddress } from '../domain/evm-address';
import { findSession } from '../db/queries/checkout-sessions';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { insertPayoutsOnce, listPayouts, type NewPayout, type PayoutRow } from '../db/queries/payouts';
import { findTransaction } from '../db/queries/transactions';
import { newPayoutId } from '../domain/ids';
import { NATIVE_ASSET, orderFeeCharged } from '../domain/ledger';
import { orderPayoutSplit } from '../domain/order-fees';
import { writePosting } from '../db/queries/ledger';
import { payoutImpossible, type PayoutChains } from './payout-chains';

/**
 * Decisions §11: a completed chain-verified session's payouts, written before anything is signed:
 * the merchant's net to its wallet, the commission to the treasury, and (when the deposit address
 * lacks it) the native coin for those two transfers' gas, from the treasury. Planned once: a retry
 * returns the rows already written. Returns them in sending order (gas first).
 */
export async function planSessionPayouts(db: Database, chains: PayoutChains, paymentId: string): Promise<PayoutRow[]> {
  const planned = await listPayouts(db, paymentId);
  if (planned.length > 0) return planned;
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
  const rows = await rowsFromDeposit(client, { paymentId, network: session.network }, { deposit, treasury, asset: session.destinationAsset }, transfers);
  return insertPayoutsOnce(db, rows);
}

/**
 * Decisions §11 for the simple API: a settled chain-verified order pays what it received to the
 * customer's wallet less its network fee (the simple API takes no commission; the fee pays the
 * treasury back for the gas), with the gas for those transfers from the treasury when the deposit
 * address lacks it. Planned once, like a session's; gas first.
 */
export async function planOrderPayouts(db: Database, chains: PayoutChains, code: string): Promise<PayoutRow[]> {
  const planned = await listPayouts(db, code);
  if (planned.length > 0) return planned;
  const order = await findSimpleOrder(db, code);
  if (!order || order.status !== 'settled' || order.verification !== 'chain' || order.receivedMicro === null) throw payoutImpossible(`${code} is not a settled chain-verified order`);
  if (!order.chainDepositAddress) throw payoutImpossible(`${code} has no deposit address`);
  const client = chains.client(order.walletNetwork);
  const token = client.tokens.find((t) => t.asset === order.walletCurrency)?.address;
  if (!token) throw payoutImpossible(`${order.walletCurrency} is not configured on ${order.walletNetwork}`);
  const to = parseEvmAddress(order.walletAddress);
  if (!to) throw payoutImpossible(`${order.walletAddress} is not an EVM address`);
  const deposit = order.chainDepositAddress as Address;
  const treasury = chains.treasury();
  // Issue 26 item 12: the order's network fee, fixed when it was opened, goes to the treasury that
  // pays this plan's gas; the customer gets the rest.
  const split = orderPayoutSplit(order.receivedMicro, order.networkFeeMicro);
  const transfers = [
    { kind: 'customer' as const, order: { token, to, amount: split.customerMicro } },
    { kind: 'network_fee' as const, order: { token, to: treasury, amount: split.feeMicro } },
  ].filter((t) => t.order.amount > 0n);
  const rows = await rowsFromDeposit(client, { paymentId: code, network: order.walletNetwork }, { deposit, treasury, asset: order.walletCurrency }, transfers);
  // The fee becomes revenue in the plan's own transaction: planned once, posted once.
  return db.transaction(async (tx) => {
    const planned = await insertPayoutsOnce(tx, rows);
    if (split.feeMicro > 0n) await writePosting(tx, orderFeeCharged({ transactionCode: code, asset: order.walletCurrency, network: order.walletNetwork, feeMicro: split.feeMicro }));
    return planned;
  });
}

/**
 * A plan's rows in sending order, written before anything is signed: each transfer out of the
 * deposit address with its stored terms (the signer uses exactly these, on every retry) and, first,
 * the treasury's native coin for their gas when the address lacks it. One fee quote serves every row:
 * the quote, the gas estimates and the address's balance are asked at once (one batched HTTP request).
 */
export async function rowsFromDeposit(
  client: ChainClient,
  base: Pick<NewPayout, 'paymentId' | 'network' | 'exceptionId' | 'attempt'>,
  from: { deposit: Address; treasury: Address; asset: string },
  transfers: { kind: PayoutRow['kind']; order: TransferOrder }[],
): Promise<NewPayout[]> {
  if (transfers.length === 0) return [];
  const [quote, limits, balance] = await Promise.all([
    feeQuote(client),
    Promise.all(transfers.map((t) => gasLimitFor(client, from.deposit, t.order))),
    client.publicClient.getBalance({ address: from.deposit }),
  ]);
  type Transfer = Pick<NewPayout, 'kind' | 'asset' | 'token' | 'fromAddress' | 'toAddress'> & { amount: bigint };
  const row = ({ amount, ...transfer }: Transfer, terms: GasTerms): NewPayout => ({
    ...base,
    ...transfer,
    id: newPayoutId(),
    amount: amount.toString(),
    gasLimit: terms.gasLimit.toString(),
    maxFeePerGas: terms.maxFeePerGas.toString(),
    maxPriorityFeePerGas: terms.maxPriorityFeePerGas.toString(),
  });
  const terms = limits.map((gasLimit) => termsUnder(quote, gasLimit));
  const rows = transfers.map(({ kind, order }, i) =>
    row({ kind, asset: from.asset, token: order.token, fromAddress: from.deposit, toAddress: order.to, amount: order.amount }, terms[i]!),
  );
  const shortfall = terms.reduce((sum, t) => sum + maxCostOf(t), 0n) - balance;
  if (shortfall > 0n) rows.unshift(row({ kind: 'gas', asset: NATIVE_ASSET, token: null, fromAddress: from.treasury, toAddress: from.deposit, amount: shortfall }, nativeTransferTerms(quote)));
  return rows;
}
