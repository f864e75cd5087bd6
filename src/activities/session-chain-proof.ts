import { holdCredits } from '../db/queries/chain-credits';
import type { SessionEventContext } from '../db/queries/checkout-session-events';
import { findSessionWithMerchant, type SessionWithMerchant } from '../db/queries/checkout-sessions';
import { writePosting } from '../db/queries/ledger';
import { sessionPhase } from '../domain/arrivals';
import { depositLogKey } from '../domain/deposit-fact';
import { exceptionArrived } from '../domain/ledger';
import type { ProvenKind } from './chain-proof-rules';
import { completeSession, completionPostings } from './session-completion';

// A checkout session's completion on chain: how its row is read and locked, what the rules see of
// it, and what its completion writes. The rules themselves are chain-proof-rules.ts, shared with
// simple orders (order-chain-proof.ts).

/** `event`: what the completion's writes returned for its `payment.completed`; never part of an activity's result. */
type SessionCompletion = { paidLinkId: string | null; duplicateExceptionId?: string; event?: SessionEventContext };
/** A session with whether its merchant takes money (approved): a suspended merchant's open session takes none. */
type ProvenSession = SessionWithMerchant;

export const sessionProof: ProvenKind<ProvenSession, SessionCompletion> = {
  kind: 'checkout_session',
  // The session and its merchant's standing in one statement.
  find: (db, id) => findSessionWithMerchant(db, id),
  lock: (db, id) => findSessionWithMerchant(db, id, { lock: true }),
  view: (s) => ({
    expectedMicro: s.expectedGrossMicro,
    depositAddress: s.depositAddress,
    network: s.network,
    asset: s.destinationAsset,
    phase: sessionPhase(s),
    provider: s.provider,
    providerPaymentId: s.providerPaymentId,
  }),
  async complete(tx, session, proof, settlement) {
    const hash = proof.last.transactionHash;
    const depositAddress = session.depositAddress ?? proof.last.toAddress;
    const outcome = await completeSession(tx, session, {
      grossMicro: proof.grossMicro,
      providerPaymentId: proof.providerPaymentId,
      // The proof is the log, not a provider event.
      providerEventId: `chain:${depositLogKey(proof.last)}`,
      // The transaction's hash and link are the merchant payout's, null until it is
      // confirmed; the inbound transfer is the deposit's.
      transactionHash: null,
      depositTransactionHash: hash,
      explorerUrl: null,
      completedAt: proof.completedAt,
      postings: completionPostings(session, { grossMicro: proof.grossMicro, depositAddress, txHash: hash }, settlement),
    });
    if (!outcome.completed) {
      // The credits were this session's money; its link was paid by another, so they are held for
      // the customer, and no longer count towards this session's G.
      await holdCredits(tx, session.id);
      const held = {
        postingId: `exception:${outcome.duplicateExceptionId}`,
        paymentId: session.id,
        depositAddress,
        asset: session.destinationAsset,
        network: session.network,
        txHash: hash,
        amountMicro: proof.grossMicro,
      };
      await writePosting(tx, exceptionArrived({ ...held, exceptionId: outcome.duplicateExceptionId }));
      return { completed: false, result: { paidLinkId: null, duplicateExceptionId: outcome.duplicateExceptionId } };
    }
    return { completed: true, result: { paidLinkId: outcome.paidLinkId, ...(outcome.event ? { event: outcome.event } : {}) } };
  },
};
