import type { Address } from 'viem';
import { feeQuote, gasLimitFor, maxCostOf, nativeTransferTerms, termsUnder, type FeeQuote, type GasTerms, type TransferOrder } from '../chains/payouts';
import type { ChainClient } from '../chains/clients';
import type { Database } from '../db/client';
import { parseEvmAddress } from '../chains/addresses';
import { findSession } from '../db/queries/checkout-sessions';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { insertPayoutsOnce, listPayouts, type NewPayout, type PayoutRow } from '../db/queries/payouts';
import { findTransaction } from '../db/queries/transactions';
import { newPayoutId } from '../domain/ids';
import { NATIVE_ASSET } from '../domain/ledger';
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
  const funding = await fundingOf(client, deposit, transfers.map((t) => t.order));

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
    ...termsColumns(funding.terms[i]!),
  }));
  if (funding.shortfall > 0n && rows.length > 0) rows.unshift(gasPayout(base, treasury, deposit, funding));
  return insertPayoutsOnce(db, rows);
}

/**
 * Decisions §11 for the simple API: a settled chain-verified order pays everything it received to
 * the customer's wallet (the simple API takes no commission), with the gas for that transfer from
 * the treasury when the deposit address lacks it. Planned once, like a session's; gas first.
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
  const transfer = { token, to, amount: order.receivedMicro };
  const funding = await fundingOf(client, deposit, [transfer]);
  const base = { paymentId: code, network: order.walletNetwork };
  const rows: NewPayout[] = [
    {
      ...base,
      id: newPayoutId(),
      kind: 'customer',
      asset: order.walletCurrency,
      token,
      fromAddress: deposit,
      toAddress: to,
      amount: transfer.amount.toString(),
      ...termsColumns(funding.terms[0]!),
    },
  ];
  if (funding.shortfall > 0n) rows.unshift(gasPayout(base, chains.treasury(), deposit, funding));
  return insertPayoutsOnce(db, rows);
}

/** What a plan's transfers out of a deposit address need: each one's terms, and the native coin the address lacks to pay their gas. */
export interface Funding {
  quote: FeeQuote;
  terms: GasTerms[];
  /** Wei to send to the deposit address first; 0 or less when it holds enough. */
  shortfall: bigint;
}

/**
 * One fee quote for every transfer of the plan, their gas estimates and the address's balance, all
 * asked at once (one batched HTTP request) instead of a quote per transfer.
 */
export async function fundingOf(client: ChainClient, deposit: Address, orders: TransferOrder[]): Promise<Funding> {
  const [quote, limits, balance] = await Promise.all([
    feeQuote(client),
    Promise.all(orders.map((order) => gasLimitFor(client, deposit, order))),
    client.publicClient.getBalance({ address: deposit }),
  ]);
  const terms = limits.map((gasLimit) => termsUnder(quote, gasLimit));
  return { quote, terms, shortfall: terms.reduce((sum, t) => sum + maxCostOf(t), 0n) - balance };
}

/** A payout row's stored terms: the signer uses exactly these, on every retry. */
export const termsColumns = (terms: GasTerms) => ({
  gasLimit: terms.gasLimit.toString(),
  maxFeePerGas: terms.maxFeePerGas.toString(),
  maxPriorityFeePerGas: terms.maxPriorityFeePerGas.toString(),
});

/** The treasury's native coin for the shortfall, planned with terms from the plan's quote (nothing to ask the node when it is signed). */
export function gasPayout(base: Pick<NewPayout, 'paymentId' | 'network' | 'exceptionId'>, treasury: Address, deposit: Address, funding: Funding): NewPayout {
  return {
    ...base,
    id: newPayoutId(),
    kind: 'gas',
    asset: NATIVE_ASSET,
    token: null,
    fromAddress: treasury,
    toAddress: deposit,
    amount: funding.shortfall.toString(),
    ...termsColumns(nativeTransferTerms(funding.quote)),
  };
}
