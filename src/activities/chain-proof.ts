import { findSession } from '../db/queries/checkout-sessions';
import { findSimpleOrder } from '../db/queries/simple-orders';
import type { DepositFact } from '../domain/deposit-fact';
import type { ProviderClaim } from '../domain/checkout-session';
import { chainProofRules, type ChainProofDeps } from './chain-proof-rules';
import { orderProof } from './order-chain-proof';
import { sessionProof } from './session-chain-proof';

// The chain-verified side of both payment kinds as activities: one set of rules
// (chain-proof-rules.ts), and each kind's reads and writes in a module of its own
// (session-chain-proof.ts, order-chain-proof.ts). Activity names are part of workflow histories.

/**
 * A confirmed log (or its removal) for a payment that has ended, whichever kind it is, from its run
 * or, once the run has closed, from the watcher: the same rules as in the run (chainProofRules'
 * credit), so a transfer is decided alike before and after the end. Returns the exception it is, if
 * any (its own run then tells the merchant).
 */
export async function recordClosedRunArrival(deps: ChainProofDeps, paymentId: string, fact: DepositFact): Promise<string | null> {
  const rules = (await findSession(deps.db, paymentId))
    ? chainProofRules(deps, sessionProof)
    : (await findSimpleOrder(deps.db, paymentId))
      ? chainProofRules(deps, orderProof)
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
  const session = chainProofRules(deps, sessionProof);
  const order = chainProofRules(deps, orderProof);
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
