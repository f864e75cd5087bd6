import { erc20Abi, type Address } from 'viem';
import { feeQuote, gasLimitFor, maxCostOf, nativeTransferTerms, termsUnder, type GasTerms, type TransferOrder } from '../chains/payouts';
import { depositSalt, encodeForward } from '../chains/sweeper';
import type { ChainSettings } from '../config';
import { findDepositAddresses } from '../db/queries/deposit-addresses';
import { insertPayoutItemsOnce } from '../db/queries/settlement';
import type { ChainClient } from '../chains/clients';
import type { Database } from '../db/client';
import { parseEvmAddress } from '../domain/evm-address';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { insertPayoutsOnce, listPayouts, type NewPayout, type PayoutRow } from '../db/queries/payouts';
import { priceSettlement, sessionPayoutBasis, settlementCover, type SessionPayoutBasis } from '../db/queries/payouts-plan';
import { formatCrypto } from '../domain/money';
import { newPayoutId } from '../domain/ids';
import { NATIVE_ASSET, orderFeeCharged } from '../domain/ledger';
import { withholdFromPayout } from '../domain/payment-refund';
import { lockMerchant } from '../db/queries/merchants';
import { outstandingRefundDebt } from '../db/queries/payment-refunds';
import { orderPayoutSplit } from '../domain/order-fees';
import { writePosting } from '../db/queries/ledger';
import { payoutImpossible, type PayoutChains } from './payout-chains';
import { PayoutRefusal } from './payout-failures';

/** A session's settlement as planned, with what its sending needs of the session (read with the plan). */
export interface SessionPlan {
  rows: PayoutRow[];
  merchantId: string;
  /** The deposit address the transfers leave, with its derivation index (its signer), when it is ours. */
  deposit: { address: string; index: number } | null;
}

/**
 * Decisions §11: a completed chain-verified session's payouts, written before anything is signed:
 * the merchant's net to its wallet, the commission to the treasury, and (when the deposit address
 * lacks it) the native coin for those two transfers' gas, from the treasury. The transfers are
 * written first, from Postgres alone, so a payout the chain refuses is a visible row from the start;
 * then they are checked and priced (readyToSign). Planned once: a retry returns the rows already
 * written. Returns them in sending order (gas first).
 */
export async function planSessionPayouts(db: Database, chains: PayoutChains, paymentId: string): Promise<SessionPlan> {
  const basis = await sessionPayoutBasis(db, paymentId);
  if (!basis) throw payoutImpossible(`${paymentId} has no completed transaction`);
  const planned = basis.planned ? await listPayouts(db, paymentId) : await writeSessionTransfers(db, chains, paymentId, basis);
  const { depositAddress, depositIndex } = basis;
  return {
    rows: await readyToSign(db, chains, paymentId, planned),
    merchantId: basis.merchantId,
    deposit: depositAddress !== null && depositIndex !== null ? { address: depositAddress, index: depositIndex } : null,
  };
}

/**
 * Issue 29 item 3: a merchant who owes the platform for refunds of their completed payments (the
 * treasury sent them) has the debt withheld from this payout (domain/payment-refund.ts): the withheld
 * part goes from the deposit address to the treasury as a `repayment` payout, the rest to them.
 * Most merchants owe nothing, and a plan that withholds nothing is written in one statement. A debt
 * is withheld under the merchant's row lock, so two settlements planned at once never withhold the
 * same debt: what the ledger holds, less the repayments already planned and not yet confirmed. That
 * plan is all or nothing: if another attempt of this payment's plan wrote its rows meanwhile (without
 * the lock, having read no debt), its rows stand and this one writes none.
 */
async function writeSessionTransfers(
  db: Database,
  chains: PayoutChains,
  paymentId: string,
  session: SessionPayoutBasis,
): Promise<PayoutRow[]> {
  const tx = session.transaction;
  if (!tx || tx.status !== 'completed') throw payoutImpossible(`${paymentId} has no completed transaction`);
  if (!session.depositAddress) throw payoutImpossible(`${paymentId} has no deposit address`);
  const token = tokenOf(chains, session.network, session.asset);
  const treasury = chains.treasury();
  const base = { paymentId, network: session.network, asset: session.asset, token, fromAddress: session.depositAddress };
  const owner = { merchantId: session.merchantId, asset: session.asset, network: session.network };
  const transfers = (debtMicro: bigint): NewPayout[] => {
    const { sendMicro, withheldMicro } = withholdFromPayout({ netMicro: tx.merchantSettlementMicro ?? 0n, debtMicro });
    return [
      { ...base, id: newPayoutId(), kind: 'merchant' as const, toAddress: session.walletAddress, amount: String(sendMicro) },
      { ...base, id: newPayoutId(), kind: 'repayment' as const, toAddress: treasury, amount: String(withheldMicro) },
      { ...base, id: newPayoutId(), kind: 'commission' as const, toAddress: treasury, amount: String(tx.platformCommissionMicro ?? 0n) },
    ].filter((row) => BigInt(row.amount) > 0n);
  };
  // The debt as the plan's read saw it; one owed is read again under the merchant's lock.
  if (session.refundDebtMicro <= 0n) return insertPayoutsOnce(db, transfers(0n));
  const written = await db
    .transaction(async (t) => {
      await lockMerchant(t, session.merchantId);
      const rows = transfers(await outstandingRefundDebt(t, owner));
      const inserted = await insertPayoutsOnce(t, rows);
      if (inserted.some((row) => !rows.some((r) => r.id === row.id))) throw new PlannedElsewhere();
      return inserted;
    })
    .catch((err: unknown) => {
      if (err instanceof PlannedElsewhere) return null;
      throw err;
    });
  return written ?? listPayouts(db, paymentId);
}

