import { ApplicationFailure } from '@temporalio/activity';
import type { Database, DatabaseOrTransaction } from '../db/client';
import { creditLog, listCredits, totalOf, uncreditLog, type ChainCreditRow } from '../db/queries/chain-credits';
import type { PaymentKind } from '../db/queries/late-payments';
import { recordPaymentException } from '../db/queries/payment-exceptions';
import { depositLogKey, explorerUrlFor, type DepositFact } from '../domain/deposit-fact';
import { newExceptionId } from '../domain/ids';
import { parseCrypto } from '../domain/money';
import type { ProviderRegistry } from '../providers/registry';

// The rules of decisions §11, written once for every kind of payment that has a deposit address
// (checkout sessions, simple orders): credits from confirmed logs, the completion they prove, and
// the exceptions recorded when they do not. Each kind says only how to read, lock and complete its
// row (a ProvenKind). Every step is idempotent: the log key is a primary key, a completion is a
// conditional write, exceptions are unique per payment, kind and arrival.

export interface CreditState {
  /** This payment holds the log (false: another payment was credited with it first). */
  held: boolean;
  creditedMicro: string;
  /** G, or null while no quote has been taken (nobody chose how to pay yet). */
  expectedMicro: string | null;
}

/** What the provider claimed, kept by the workflow for the `unverified` record. */
export interface ProviderClaim {
  eventId: string;
  providerPaymentId: string;
  destinationAmount?: string | undefined;
  transactionHash?: string | undefined;
}

/** What the credits prove, handed to the kind's own completion. */
export interface ChainProof {
  grossMicro: bigint;
  /** The last credited log: its transaction is the payment's deposit transaction. */
  last: ChainCreditRow;
  explorerUrl: string | null;
  providerPaymentId: string | null;
  completedAt: Date;
}

export interface ProvenKind<Row, Done> {
  kind: PaymentKind;
  find(db: DatabaseOrTransaction, id: string): Promise<Row | undefined>;
  lock(db: DatabaseOrTransaction, id: string): Promise<Row | undefined>;
  view(row: Row): { expectedMicro: bigint | null; depositAddress: string | null; network: string; provider: string | null; providerPaymentId: string | null };
  /**
   * Records the completion inside `tx`, the row locked; the caller has checked the credits cover G.
   * `completed: false` when the kind declined it (a link another session paid: a duplicate).
   */
  complete(tx: DatabaseOrTransaction, row: Row, proof: ChainProof): Promise<{ completed: boolean; result: Done }>;
}

export function chainProofRules<Row, Done>(deps: { db: Database; providers: ProviderRegistry }, subject: ProvenKind<Row, Done>) {
  const { db, providers } = deps;
  const missing = (id: string) => ApplicationFailure.nonRetryable(`no ${subject.kind} ${id}`, 'PaymentMissing');
  async function load(id: string) {
    const row = await subject.find(db, id);
    if (!row) throw missing(id);
    return subject.view(row);
  }
  async function state(id: string, held: boolean): Promise<CreditState> {
    const { expectedMicro } = await load(id);
    const credited = totalOf(await listCredits(db, id));
    return { held, creditedMicro: credited.toString(), expectedMicro: expectedMicro?.toString() ?? null };
  }

  return {
    async credit(id: string, fact: DepositFact): Promise<CreditState> {
      const held = await creditLog(db, id, { ...fact, amountMicro: BigInt(fact.amountMicro), blockNumber: BigInt(fact.blockNumber) });
      return state(id, held);
    },

    async uncredit(id: string, fact: DepositFact): Promise<CreditState> {
      await uncreditLog(db, id, fact);
      return state(id, false);
    },

    /**
     * Completion proven on chain: gross = everything credited, written by the kind in one database
     * transaction with any excess over G as an `overpaid` record. Null (nothing changed) when the
     * credits do not cover G, so a replayed call cannot complete a payment whose log was uncredited.
     */
    async complete(id: string, providerPaymentId: string | null): Promise<(Done & { overpaidExceptionId?: string }) | null> {
      type Completion = Done & { overpaidExceptionId?: string };
      return db.transaction(async (tx): Promise<Completion | null> => {
        const row = await subject.lock(tx, id);
        if (!row) throw missing(id);
        const payment = subject.view(row);
        const credits = await listCredits(tx, id);
        const gross = totalOf(credits);
        const expected = payment.expectedMicro;
        if (expected === null || credits.length === 0 || gross < expected) return null;
        const last = credits[credits.length - 1]!;
        const hash = last.transactionHash;
        const outcome = await subject.complete(tx, row, {
          grossMicro: gross,
          last,
          explorerUrl: (payment.provider ? providers.get(payment.provider)?.explorerUrl?.(hash) : undefined) ?? explorerUrlFor(payment.network, hash),
          providerPaymentId: providerPaymentId ?? payment.providerPaymentId,
          completedAt: new Date(),
        });
        if (!outcome.completed) return outcome.result as Completion;
        if (gross > expected) {
          const overpaid = await recordPaymentException(tx, {
            id: newExceptionId(),
            paymentKind: subject.kind,
            paymentId: id,
            kind: 'overpaid',
            // One completion per payment, so one excess: keyed by the completion.
            arrivalKey: 'completion',
            amountMicro: gross - expected,
            references: { expectedMicro: expected.toString(), creditedMicro: gross.toString(), logs: credits.map(depositLogKey) },
          });
          return { ...outcome.result, overpaidExceptionId: overpaid.id };
        }
        return outcome.result as Completion;
      });
    },

    /**
     * Money that did not prove the payment, recorded once and never completed: credits short of G
     * when the payment ends (`underpaid`), or a provider success with nothing credited by its
     * deadline or by the end (`unverified`).
     */
    async shortfall(id: string, claim: ProviderClaim | null, at: 'claim' | 'expiry'): Promise<{ kind: 'underpaid' | 'unverified'; exceptionId: string } | null> {
      const payment = await load(id);
      const credits = await listCredits(db, id);
      const credited = totalOf(credits);
      const expected = payment.expectedMicro;
      const base = { id: newExceptionId(), paymentKind: subject.kind, paymentId: id };
      if (at === 'expiry' && credited > 0n && (expected === null || credited < expected)) {
        const references = { expectedMicro: expected?.toString() ?? null, creditedMicro: credited.toString(), logs: credits.map(depositLogKey) };
        const underpaid = await recordPaymentException(db, { ...base, kind: 'underpaid', arrivalKey: 'expiry', amountMicro: credited, references });
        return { kind: 'underpaid', exceptionId: underpaid.id };
      }
      if (credited === 0n && claim) {
        const amountMicro = claim.destinationAmount ? parseMicroText(claim.destinationAmount) : 0n;
        // A claim of no money is nothing to verify (callbacks claiming it are refused at ingestion).
        if (amountMicro <= 0n) return null;
        const references = { ...claim, depositAddress: payment.depositAddress };
        const unverified = await recordPaymentException(db, { ...base, kind: 'unverified', arrivalKey: `provider:${claim.eventId}`, amountMicro, references });
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
