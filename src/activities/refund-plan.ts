import { ApplicationFailure } from '@temporalio/activity';
import type { Address } from 'viem';
import { onChainBalance } from '../chains/balances';
import type { Database } from '../db/client';
import { findSession } from '../db/queries/checkout-sessions';
import { findPaymentException, lockPaymentException, type PaymentExceptionRow } from '../db/queries/payment-exceptions';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { insertPayoutsOnce, listRefundPayouts, outgoingUnconfirmed } from '../db/queries/payouts';
import { isRefundable } from '../domain/exceptions';
import type { PayoutChains } from './payout-chains';
import { rowsFromDeposit } from './payout-plan';

// Decisions §12 "refund": an exception's money sent back on chain from the deposit address it
// arrived at, through the payout machinery (rows before signing, the signed bytes before broadcast,
// the receipt decides). Planned once per exception, under the exception's row lock, so an
// acceptance and a refund of the same money can never both go ahead.

export const NOT_REFUNDABLE = 'NotRefundable';

const refused = (message: string) => ApplicationFailure.nonRetryable(message, NOT_REFUNDABLE);

export interface RefundPlan {
  exceptionId: string;
  paymentId: string;
  /** Where the money goes; a retried or repeated refund answers the first plan's. */
  address: string;
  amountMicro: string;
  /** In sending order: the gas for the deposit address (when it lacks it), then the refund. */
  payoutIds: string[];
}

const planOf = (exceptionId: string, paymentId: string, rows: { id: string; kind: string; toAddress: string; amount: string }[]): RefundPlan => {
  const refund = rows.find((r) => r.kind === 'refund')!;
  return { exceptionId, paymentId, address: refund.toAddress, amountMicro: refund.amount, payoutIds: rows.map((r) => r.id) };
};

/** Where an exception's money lies: the chain-verified checkout session's or simple order's deposit address. */
async function heldAt(db: Database, exception: PaymentExceptionRow): Promise<{ network: string; asset: string; depositAddress: string } | null> {
  if (exception.paymentKind === 'checkout_session') {
    const s = await findSession(db, exception.paymentId);
    return s?.depositAddress && s.verification === 'chain' ? { network: s.network, asset: s.destinationAsset, depositAddress: s.depositAddress } : null;
  }
  const o = await findSimpleOrder(db, exception.paymentId);
  return o?.chainDepositAddress && o.verification === 'chain' ? { network: o.walletNetwork, asset: o.walletCurrency, depositAddress: o.chainDepositAddress } : null;
}

export async function planExceptionRefund(db: Database, chains: PayoutChains, exceptionId: string, to: Address): Promise<RefundPlan> {
  const exception = await findPaymentException(db, exceptionId);
  if (!exception) throw refused(`no exception ${exceptionId}`);
  const planned = await listRefundPayouts(db, exceptionId);
  if (planned.length > 0) return planOf(exceptionId, exception.paymentId, planned);
  if (exception.status !== 'open') throw refused(`the exception is ${exception.status}`);
  if (!isRefundable(exception.kind)) throw refused(`${exception.kind} money is not held at the deposit address`);
  const payment = await heldAt(db, exception);
  if (!payment) throw refused('only money that arrived on chain at a payment’s deposit address can be refunded');

  const client = chains.client(payment.network);
  const token = client.tokens.find((t) => t.asset === payment.asset)?.address;
  if (!token) throw refused(`${payment.asset} is not configured on ${payment.network}`);
  const deposit = payment.depositAddress as Address;
  // The money must still be there, beyond what planned payouts of this address are about to send.
  const held = (await onChainBalance(client, deposit, payment.asset)) ?? 0n;
  const leaving = await outgoingUnconfirmed(db, payment.network, deposit, token);
  if (held - leaving < exception.amountMicro) throw refused(`${deposit} holds ${held - leaving} of the ${exception.amountMicro} to refund`);

  const base = { paymentId: exception.paymentId, network: payment.network, exceptionId };
  const rows = await rowsFromDeposit(client, base, { deposit, treasury: chains.treasury(), asset: payment.asset }, [{ kind: 'refund', order: { token, to, amount: exception.amountMicro } }]);

  return db.transaction(async (tx) => {
    // Under the exception's lock: an acceptance holding it first leaves the status accepted.
    const locked = await lockPaymentException(tx, exceptionId);
    if (!locked) throw refused(`no exception ${exceptionId}`);
    const existing = await listRefundPayouts(tx, exceptionId);
    if (existing.length > 0) return planOf(exceptionId, locked.paymentId, existing);
    if (locked.status !== 'open') throw refused(`the exception is ${locked.status}`);
    return planOf(exceptionId, locked.paymentId, await insertPayoutsOnce(tx, rows));
  });
}