/** Rolls back a withholding plan whose payment's rows another attempt wrote first. */
class PlannedElsewhere extends Error {}

/**
 * Decisions §11 for the simple API: a settled chain-verified order pays what it received to the
 * customer's wallet less its network fee (the simple API takes no commission; the fee pays the
 * treasury back for the gas), with the gas for those transfers from the treasury when the deposit
 * address lacks it. Planned once, like a session's; gas first.
 */
export async function planOrderPayouts(
  db: Database,
  chains: PayoutChains,
  code: string,
  settings: Pick<ChainSettings, 'networks' | 'settlement'>,
): Promise<PayoutRow[]> {
  const planned = await listPayouts(db, code);
  // Batched settlement: one call of the sweeper, priced when planned; the deposit never needs gas.
  if (planned.some((r) => r.callData)) return planned;
  if (planned.length === 0 && settings.settlement.mode === 'batched') return writeOrderTransfer(db, chains, code, settings);
  return readyToSign(db, chains, code, planned.length > 0 ? planned : await writeOrderTransfer(db, chains, code, null));
}

/**
 * The order's payout rows. Batched settlement (`settings` given): the treasury has the network's
 * sweeper forward the customer's part from the deposit in one call, and the network fee stays there
 * until a sweep; per payment, two transfers out of the deposit (the customer's, the fee).
 */
async function writeOrderTransfer(
  db: Database,
  chains: PayoutChains,
  code: string,
  settings: Pick<ChainSettings, 'networks' | 'settlement'> | null,
): Promise<PayoutRow[]> {
  const order = await findSimpleOrder(db, code);
  if (!order || order.status !== 'settled' || order.verification !== 'chain' || order.receivedMicro === null)
    throw payoutImpossible(`${code} is not a settled chain-verified order`);
  if (!order.chainDepositAddress) throw payoutImpossible(`${code} has no deposit address`);
  const token = tokenOf(chains, order.walletNetwork, order.walletCurrency);
  const to = parseEvmAddress(order.walletAddress);
  if (!to) throw payoutImpossible(`${order.walletAddress} is not an EVM address`);
  // Issue 26 item 12: the order's network fee, fixed when it was opened, goes to the treasury that
  // pays this plan's gas; the customer gets the rest.
  const split = orderPayoutSplit(order.receivedMicro, order.networkFeeMicro);
  const base = {
    paymentId: code,
    network: order.walletNetwork,
    asset: order.walletCurrency,
    token,
    fromAddress: order.chainDepositAddress,
  };
  const sweeper = settings?.networks.find((n) => n.network === order.walletNetwork)?.sweeper;
  const index = settings ? (await findDepositAddresses(db, [order.chainDepositAddress]))[0]?.derivationIndex : undefined;
  const forwarded = sweeper && index !== undefined ? { sweeper, index } : null;
  if (settings && !forwarded) throw payoutImpossible(`${order.chainDepositAddress} is not a forwarder of ${order.walletNetwork}'s sweeper`);
  const transfers: NewPayout[] = forwarded
    ? split.customerMicro > 0n
      ? await forwardedRow(
          chains.client(order.walletNetwork),
          { paymentId: code, network: order.walletNetwork, kind: 'customer' },
          { ...forwarded, treasury: chains.treasury(), asset: order.walletCurrency, token, to, amount: split.customerMicro },
        )
      : []
    : [
        { ...base, id: newPayoutId(), kind: 'customer' as const, toAddress: to, amount: String(split.customerMicro) },
        { ...base, id: newPayoutId(), kind: 'network_fee' as const, toAddress: chains.treasury(), amount: String(split.feeMicro) },
      ].filter((t) => BigInt(t.amount) > 0n);
  // The fee becomes revenue in the plan's own transaction: planned once, posted once.
  return db.transaction(async (tx) => {
    const planned = await insertPayoutsOnce(tx, transfers);
    if (forwarded)
      for (const row of planned)
        await insertPayoutItemsOnce(tx, row.id, [
          { paymentId: code, depositAddress: order.chainDepositAddress, depositIndex: forwarded.index, amountMicro: BigInt(row.amount) },
        ]);
    if (split.feeMicro > 0n)
      await writePosting(
        tx,
        orderFeeCharged({ transactionCode: code, asset: order.walletCurrency, network: order.walletNetwork, feeMicro: split.feeMicro }),
      );
    return planned;
  });
}

