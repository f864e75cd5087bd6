import type { DatabaseOrTransaction } from '../db/client';
import { completeSessionRow, type SessionEventContext } from '../db/queries/checkout-session-events';
import { setSessionRail, type CheckoutSessionRow } from '../db/queries/checkout-sessions';
import type { SettlementSettings } from '../config';
import type { Posting } from '../domain/ledger';
import { holdReleased, paymentCompleted } from '../domain/balances';
import { insertTransactionOnce, type TransactionInsert, type TransactionRow } from '../db/queries/transactions';
import { recordPaymentException } from '../db/queries/payment-exceptions';
import { arrivalKeyOf } from '../domain/exceptions';
import { newExceptionId } from '../domain/ids';
import { commissionSplit } from '../domain/money';
import { paymentLabels, railOfCompletion } from '../domain/payment-labels';
import { recordLinkPayment } from './payment-links';

/** What proves a completion, and the references that go on the transaction row. */
export interface CompletionProof {
  grossMicro: bigint;
  providerPaymentId: string | null;
  /** The provider event, or the chain log (`chain:<key>`), that proved it. */
  providerEventId: string;
  /** The provider's reference, or null on the chain path until the merchant's payout is confirmed. */
  transactionHash: string | null;
  depositTransactionHash?: string | null;
  explorerUrl: string | null;
  completedAt: Date;
  /** What the completion posts to the ledger (completionPostings), written with its transaction row. */
  postings?: Posting[];
}

/**
 * What a completion did: completed (and maybe paid a link), or found the link paid by another session.
 * `event`: the completed row and its transaction as the completion's writes returned them, for its
 * `payment.completed` (absent when this call did not make the move).
 */
export type CompletionOutcome =
  { completed: true; paidLinkId: string | null; event?: SessionEventContext } | { completed: false; duplicateExceptionId: string };

/**
 * A session's completion, inside the caller's database transaction with the session locked: the
 * commission split, the transaction row (once per payment), the status, and the
 * payment link paid at most once. A link another session paid first is not paid twice: this money
 * is a `duplicate` exception and the session does not complete.
 */
export async function completeSession(
  tx: DatabaseOrTransaction,
  session: CheckoutSessionRow,
  proof: CompletionProof,
): Promise<CompletionOutcome> {
  const link = session.paymentLinkId ? await recordLinkPayment(tx, session.paymentLinkId, session.id) : 'missing';
  if (link === 'duplicate') {
    const exception = await recordPaymentException(tx, {
      id: newExceptionId(),
      paymentKind: 'checkout_session',
      paymentId: session.id,
      kind: 'duplicate',
      arrivalKey: arrivalKeyOf({
        network: session.network,
        transactionHash: proof.depositTransactionHash ?? proof.transactionHash,
        eventId: proof.providerEventId,
      }),
      amountMicro: proof.grossMicro,
      references: {
        paymentLinkId: session.paymentLinkId,
        providerPaymentId: proof.providerPaymentId,
        proof: proof.providerEventId,
        transactionHash: proof.depositTransactionHash ?? proof.transactionHash,
      },
    });
    return { completed: false, duplicateExceptionId: exception.id };
  }
  const { row, railType } = completedTransaction(session, proof);
  const { moved } = await completeSessionRow(tx, row, proof.postings ?? [], {
    railType,
    completedAt: proof.completedAt,
    providerPaymentId: proof.providerPaymentId,
  });
  return { completed: true, paidLinkId: link === 'paid' ? session.paymentLinkId : null, ...(moved ? { event: moved } : {}) };
}

/**
 * The transaction row of a completion: the commission split of the gross and its proof, and the
 * rail the completion proved, which is stored on the session and every surface reads its labels
 * from. Every completion (provider, chain, an accepted exception) makes its row here.
 */
function completedTransaction(session: CheckoutSessionRow, proof: CompletionProof) {
  const split = commissionSplit(proof.grossMicro, session.commissionBps);
  const labels = paymentLabels({ railType: railOfCompletion(proof.providerPaymentId), provider: session.provider });
  const row = {
    paymentId: session.id,
    merchantId: session.merchantId,
    status: 'completed',
    sourceAmountMinor: session.amountMinor,
    sourceCurrency: session.currency,
    destinationAsset: session.destinationAsset,
    network: session.network,
    walletAddress: session.walletAddress,
    grossMicro: proof.grossMicro,
    merchantSettlementMicro: split.merchant,
    platformCommissionMicro: split.commission,
    commissionBps: session.commissionBps,
    provider: labels.provider,
    providerPaymentId: proof.providerPaymentId,
    providerEventId: proof.providerEventId,
    transactionHash: proof.transactionHash,
    depositTransactionHash: proof.depositTransactionHash ?? null,
    explorerUrl: proof.explorerUrl,
    completedAt: proof.completedAt,
  } satisfies TransactionInsert;
  return { row, railType: labels.railType };
}

/**
 * A completion's transaction row (completedTransaction) once per payment, with the proof's
 * postings, for a completion that moves its session by its own write (an accepted exception).
 */
export async function insertCompletedTransaction(
  tx: DatabaseOrTransaction,
  session: CheckoutSessionRow,
  proof: CompletionProof,
): Promise<TransactionRow> {
  const { row, railType } = completedTransaction(session, proof);
  if (railType !== session.railType) await setSessionRail(tx, session.id, railType);
  return insertTransactionOnce(tx, row, proof.postings);
}

/**
 * The postings of the money a completion proved on chain, written with its transaction row
 * (insertCompletedTransaction): the deposit address holds the gross, the merchant is owed its share, the commission
 * is earned (docs/settlement.md). The share goes to the merchant's balance, pending, and available
 * at once unless PAYOUT_HOLD_SECONDS holds it (a settlement run releases it then).
 */
export function completionPostings(
  session: CheckoutSessionRow,
  input: { grossMicro: bigint; depositAddress: string; txHash: string | null },
  settlement: SettlementSettings,
): Posting[] {
  const split = commissionSplit(input.grossMicro, session.commissionBps);
  const completion = {
    paymentId: session.id,
    merchantId: session.merchantId,
    depositAddress: input.depositAddress,
    asset: session.destinationAsset,
    network: session.network,
    txHash: input.txHash,
    grossMicro: input.grossMicro,
    merchantMicro: split.merchant,
    commissionMicro: split.commission,
  };
  return [
    paymentCompleted(completion),
    ...(settlement.holdSeconds === 0
      ? [holdReleased({ ...completion, amountMicro: split.merchant, reservedMicro: 0n, reserveTargetMicro: 0n })]
      : []),
  ];
}
