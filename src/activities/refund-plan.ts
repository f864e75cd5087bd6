import { ApplicationFailure } from '@temporalio/activity';
import type { Address } from 'viem';
import { onChainBalance, unlistedTokenAsset } from '../chains/balances';
import { tokenBalance } from '../chains/clients';
import { revertReason } from '../chains/reverts';
import { tokenContractsOf, type ChainSettings } from '../config';
import type { Database } from '../db/client';
import { findSession } from '../db/queries/checkout-sessions';
import { findDepositAddresses } from '../db/queries/deposit-addresses';
import { findPaymentException, lockPaymentException, type PaymentExceptionRow } from '../db/queries/payment-exceptions';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { insertPayoutsOnce, listRefundPayouts, outgoingUnconfirmed, type PayoutRow } from '../db/queries/payouts';
import { insertPayoutItemsOnce } from '../db/queries/settlement-payouts';
import { payeeOf } from '../chains/sweeper';
import { accountBalance } from '../db/queries/ledger';
import { isRefundable } from '../domain/exceptions';
import { ledgerAccount } from '../domain/ledger';
import { formatCrypto } from '../domain/money';
import { sameAddress } from '../domain/evm-address';
import { checkRefundAddress, REFUND_ADDRESS_REFUSED } from '../domain/refund-address';
import type { PayoutChains } from './payout-chains';
import { forwardedRow } from './payout-plan';

// An exception's money sent back on chain from the deposit address it
// arrived at, through the payout machinery (rows before signing, the signed bytes before broadcast,
// the receipt decides). Planned once per exception, under the exception's row lock, so an
// acceptance and a refund of the same money can never both go ahead. A refund whose transfer
// failed leaves its rows as they are (failed, with the reason) and the next one is a new attempt.
//
// Every reason a retry cannot fix is a non-retryable failure with its own type (the API maps the
// type to the envelope): the exception cannot be refunded (NotRefundable: its status, its kind, the
// money no longer at the deposit address), the address is refused (RefundAddressRefused), the token
// would revert the transfer (TransferWouldRevert). Anything else (the node or Postgres unreachable)
// is retried, a bounded number of times, by the workflow.

export const NOT_REFUNDABLE = 'NotRefundable';
export const TRANSFER_WOULD_REVERT = 'TransferWouldRevert';

const refused = (message: string) => ApplicationFailure.nonRetryable(message, NOT_REFUNDABLE);

export interface RefundPlan {
  exceptionId: string;
  paymentId: string;
  /** Where the money goes; a retried or repeated refund answers the first plan's. */
  address: string;
  amountMicro: string;
  /** The refund's payout (the sweeper forwards it from the deposit address: the treasury pays the gas). */
  payoutIds: string[];
}

/** A refund whose transfer back failed (reverted, or could not be sent): the money is still at the deposit address. */
const failed = (rows: PayoutRow[]) => rows.some((r) => r.kind === 'refund' && r.status === 'failed');

const planOf = (
  exceptionId: string,
  paymentId: string,
  rows: { id: string; kind: string; toAddress: string; callData: string | null; amount: string }[],
): RefundPlan => {
  const refund = rows.find((r) => r.kind === 'refund')!;
  return { exceptionId, paymentId, address: payeeOf(refund), amountMicro: refund.amount, payoutIds: rows.map((r) => r.id) };
};

/** Where an exception's money lies: the chain-verified checkout session's or simple order's deposit address. */
async function heldAt(
  db: Database,
  exception: PaymentExceptionRow,
): Promise<{ network: string; asset: string; depositAddress: string } | null> {
  if (exception.paymentKind === 'checkout_session') {
    const s = await findSession(db, exception.paymentId);
    return s?.depositAddress && s.verification === 'chain'
      ? { network: s.network, asset: s.destinationAsset, depositAddress: s.depositAddress }
      : null;
  }
  const o = await findSimpleOrder(db, exception.paymentId);
  return o?.chainDepositAddress && o.verification === 'chain'
    ? { network: o.walletNetwork, asset: o.walletCurrency, depositAddress: o.chainDepositAddress }
    : null;
}

/** The refund's destination, checked against everything the platform owns (the service checked it too; a workflow may be sent one directly). */
async function refundDestination(
  db: Database,
  chains: PayoutChains,
  settings: ChainSettings,
  address: string,
  deposit: string,
): Promise<Address> {
  const alone = checkRefundAddress(address);
  if (!alone.ok) throw ApplicationFailure.nonRetryable(alone.message, REFUND_ADDRESS_REFUSED);
  const ours = await findDepositAddresses(db, [alone.address]);
  const checked = checkRefundAddress(alone.address, {
    treasury: settings.settlementMnemonic ? chains.treasury() : null,
    tokenContracts: tokenContractsOf(settings),
    isDepositAddress: ours.length > 0 || sameAddress(alone.address, deposit),
  });
  if (!checked.ok) throw ApplicationFailure.nonRetryable(checked.message, REFUND_ADDRESS_REFUSED);
  return checked.address;
}