function tokenOf(chains: PayoutChains, network: string, asset: string): Address {
  const token = chains.client(network).tokens.find((t) => t.asset === asset)?.address;
  if (!token) throw payoutImpossible(`${asset} is not configured on ${network}`);
  return token;
}

/**
 * Before any transfer of a settlement leaves its deposit address (decisions §14): the address must
 * hold the token for every transfer of the plan not yet signed, beyond what other payouts from it
 * (an exception's refund) are about to send, and the payment's own confirmed credits of the token
 * must cover everything its payouts send: a deposit address never pays out another payment's money.
 * Then the transfers still without terms are priced under one fee quote, with the gas row for them
 * when the address lacks the native coin, in one database transaction under the rows' locks (a
 * concurrent attempt that priced them first wins). Refusals here are PayoutRefusal (bounded, not
 * retried forever).
 */
async function readyToSign(db: Database, chains: PayoutChains, paymentId: string, rows: PayoutRow[]): Promise<PayoutRow[]> {
  const unsigned = rows.filter((r) => r.kind !== 'gas' && r.status === 'planned' && !r.signedTx);
  const first = unsigned[0];
  if (!first?.token) return rows;
  const client = chains.client(first.network);
  const [deposit, token] = [first.fromAddress as Address, first.token as Address];
  const [held, { othersMicro: others, ...books }] = await Promise.all([
    client.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [deposit] }),
    settlementCover(db, { paymentId, network: first.network, sender: first.fromAddress, token: first.token }),
  ]);
  const sending = unsigned.reduce((sum, r) => sum + BigInt(r.amount), 0n);
  const asset = `${first.asset} on ${first.network}`;
  if (held < sending + others) {
    throw new PayoutRefusal(
      `deposit address ${deposit} holds ${formatCrypto(held)} ${asset}; this payout sends ${formatCrypto(sending)} and other payouts from it ${formatCrypto(others)}`,
    );
  }
  if (books.credited < books.paidOut) {
    throw new PayoutRefusal(
      `${paymentId} has ${formatCrypto(books.credited)} ${asset} of confirmed credits; its payouts send ${formatCrypto(books.paidOut)}`,
    );
  }

  const unpriced = unsigned.filter((r) => r.gasLimit === null);
  if (unpriced.length === 0) return rows;
  const priced = await rowsFromDeposit(
    client,
    { paymentId, network: first.network },
    { deposit, treasury: chains.treasury(), asset: first.asset },
    unpriced.map((r) => ({ kind: r.kind, order: { token, to: r.toAddress as Address, amount: BigInt(r.amount) } })),
  );
  return priceSettlement(db, {
    paymentId,
    terms: unpriced.map((row) => {
      const terms = priced.find((p) => p.kind === row.kind)!;
      return {
        id: row.id,
        gasLimit: terms.gasLimit!,
        maxFeePerGas: terms.maxFeePerGas!,
        maxPriorityFeePerGas: terms.maxPriorityFeePerGas!,
      };
    }),
    // A gas row already there (sent before a failure and a retry) stays as it is: the address keeps that gas.
    gas: priced.filter((p) => p.kind === 'gas'),
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
  if (shortfall > 0n)
    rows.unshift(
      row(
        { kind: 'gas', asset: NATIVE_ASSET, token: null, fromAddress: from.treasury, toAddress: from.deposit, amount: shortfall },
        nativeTransferTerms(quote),
      ),
    );
  return rows;
}

/**
 * A payout as one call of the network's sweeper by the treasury (batched settlement): `forward` of
 * `amount` from a deposit to its payee, priced now. Nothing is ever sent to the deposit for gas.
 */
export async function forwardedRow(
  client: ChainClient,
  base: Pick<NewPayout, 'paymentId' | 'network' | 'exceptionId' | 'attempt' | 'kind'>,
  input: { sweeper: Address; index: number; treasury: Address; asset: string; token: Address; to: Address; amount: bigint },
): Promise<NewPayout[]> {
  const callData = encodeForward({ token: input.token, salt: depositSalt(BigInt(input.index)), to: input.to, amount: input.amount });
  const order = { token: input.token, to: input.sweeper, amount: input.amount, data: callData };
  const [quote, gasLimit] = await Promise.all([feeQuote(client), gasLimitFor(client, input.treasury, order)]);
  const terms = termsUnder(quote, gasLimit);
  return [
    {
      ...base,
      id: newPayoutId(),
      asset: input.asset,
      token: input.token,
      fromAddress: input.treasury,
      toAddress: input.sweeper,
      callData,
      amount: input.amount.toString(),
      gasLimit: terms.gasLimit.toString(),
      maxFeePerGas: terms.maxFeePerGas.toString(),
      maxPriorityFeePerGas: terms.maxPriorityFeePerGas.toString(),
    },
  ];
}
