import { ApplicationFailure } from '@temporalio/activity';
import type { Database, DatabaseOrTransaction } from '../db/client';
import { creditLog, listCredits, totalOf, uncreditLog, type ChainCreditRow } from '../db/queries/chain-credits';
import type { PaymentKind } from '../db/queries/late-payments';
import { findExceptionByArrival, recordPaymentException } from '../db/queries/payment-exceptions';
import type { ChainSettings, SettlementSettings } from '../config';
import { unlistedTokenAsset } from '../chains/balances';
import { nextArrivalPostingId, writePosting } from '../db/queries/ledger';
import { arrivalPostingPrefix, dustArrived, exceptionArrived } from '../domain/ledger';
import { classifyArrival, settlementOf, shortfallOf, type PaymentPhase } from '../domain/arrivals';
import { depositLogKey, type DepositFact } from '../domain/deposit-fact';
import { explorerUrlFor } from '../domain/explorers';
import { arrivalKeyOf, logArrivalKey } from '../domain/exceptions';
import { newExceptionId } from '../domain/ids';
import { positiveMicro } from '../domain/money';
import { creditCovers, type CreditReport, type ProviderClaim } from '../domain/checkout-session';
import type { ProviderRegistry } from '../providers/registry';

// The rules of proof on chain, written once for every kind of payment that has a deposit address
// (checkout sessions, simple orders): credits from confirmed logs, the completion they prove, and
// the exceptions recorded when they do not. Each kind says only how to read, lock and complete its
// row (a ProvenKind). Every step is idempotent: the log key is a primary key, a completion is a
// conditional write, exceptions are unique per payment, kind and arrival.

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
  view(row: Row): {
    expectedMicro: bigint | null;
    depositAddress: string | null;
    network: string;
    /** The payment's own token: only its transfers credit the payment. */
    asset: string;
    phase: PaymentPhase;
    provider: string | null;
    providerPaymentId: string | null;
  };
  /**
   * Records the completion inside `tx`, the row locked; the caller has checked the credits cover G.
   * `completed: false` when the kind declined it (a link another session paid: a duplicate).
   */
  complete(
    tx: DatabaseOrTransaction,
    row: Row,
    proof: ChainProof,
    settlement: SettlementSettings,
  ): Promise<{ completed: boolean; result: Done }>;
}

/** The closed-run path (the watcher) only records arrivals, so it needs no providers. */
export type ChainProofDeps = {
  db: Database;
  providers?: ProviderRegistry;
  chains: Pick<ChainSettings, 'dustThresholdMicro' | 'settlement'>;
};