export async function planExceptionRefund(
  db: Database,
  chains: PayoutChains,
  settings: ChainSettings,
  exceptionId: string,
  address: string,
): Promise<RefundPlan> {
  const exception = await findPaymentException(db, exceptionId);
  if (!exception) throw refused(`no exception ${exceptionId}`);
  const planned = await listRefundPayouts(db, exceptionId);
  if (planned.length > 0 && !failed(planned)) return planOf(exceptionId, exception.paymentId, planned);
  if (exception.status !== 'open') throw refused(`the exception is ${exception.status}`);
  if (!isRefundable(exception.kind)) throw refused(`${exception.kind} money is not held at the deposit address`);
  const payment = await heldAt(db, exception);
  if (!payment) throw refused('only money that arrived on chain at a payment’s deposit address can be refunded');
  const to = await refundDestination(db, chains, settings, address, payment.depositAddress);

  const client = chains.client(payment.network);
  // A wrong asset goes back in the token that arrived, the payment's own otherwise.
  const asset = exception.token ? (exception.asset ?? unlistedTokenAsset(exception.token)) : payment.asset;
  const token = (exception.token as Address | null) ?? client.tokens.find((t) => t.asset === payment.asset)?.address;
  if (!token) throw refused(`${payment.asset} is not configured on ${payment.network}`);
  const deposit = payment.depositAddress as Address;
  // The ledger holds the exception's money from its confirmed arrival until it leaves: nothing there,
  // nothing to send back (a block that took the transfer away reversed it).
  const booked = -(await accountBalance(db, { account: ledgerAccount.exceptionHeld(exceptionId), asset, network: payment.network }));
  if (booked < exception.amountMicro)
    throw refused(
      `the ledger holds ${formatCrypto(booked)} of the ${formatCrypto(exception.amountMicro)} ${asset} of this exception: its transfer is no longer on chain`,
    );
  // The money must still be there, beyond what planned payouts of this address are about to send.
  const held = exception.token
    ? await tokenBalance(client, token, deposit)
    : ((await onChainBalance(client, deposit, payment.asset)) ?? 0n);
  const leaving = await outgoingUnconfirmed(db, payment.network, deposit, token);
  if (held - leaving < exception.amountMicro) {
    throw refused(
      `the deposit address ${deposit} holds ${formatCrypto(held - leaving)} of the ${formatCrypto(exception.amountMicro)} ${asset} to refund`,
    );
  }

  // A later attempt after a failed one: its rows are the next attempt's (the failed ones stay for operators).
  const attempt = (planned[0]?.attempt ?? 0) + 1;
  const base = { paymentId: exception.paymentId, network: payment.network, exceptionId, attempt };
  // The deposit is the sweeper's forwarder of its index: the treasury has the sweeper send the money back.
  const index = (await findDepositAddresses(db, [deposit]))[0]?.derivationIndex;
  const sweeper = settings.networks.find((n) => n.network === payment.network)?.sweeper;
  if (index === undefined || !sweeper) throw refused(`${deposit} is not a deposit address of ${payment.network}'s sweeper`);
  const forwarded = { sweeper, index };
  const rows = await forwardedRow(
    client,
    { ...base, kind: 'refund' },
    { ...forwarded, treasury: chains.treasury(), asset, token, to, amount: exception.amountMicro },
  ).catch((err: unknown) => {
    // The gas estimate ran the transfer and the token refused it: no retry changes that.
    const reason = revertReason(err);
    throw reason === null
      ? err
      : ApplicationFailure.nonRetryable(`the token would revert this transfer (${reason}); nothing was sent`, TRANSFER_WOULD_REVERT);
  });

  return db.transaction(async (tx) => {
    // Under the exception's lock: an acceptance holding it first leaves the status accepted, and of
    // two plans racing, the second finds the first's rows.
    const locked = await lockPaymentException(tx, exceptionId);
    if (!locked) throw refused(`no exception ${exceptionId}`);
    const existing = await listRefundPayouts(tx, exceptionId);
    if (existing.length > 0 && (!failed(existing) || existing[0]!.attempt >= attempt))
      return planOf(exceptionId, locked.paymentId, existing);
    if (locked.status !== 'open') throw refused(`the exception is ${locked.status}`);
    const inserted = await insertPayoutsOnce(tx, rows);
    for (const row of inserted.filter((r) => r.callData))
      await insertPayoutItemsOnce(tx, row.id, [
        { paymentId: exception.paymentId, depositAddress: deposit, depositIndex: forwarded.index, amountMicro: exception.amountMicro },
      ]);
    return planOf(exceptionId, locked.paymentId, inserted);
  });
}
