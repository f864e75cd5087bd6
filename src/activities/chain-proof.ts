import { holdCredits } from '../db/queries/chain-credits';
import type { SessionEventContext } from '../db/queries/checkout-session-events';
import { findSession, findSessionWithMerchant, type SessionWithMerchant } from '../db/queries/checkout-sessions';
import { findSimpleOrder, lockSimpleOrder, transitionSimpleOrder, type SimpleOrderRow } from '../db/queries/simple-orders';
import { depositLogKey } from '../domain/deposit-fact';
import type { DepositFact } from '../domain/deposit-fact';
import { chainProofRules, type ChainProofDeps, type ProvenKind } from './chain-proof-rules';
import type { ProviderClaim } from '../domain/checkout-session';
import { sessionPhase } from '../domain/arrivals';
import { completeSession, completionPostings } from './session-completion';
import { writePosting } from '../db/queries/ledger';
import { exceptionArrived, orderCredited } from '../domain/ledger';

// The chain-verified side of both payment kinds: one set of rules
// (chain-proof-rules.ts), and for each kind how its row is read and what its completion writes.
// Activity names are part of workflow histories: the session's stay as they were.

/** `event`: what the completion's writes returned for its `payment.completed`; never part of an activity's result. */
type SessionCompletion = { paidLinkId: string | null; duplicateExceptionId?: string; event?: SessionEventContext };
/** A session with whether its merchant takes money (approved): a suspended merchant's open session takes none. */
type ProvenSession = SessionWithMerchant;

const sessions: ProvenKind<ProvenSession, SessionCompletion> = {
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

const orders: ProvenKind<SimpleOrderRow, { settled: true }> = {
  kind: 'simple_order',
  find: findSimpleOrder,
  lock: lockSimpleOrder,
  view: (o) => ({
    expectedMicro: o.expectedGrossMicro,
    depositAddress: o.chainDepositAddress,
    network: o.walletNetwork,
    asset: o.walletCurrency,
    phase: o.status === 'settled' ? 'paid' : o.status === 'pending' || o.status === 'processing' ? 'open' : 'ended',
    provider: o.provider,
    providerPaymentId: o.providerPaymentId,
  }),
  async complete(tx, order, proof) {
    const hash = proof.last.transactionHash;
    // Settled = the money is ours, proven; the payout to the customer's wallet is a step of its own
    // (docs/settlement.md), so nothing is dispatched yet. What a payout needs stays on the row: the
    // gross received and the deposit transaction.
    await transitionSimpleOrder(tx, order.transactionCode, 'settled', {
      ...(proof.providerPaymentId ? { providerPaymentId: proof.providerPaymentId } : {}),
      receivedMicro: proof.grossMicro,
      depositTransactionHash: hash,
      // The inbound transfer's until the payout to the customer is broadcast, then the payout's.
      transactionHash: hash,
      explorerUrl: proof.explorerUrl,
      payoutDispatched: false,
      settledAt: proof.completedAt,
    });
    // The deposit address holds G, all of it owed to the customer (the simple API takes no commission).
    const depositAddress = order.chainDepositAddress ?? proof.last.toAddress;
    await writePosting(
      tx,
      orderCredited({
        transactionCode: order.transactionCode,
        depositAddress,
        asset: order.walletCurrency,
        network: order.walletNetwork,
        txHash: hash,
        grossMicro: proof.grossMicro,
      }),
    );
    return { completed: true, result: { settled: true } };
  },
};

/**
 * A confirmed log (or its removal) for a payment that has ended, whichever kind it is, from its run
 * or, once the run has closed, from the watcher: the same rules as in the run (chainProofRules'
 * credit), so a transfer is decided alike before and after the end. Returns the exception it is, if
 * any (its own run then tells the merchant).
 */
export async function recordClosedRunArrival(deps: ChainProofDeps, paymentId: string, fact: DepositFact): Promise<string | null> {
  const rules = (await findSession(deps.db, paymentId))
    ? chainProofRules(deps, sessions)
    : (await findSimpleOrder(deps.db, paymentId))
      ? chainProofRules(deps, orders)
      : null;
  if (!rules) return null;
  if (fact.kind === 'removed') {
    // An exception stays (it was money an operator was told of); the log no longer counts.
    await rules.uncredit(paymentId, fact);
    return null;
  }
  return (await rules.credit(paymentId, fact)).exceptionId;
}

export function createChainProofActivities(deps: ChainProofDeps) {
  const session = chainProofRules(deps, sessions);
  const order = chainProofRules(deps, orders);
  return {
    /** The credit, and the completion it proves when it covers G (chainProofRules' creditAndComplete). */
    creditDeposit: (paymentId: string, fact: DepositFact, providerPaymentId: string | null) =>
      session.creditAndComplete(paymentId, fact, providerPaymentId),
    uncreditDeposit: (paymentId: string, fact: DepositFact) => session.uncredit(paymentId, fact),
    recordShortfall: (paymentId: string, claim: ProviderClaim | null, at: 'claim' | 'expiry') => session.shortfall(paymentId, claim, at),
    /**
     * A credit after the payment (a session or a simple order) ended: a `late`, `duplicate` or
     * `wrong_asset` exception; its id, or null (dust, or already the payment's).
     */
    recordLateDeposit: (paymentId: string, fact: DepositFact): Promise<string | null> => recordClosedRunArrival(deps, paymentId, fact),

    creditOrderDeposit: (code: string, fact: DepositFact) => order.credit(code, fact),
    uncreditOrderDeposit: (code: string, fact: DepositFact) => order.uncredit(code, fact),
    recordOrderChainSettlement: (code: string, providerPaymentId: string | null) => order.complete(code, providerPaymentId),
    recordOrderShortfall: (code: string, claim: ProviderClaim | null, at: 'claim' | 'expiry') => order.shortfall(code, claim, at),
  };
}

export type ChainProofActivities = ReturnType<typeof createChainProofActivities>;