export function chainProofRules<Row, Done>(deps: ChainProofDeps, subject: ProvenKind<Row, Done>) {
  const { db, providers } = deps;
  const missing = (id: string) => ApplicationFailure.nonRetryable(`no ${subject.kind} ${id}`, 'PaymentMissing');
  async function load(id: string) {
    const row = await subject.find(db, id);
    if (!row) throw missing(id);
    return subject.view(row);
  }
  async function state(id: string, held: boolean, exceptionId: string | null = null): Promise<CreditReport> {
    const { expectedMicro } = await load(id);
    const credited = totalOf(await listCredits(db, id));
    return { held, creditedMicro: credited.toString(), expectedMicro: expectedMicro?.toString() ?? null, exceptionId };
  }

  type Completion = Done & { overpaidExceptionId?: string };

  /** The credit of `fact`, in `tx` with the row locked; what the run is told, and the credits it read. */
  async function creditLocked(
    tx: DatabaseOrTransaction,
    id: string,
    payment: ReturnType<ProvenKind<Row, Done>['view']>,
    fact: DepositFact,
  ): Promise<{ report: CreditReport; credits: ChainCreditRow[] }> {
    // What the run is told, read under the same lock (not the row read again after commit).
    const standing = async (held: boolean, exceptionId: string | null, known?: ChainCreditRow[]) => {
      const credits = known ?? (await listCredits(tx, id));
      const report = {
        held,
        creditedMicro: totalOf(credits).toString(),
        expectedMicro: payment.expectedMicro?.toString() ?? null,
        exceptionId,
      };
      return { report, credits };
    };
    const amountMicro = BigInt(fact.amountMicro);
    const decision = classifyArrival(payment, { network: fact.network, asset: fact.asset, amountMicro }, deps.chains.dustThresholdMicro);
    const recorded = await creditLog(tx, id, { ...fact, amountMicro, blockNumber: BigInt(fact.blockNumber) }, decision.credit);
    if (!recorded.held) return standing(false, null);
    const arrivalKey = logArrivalKey(fact);
    if (!recorded.fresh) return standing(true, (await findExceptionByArrival(tx, id, arrivalKey))?.id ?? null);
    // The payment's own money (the common case): nothing is posted at arrival.
    if (decision.credit !== 'dust' && !decision.exception) return standing(true, null, recorded.credits);
    // What is not the payment's money stays at its deposit address: the ledger holds it there
    // for its owner (the customer, through the exception) or for nobody (dust).
    const arrived = {
      postingId: await nextArrivalPostingId(tx, id, arrivalPostingPrefix(fact)),
      paymentId: id,
      depositAddress: payment.depositAddress ?? fact.to,
      asset: fact.asset ?? unlistedTokenAsset(fact.token),
      network: fact.network,
      txHash: fact.transactionHash,
      amountMicro,
    };
    if (decision.credit === 'dust') await writePosting(tx, dustArrived(arrived));
    if (!decision.exception) return standing(true, null);
    const own = decision.exception !== 'wrong_asset';
    const exception = await recordPaymentException(tx, {
      id: newExceptionId(),
      paymentKind: subject.kind,
      paymentId: id,
      kind: decision.exception,
      arrivalKey,
      amountMicro,
      ...(own ? {} : { token: fact.token, asset: fact.asset }),
      references: {
        transactionHash: fact.transactionHash,
        log: depositLogKey(fact),
        from: fact.from,
        depositAddress: fact.to,
        token: fact.token,
        asset: fact.asset,
        paymentAsset: payment.asset,
        paymentPhase: payment.phase,
      },
    });
    await writePosting(tx, exceptionArrived({ ...arrived, exceptionId: exception.id }));
    return standing(true, exception.id);
  }

  /**
   * The completion `credits` prove, in `tx` with the row locked: gross = everything credited, written
   * by the kind with any excess over G as an `overpaid` record. Null (nothing changed) when the
   * credits do not cover G, so a replayed call cannot complete a payment whose log was uncredited.
   */
  async function completeLocked(
    tx: DatabaseOrTransaction,
    id: string,
    row: Row,
    credits: ChainCreditRow[],
    providerPaymentId: string | null,
  ): Promise<Completion | null> {
    const payment = subject.view(row);
    const settlement = settlementOf(payment.expectedMicro, totalOf(credits));
    const last = credits[credits.length - 1];
    if (settlement.kind !== 'covered' || !last) return null;
    const { grossMicro: gross, excessMicro: excess } = settlement;
    const hash = last.transactionHash;
    const outcome = await subject.complete(
      tx,
      row,
      {
        grossMicro: gross,
        last,
        explorerUrl:
          (payment.provider ? providers?.get(payment.provider)?.explorerUrl?.(hash) : undefined) ?? explorerUrlFor(payment.network, hash),
        providerPaymentId: providerPaymentId ?? payment.providerPaymentId,
        completedAt: new Date(),
      },
      deps.chains.settlement,
    );
    if (!outcome.completed || excess <= 0n) return outcome.result as Completion;
    const overpaid = await recordPaymentException(tx, {
      id: newExceptionId(),
      paymentKind: subject.kind,
      paymentId: id,
      kind: 'overpaid',
      // One completion per payment, so one excess: keyed by the completion.
      arrivalKey: 'completion',
      amountMicro: excess,
      references: { expectedMicro: (gross - excess).toString(), creditedMicro: gross.toString(), logs: credits.map(depositLogKey) },
    });
    return { ...outcome.result, overpaidExceptionId: overpaid.id };
  }

  const locked = async <T>(id: string, work: (tx: DatabaseOrTransaction, row: Row) => Promise<T>): Promise<T> =>
    db.transaction(async (tx) => {
      const row = await subject.lock(tx, id);
      if (!row) throw missing(id);
      return work(tx, row);
    });

  return {
    /**
     * A confirmed log to the payment's deposit address, decided by domain/arrivals.ts: its own token
     * while open is credited; anything else is recorded with the log and becomes an exception (or
     * stays dust), in one database transaction so a retry finds both or neither. A log already
     * recorded is not news: its first decision stands, and its exception (if any) is answered again.
     */
    credit: async (id: string, fact: DepositFact): Promise<CreditReport> =>
      locked(id, async (tx, row) => (await creditLocked(tx, id, subject.view(row), fact)).report),

    /**
     * The credit, and when it covers G (creditCovers) the completion it proves, in one database
     * transaction under one lock (one step of the run instead of two). `completion` is there
     * only when the credit covered G; null when the kind declined it.
     */
    creditAndComplete: async (
      id: string,
      fact: DepositFact,
      providerPaymentId: string | null,
    ): Promise<{ credit: CreditReport; completion?: Completion | null }> =>
      locked(id, async (tx, row) => {
        const { report, credits } = await creditLocked(tx, id, subject.view(row), fact);
        if (!creditCovers(report)) return { credit: report };
        return { credit: report, completion: await completeLocked(tx, id, row, credits, providerPaymentId) };
      }),

    async uncredit(id: string, fact: DepositFact): Promise<CreditReport> {
      await uncreditLog(db, id, fact);
      return state(id, false);
    },

    /** Completion proven on chain (completeLocked), for a kind whose run asks for it apart from the credit. */
    complete: async (id: string, providerPaymentId: string | null): Promise<Completion | null> =>
      locked(id, async (tx, row) => completeLocked(tx, id, row, await listCredits(tx, id), providerPaymentId)),

    /**
     * Money that did not prove the payment, recorded once and never completed: credits short of G
     * when the payment ends (`underpaid`), or a provider success with nothing credited by its
     * deadline or by the end (`unverified`).
     */
    async shortfall(
      id: string,
      claim: ProviderClaim | null,
      at: 'claim' | 'expiry',
    ): Promise<{ kind: 'underpaid' | 'unverified'; exceptionId: string } | null> {
      const payment = await load(id);
      const credits = await listCredits(db, id);
      const credited = totalOf(credits);
      const expected = payment.expectedMicro;
      const claimedMicro = claim ? (positiveMicro(claim.destinationAmount) ?? 0n) : null;
      const shortfall = shortfallOf({ at, expectedMicro: expected, creditedMicro: credited, claimedMicro });
      if (!shortfall) return null;
      const base = { id: newExceptionId(), paymentKind: subject.kind, paymentId: id, amountMicro: shortfall.amountMicro };
      if (shortfall.kind === 'underpaid') {
        const references = {
          expectedMicro: expected?.toString() ?? null,
          creditedMicro: credited.toString(),
          logs: credits.map(depositLogKey),
        };
        const underpaid = await db.transaction(async (tx) => {
          const exception = await recordPaymentException(tx, { ...base, kind: 'underpaid', arrivalKey: 'expiry', references });
          // The credits were the payment's while it was open; now they are held for the customer.
          if (payment.depositAddress) {
            await writePosting(
              tx,
              exceptionArrived({
                postingId: `exception:${exception.id}`,
                exceptionId: exception.id,
                paymentId: id,
                depositAddress: payment.depositAddress,
                asset: payment.asset,
                network: payment.network,
                txHash: null,
                amountMicro: shortfall.amountMicro,
              }),
            );
          }
          return exception;
        });
        return { kind: 'underpaid', exceptionId: underpaid.id };
      }
      if (!claim) return null; // never: `unverified` is decided only for a claim
      const references = { ...claim, depositAddress: payment.depositAddress };
      // Keyed by the transfer the provider named, if any: when it does arrive, its log takes this record over.
      const arrivalKey = arrivalKeyOf({ network: payment.network, transactionHash: claim.transactionHash, eventId: claim.eventId });
      const unverified = await recordPaymentException(db, { ...base, kind: 'unverified', arrivalKey, references });
      return { kind: 'unverified', exceptionId: unverified.id };
    },
  };
}
