import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/client';
import { creditLog, listCredits, totalOf, uncreditLog } from '../db/queries/chain-credits';
import { findSession, lockSession } from '../db/queries/checkout-sessions';
import { recordLateDeposit } from '../db/queries/late-deposits';
import { recordPaymentException } from '../db/queries/payment-exceptions';
import { depositLogKey, type DepositFact } from '../domain/deposit-fact';
import { newExceptionId } from '../domain/ids';
import { parseCrypto } from '../domain/money';
import { completeSession, postCompletion } from './session-completion';

// The chain-verified side of a checkout session (decisions §11): credits from confirmed logs, the
// completion they prove, and the exceptions recorded when they do not. Each is idempotent: the log
// key is a primary key, the transaction is unique per payment, exceptions are unique per kind.

export interface CreditState {
  /** This payment holds the log (false: another payment was credited with it first). */
  held: boolean;
  creditedMicro: string;
  /** G, or null while no quote has been taken (nobody pressed Pay or asked for the direct rail). */
  expectedMicro: string | null;
}

/** What the provider claimed, kept by the workflow for the `unverified` record. */
export interface ProviderClaim {
  eventId: string;
  providerPaymentId: string;
  destinationAmount?: string | undefined;
  transactionHash?: string | undefined;
}

const missing = (paymentId: string) => ApplicationFailure.nonRetryable(`no checkout session ${paymentId}`, 'SessionMissing');
const micro = (s: string) => BigInt(s);

export function createChainProofActivities({ db }: { db: Database }) {
  async function state(paymentId: string, held: boolean): Promise<CreditState> {
    const session = await findSession(db, paymentId);
    if (!session) throw missing(paymentId);
    const credited = totalOf(await listCredits(db, paymentId));
    return { held, creditedMicro: credited.toString(), expectedMicro: session.expectedGrossMicro?.toString() ?? null };
  }

  return {
    async creditDeposit(paymentId: string, fact: DepositFact): Promise<CreditState> {
      const held = await creditLog(db, paymentId, {
        ...fact,
        amountMicro: micro(fact.amountMicro),
        blockNumber: micro(fact.blockNumber),
      });
      return state(paymentId, held);
    },

    /** A credit after the session ended: a `late` or `duplicate` exception (decisions §12); its id, or null. */
    async recordLateDeposit(paymentId: string, fact: DepositFact): Promise<string | null> {
      return (await recordLateDeposit(db, paymentId, fact))?.id ?? null;
    },

    async uncreditDeposit(paymentId: string, fact: DepositFact): Promise<CreditState> {
      await uncreditLog(db, paymentId, fact);
      return state(paymentId, false);
    },

    /**
     * Completion proven on chain: gross = everything credited, commission split, the transaction row
     * and the status in one database transaction; any excess over G is an `overpaid` record. Returns
     * null (and changes nothing) when the credits do not cover G, so a replayed call cannot complete
     * a payment whose log was uncredited meanwhile.
     */
    async recordChainCompletion(
      paymentId: string,
      providerPaymentId: string | null,
    ): Promise<{ paidLinkId: string | null; overpaidExceptionId?: string; duplicateExceptionId?: string } | null> {
      return db.transaction(async (tx) => {
        const session = await lockSession(tx, paymentId);
        if (!session) throw missing(paymentId);
        const credits = await listCredits(tx, paymentId);
        const gross = totalOf(credits);
        const expected = session.expectedGrossMicro;
        if (expected === null || credits.length === 0 || gross < expected) return null;
        const last = credits[credits.length - 1]!;
        const outcome = await completeSession(tx, session, {
          grossMicro: gross,
          providerPaymentId: providerPaymentId ?? session.providerPaymentId,
          // The proof is the log, not a provider event.
          providerEventId: `chain:${depositLogKey(last)}`,
          // Decisions §11: the transaction's hash and link are the merchant payout's, null until it
          // is confirmed; the inbound transfer is the deposit's.
          transactionHash: null,
          depositTransactionHash: last.transactionHash,
          explorerUrl: null,
          completedAt: new Date(),
        });
        if (!outcome.completed) return { paidLinkId: null, duplicateExceptionId: outcome.duplicateExceptionId };
        await postCompletion(tx, session, { grossMicro: gross, depositAddress: session.depositAddress ?? last.toAddress, txHash: last.transactionHash });
        if (gross > expected) {
          const overpaid = await recordPaymentException(tx, {
            id: newExceptionId(),
            paymentKind: 'checkout_session',
            paymentId,
            kind: 'overpaid',
            // One completion per payment, so one excess: keyed by the completion.
            arrivalKey: 'completion',
            amountMicro: gross - expected,
            references: { expectedMicro: expected.toString(), creditedMicro: gross.toString(), logs: credits.map(depositLogKey) },
          });
          return { paidLinkId: outcome.paidLinkId, overpaidExceptionId: overpaid.id };
        }
        return { paidLinkId: outcome.paidLinkId };
      });
    },

    /**
     * Money that did not prove the payment, recorded once and never completed: credits short of G
     * at expiry (`underpaid`), or a provider success with nothing credited by its deadline or by
     * expiry (`unverified`).
     */
    async recordShortfall(paymentId: string, claim: ProviderClaim | null, at: 'claim' | 'expiry'): Promise<{ kind: 'underpaid' | 'unverified'; exceptionId: string } | null> {
      const session = await findSession(db, paymentId);
      if (!session) throw missing(paymentId);
      const credits = await listCredits(db, paymentId);
      const credited = totalOf(credits);
      const expected = session.expectedGrossMicro;
      if (at === 'expiry' && credited > 0n && (expected === null || credited < expected)) {
        const underpaid = await recordPaymentException(db, {
          id: newExceptionId(),
          paymentKind: 'checkout_session',
          paymentId,
          kind: 'underpaid',
          arrivalKey: 'expiry',
          amountMicro: credited,
          references: { expectedMicro: expected?.toString() ?? null, creditedMicro: credited.toString(), logs: credits.map(depositLogKey) },
        });
        return { kind: 'underpaid', exceptionId: underpaid.id };
      }
      if (credited === 0n && claim) {
        const unverified = await recordPaymentException(db, {
          id: newExceptionId(),
          paymentKind: 'checkout_session',
          paymentId,
          kind: 'unverified',
          arrivalKey: `provider:${claim.eventId}`,
          amountMicro: claim.destinationAmount ? parseMicroText(claim.destinationAmount) : 0n,
          references: { ...claim, depositAddress: session.depositAddress },
        });
        return { kind: 'unverified', exceptionId: unverified.id };
      }
      return null;
    },
  };
}

/** A provider's malformed amount records as 0 rather than failing the record. */
function parseMicroText(text: string): bigint {
  try {
    return parseCrypto(text);
  } catch {
    return 0n;
  }
}

export type ChainProofActivities = ReturnType<typeof createChainProofActivities>;
