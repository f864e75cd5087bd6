import { ApplicationFailure, heartbeat, log } from '@temporalio/activity';
import type { Address, Hash, Hex, LocalAccount } from 'viem';
import { broadcastSigned, gasTermsFor, minedNonce, pendingNonce, receiptOf, signTransfer, type GasTerms } from '../chains/payouts';
import type { ChainSettings } from '../config';
import type { Database } from '../db/client';
import { silentBusinessLog, type BusinessEventName, type BusinessLog } from '../logging';
import { formatCrypto } from '../domain/money';
import { findSession } from '../db/queries/checkout-sessions';
import { readPosting, writePostings } from '../db/queries/ledger';
import { resolvePaymentException } from '../db/queries/payment-exceptions';
import { updateSimpleOrder } from '../db/queries/simple-orders';
import { confirmPayoutAndPost, confirmPayoutOnce } from '../db/queries/payout-confirmations';
import { markPayoutBroadcast, nextFreeNonce, NonceTaken, storeSignedPayout } from '../db/queries/payout-signing';
import {
  failPayouts,
  findPayout,
  findPayouts,
  listPayouts,
  lockPayout,
  reopenFailedSettlement,
  updatePayout,
  type PayoutRow,
} from '../db/queries/payouts';
import { explorerUrlFor } from '../domain/explorers';
import {
  isSettlementPayout,
  movedPostingOf,
  payoutConfirmed,
  payoutFee,
  payoutFeeMinedAgain,
  payoutRevertedFee,
  payoutUndone,
  type ConfirmedPayout,
  type Posting,
} from '../domain/ledger';
import { outgoingConfirmed } from '../domain/balances';
import { updatePaymentRefund } from '../db/queries/payment-refunds';
import { payoutChains, payoutImpossible } from './payout-chains';
import { givenUp, PAYOUT_FAILED, refusalBoundReached, refusalOf, refusedForNow } from './payout-failures';
import { planOrderPayouts } from './payout-plan';
import { planExceptionRefund, type RefundPlan } from './refund-plan';
import { confirmSettlementPayout } from './settlement';
import { listPayoutItems } from '../db/queries/settlement-payouts';

// Plan (rows) -> sign (the next free nonce, the raw tx stored with it in one statement) ->
// broadcast (the stored bytes, again on every retry) -> confirm (the receipt decides; ledger and
// lookup in one transaction). Each step stores its outcome in Postgres before the next, so any step
// can be retried from what is stored: sendPayouts runs them all in one activity (each attempt resumes
// where the rows say).

/** How long one confirm attempt watches for the receipt before it lets Temporal retry it. */
const CONFIRM_WATCH_MS = 8_000;
const POLL_MS = 250;
/** Nonces a signature may lose to other payouts of its sender before the attempt is retried. */
const NONCE_ATTEMPTS = 20;

/** Which payouts a sendPayouts call sends: an order's (planned on first use), or rows already planned (a settlement run's, a refund). */
export type PayoutBatch = { order: string } | { planned: string[] };
/** How far the batch's last payout is taken; every earlier one is confirmed first. */
export type PayoutGoal = 'broadcast' | 'confirmed';

export interface PayoutResult {
  kind: PayoutRow['kind'];
  status: 'confirmed';
  txHash: string;
}

const missing = (id: string) => payoutImpossible(`no payout ${id}`);

/** A payout whose transaction reverted on chain: final at once (the receipt is the chain's word). */
class RevertedPayout extends Error {
  constructor(
    readonly payoutId: string,
    readonly reason: string,
    /** Whether this attempt marked it failed (another attempt may have first). */
    readonly marked: boolean,
  ) {
    super(reason);
  }
}
const revertedFailure = (e: RevertedPayout) =>
  ApplicationFailure.nonRetryable(`payout ${e.payoutId} failed: ${e.reason}`, 'PayoutReverted');
const termsOf = (p: PayoutRow): GasTerms | null =>
  p.gasLimit && p.maxFeePerGas && p.maxPriorityFeePerGas
    ? { gasLimit: BigInt(p.gasLimit), maxFeePerGas: BigInt(p.maxFeePerGas), maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas) }
    : null;

/**
 * What a batch's payouts share, looked up once per batch: the merchant their postings name (none
 * for a simple order's or a settlement run's), and the signer of their sender (the treasury).
 */
interface BatchLookups {
  merchantOf(paymentId: string): Promise<string>;
  signerOf(payout: PayoutRow): Promise<LocalAccount>;
  /** The payments a settlement row carries (payout_items), with their merchants: read once per row. */
  itemsOf(payout: PayoutRow): ReturnType<typeof listPayoutItems>;
}

/**
 * The steps of a payout (sign, broadcast, confirm, mark reverted), each deciding from the stored row:
 * the activities below run them for a workflow, and the watcher's reorg re-check (payout-reorgs.ts)
 * runs the same broadcast for a payout whose block left the chain.
 */
export function payoutSteps({ db, chains: settings, log = silentBusinessLog }: { db: Database; chains: ChainSettings; log?: BusinessLog }) {
  const chains = payoutChains(settings);

  /**
   * A payout's business event; a simple order's has no merchant (merchantOf answers ''). A settlement
   * run's sweep or payout tells each payment's story: a line per payment it carries, with that
   * payment's part, so that an operator following one payment finds its sweep and its payout.
   */
  async function logPayout(event: BusinessEventName, row: PayoutRow, lookups: BatchLookups, extra: Record<string, unknown> = {}) {
    const common = {
      payoutId: row.id,
      kind: row.kind,
      network: row.network,
      asset: row.asset,
      to: row.toAddress,
      transactionHash: row.txHash,
      ...extra,
    };
    const parts = isSettlementPayout(row)
      ? (await lookups.itemsOf(row)).map((i) => ({
          paymentId: i.paymentId,
          merchantId: i.merchantId,
          amount: i.amountMicro,
          payoutAmount: BigInt(row.amount),
        }))
      : [
          {
            paymentId: row.paymentId,
            merchantId: (await lookups.merchantOf(row.paymentId)) || null,
            amount: BigInt(row.amount),
            payoutAmount: null,
          },
        ];
    for (const part of parts)
      log(event, {
        paymentId: part.paymentId,
        merchantId: part.merchantId,
        amount: formatCrypto(part.amount),
        ...(part.payoutAmount === null ? {} : { payoutAmount: formatCrypto(part.payoutAmount) }),
        ...common,
      });
  }

  function batchLookups(): BatchLookups {
    const merchants = new Map<string, Promise<string>>();
    const signers = new Map<string, Promise<LocalAccount>>();
    const items = new Map<string, ReturnType<typeof listPayoutItems>>();
    const once = <T>(known: Map<string, Promise<T>>, key: string, find: () => Promise<T>) => {
      let found = known.get(key);
      if (!found) known.set(key, (found = find()));
      return found;
    };
    return {
      merchantOf: (paymentId) => once(merchants, paymentId, () => findSession(db, paymentId).then((session) => session?.merchantId ?? '')),
      signerOf: (payout) => once(signers, payout.fromAddress, async () => chains.signerOf(payout)),
      itemsOf: (payout) => once(items, payout.id, () => listPayoutItems(db, payout.id)),
    };
  }

  /**
   * Signs (or, with `replacing`, signs anew after another transaction took the nonce) and stores it.
   * `known` is the row as this attempt read it (its terms, sender and amount never change); whether
   * it still needs a signature is decided by the statement that stores it.
   */
  async function sign(id: string, replacing: string | null, lookups: BatchLookups, known?: PayoutRow): Promise<PayoutRow> {
    const before = known ?? (await findPayout(db, id));
    if (!before) throw missing(id);
    if (before.signedTx && before.txHash !== replacing) return before;
    const client = chains.client(before.network);
    const account = await lookups.signerOf(before);
    const order = {
      token: (before.token as Address | null) ?? null,
      to: before.toAddress as Address,
      amount: BigInt(before.amount),
      data: before.callData as Hex | null,
    };
    const terms = termsOf(before) ?? (await gasTermsFor(client, account.address, order));
    const chainNext = await pendingNonce(client, account.address);
    // The next free nonce read, the transfer signed with it, and the row stored with it only
    // if it still needs a signature (storeSignedPayout). Another payout of the sender that stored the
    // same nonce first wins it; this one reads the next and signs again. Each loss is another
    // payout's success, so the bound is reached only under a crowd of concurrent signers, and the
    // attempt is retried.
    let stored: PayoutRow | undefined;
    for (let attempt = 1; ; attempt++) {
      const nonce = await nextFreeNonce(db, { network: before.network, sender: before.fromAddress, chainNext });
      const signed = await signTransfer(client, account, order, terms, nonce);
      try {
        stored = await storeSignedPayout(db, {
          id,
          replacing,
          nonce,
          changes: {
            signedTx: signed.signedTx,
            txHash: signed.txHash.toLowerCase(),
            gasLimit: terms.gasLimit.toString(),
            maxFeePerGas: terms.maxFeePerGas.toString(),
            maxPriorityFeePerGas: terms.maxPriorityFeePerGas.toString(),
            signedAt: new Date(),
          },
        });
        break;
      } catch (err) {
        if (!(err instanceof NonceTaken)) throw err;
        if (attempt >= NONCE_ATTEMPTS)
          throw ApplicationFailure.retryable(
            `${NONCE_ATTEMPTS} nonces of ${before.fromAddress} taken while signing ${id}`,
            'PayoutNonceBusy',
          );
      }
    }
    if (stored) return stored;
    const row = await findPayout(db, id);
    if (!row) throw missing(id);
    // A failed payout is signed again only after an operator's retry reopened it (reopenFailedSettlement).
    if (row.status === 'failed') throw givenUp(`${id} is failed: ${row.failureReason}`);
    return row;
  }

  /** Sends the stored bytes; a used nonce is ours (mined) or, once the chain has passed it without us, someone else's. */
  async function broadcast(row: PayoutRow, lookups: BatchLookups): Promise<PayoutRow> {
    const client = chains.client(row.network);
    let current = row;
    for (;;) {
      const outcome = await broadcastSigned(client, current.signedTx as Hex);
      if (outcome !== 'nonce-used' || (await receiptOf(client, current.txHash as Hash))) break;
      // No receipt, and the mined count is past our nonce: ours can never be mined. Sign anew.
      if ((await minedNonce(client, current.fromAddress as Address)) <= current.nonce!) {
        throw ApplicationFailure.retryable(
          `nonce ${current.nonce} of ${current.fromAddress} is taken by a pending transaction`,
          'PayoutNonceBusy',
        );
      }
      current = await sign(current.id, current.txHash, lookups);
    }
    if (current.status === 'signed') {
      await markPayoutBroadcast(db, current.id, new Date());
      current = { ...current, status: 'broadcast' };
      await logPayout('payout.sent', current, lookups, { nonce: current.nonce });
    }
    // A simple order's payout is dispatched once its transfer is broadcast; the order
    // then names the payout's transaction (a retry after a re-signing names the new one).
    if (current.kind === 'customer') {
      await updateSimpleOrder(db, current.paymentId, {
        payoutDispatched: true,
        transactionHash: current.txHash,
        explorerUrl: explorerUrlFor(current.network, current.txHash!),
      });
    }
    return current;
  }

  /** Records the confirmation once; returns the row as it now stands (another attempt may have confirmed it, or replaced its transaction). */
  async function confirm(row: PayoutRow, receipt: { blockNumber: bigint; feeWei: bigint }, lookups: BatchLookups): Promise<PayoutRow> {
    if (isSettlementPayout(row)) {
      const outcome = await confirmSettlementPayout(db, row, receipt, await lookups.itemsOf(row));
      if (outcome.confirmedNow) await logPayout('payout.confirmed', outcome.row, lookups, { blockNumber: receipt.blockNumber.toString() });
      return outcome.row;
    }
    const merchantId = await lookups.merchantOf(row.paymentId);
    // A call of the sweeper's `forward` (an order's payout, an exception's refund): the money left the deposit it names.
    const forwardedFrom = row.callData ? ((await lookups.itemsOf(row))[0]?.depositAddress ?? null) : null;
    // A transfer between two accounts in one statement (confirmPayoutAndPost), the postings made from
    // the row as this attempt holds it (what they name never changes for its transaction, `txHash`).
    // Refunds resolve or update other rows too: one transaction below.
    if (!OTHER_ROWS_AT_CONFIRMATION.has(row.kind)) {
      const changes = { blockNumber: receipt.blockNumber.toString(), feeWei: receipt.feeWei.toString(), confirmedAt: new Date() };
      const confirmed: PayoutRow = { ...row, ...changes, status: 'confirmed' };
      const txHash = row.txHash!;
      const confirmedNow = await confirmPayoutAndPost(db, {
        id: row.id,
        txHash,
        changes,
        postings: payoutConfirmed(
          { ...confirmed, merchantId, amount: BigInt(row.amount), txHash, feeWei: receipt.feeWei, forwardedFrom },
          chains.treasury(),
        ),
      });
      if (!confirmedNow) {
        // Confirmed by another attempt, or its transaction replaced: the row as it stands.
        const current = await findPayout(db, row.id);
        if (!current) throw missing(row.id);
        return current;
      }
      await logPayout('payout.confirmed', confirmed, lookups, { blockNumber: receipt.blockNumber.toString() });
      return confirmed;
    }
    const outcome = await db.transaction(async (tx) => {
      const changes = { blockNumber: receipt.blockNumber.toString(), feeWei: receipt.feeWei.toString(), confirmedAt: new Date() };
      const updated = await confirmPayoutOnce(tx, row.id, row.txHash!, changes);
      if (!updated) {
        // Confirmed by another attempt, or its transaction replaced: the row as it stands.
        const current = await findPayout(tx, row.id);
        if (!current) throw missing(row.id);
        return current;
      }
      const confirmed = {
        ...updated,
        merchantId,
        amount: BigInt(updated.amount),
        txHash: updated.txHash!,
        feeWei: receipt.feeWei,
        forwardedFrom,
      };
      await writePostings(tx, confirmedPostings(confirmed, chains.treasury()));
      // A completed payment's refund is done with its transfer, in the same transaction.
      if (row.kind === 'payment_refund' && updated.refundId)
        await updatePaymentRefund(tx, updated.refundId, {
          status: 'refunded',
          payoutId: updated.id,
          txHash: updated.txHash,
          failureReason: null,
          refundedAt: new Date(),
        });
      // The money is back with the customer: the exception is resolved with the transfer that did it.
      if (row.kind === 'refund' && updated.exceptionId) await resolvePaymentException(tx, updated.exceptionId, 'refunded');
      return { row: updated, confirmedNow: true };
    });
    if (!('confirmedNow' in outcome)) return outcome;
    await logPayout('payout.confirmed', outcome.row, lookups, { blockNumber: receipt.blockNumber.toString() });
    return outcome.row;
  }

  /**
   * A reverted transaction moved nothing but cost its sender the gas: the row is failed with its block
   * and fee (so a retry may sign it anew: its nonce is used up), and the fee posted, once.
   */
  async function markReverted(
    row: PayoutRow,
    receipt: { blockNumber: bigint; blockHash: string; feeWei: bigint },
  ): Promise<RevertedPayout> {
    const reason = `its transaction ${row.txHash} reverted in block ${receipt.blockNumber}`;
    const marked = await db.transaction(async (tx) => {
      const locked = await lockPayout(tx, row.id);
      if (!locked || locked.txHash !== row.txHash || locked.status === 'failed' || locked.status === 'confirmed') return false;
      await updatePayout(tx, row.id, {
        status: 'failed',
        failureReason: reason,
        blockNumber: receipt.blockNumber.toString(),
        feeWei: receipt.feeWei.toString(),
      });
      // A payout confirmed once, whose block a reorg took, mined again reverted: what its confirmation
      // posted is undone, and its fee is what the posted one differs by (its transaction was mined once).
      const posted = locked.confirmedAt ? await readPosting(tx, movedPostingOf(locked)) : undefined;
      await writePostings(
        tx,
        locked.confirmedAt
          ? [
              ...(posted ? [payoutUndone(posted)] : []),
              ...payoutFeeMinedAgain({
                ...locked,
                merchantId: '',
                amount: BigInt(locked.amount),
                txHash: locked.txHash!,
                feeWei: receipt.feeWei,
                postedFeeWei: BigInt(locked.feeWei ?? 0),
                blockHash: receipt.blockHash,
              }),
            ]
          : [payoutRevertedFee({ ...locked, txHash: locked.txHash!, feeWei: receipt.feeWei })],
      );
      return true;
    });
    return new RevertedPayout(row.id, reason, marked);
  }

  return { chains, batchLookups, sign, broadcast, confirm, markReverted, logPayout };
}

/** Kinds whose confirmation changes another row (the exception, the refund). */
const OTHER_ROWS_AT_CONFIRMATION: ReadonlySet<PayoutRow['kind']> = new Set(['refund', 'payment_refund']);

/**
 * A confirmed payout's postings: most move money between two accounts (domain/ledger.ts); a completed
 * payment's refund was drawn from the merchant's balance into `outgoing` when it was asked for, and
 * leaves it now. Each with the gas its sender paid.
 */
function confirmedPostings(p: ConfirmedPayout & { refundId: string | null }, treasury: string): Posting[] {
  if (p.kind !== 'payment_refund') return payoutConfirmed(p, treasury);
  if (!p.refundId) throw payoutImpossible(`payout ${p.id} names no refund`);
  const common = { paymentId: p.paymentId, merchantId: p.merchantId, asset: p.asset, network: p.network, txHash: p.txHash };
  return [outgoingConfirmed({ ...common, outgoingId: p.refundId, treasury: p.fromAddress, amountMicro: p.amount }), payoutFee(p)].filter(
    (posting) => posting.lines.length > 0,
  );
}

export function createPayoutActivities({ db, chains: settings, log: events }: { db: Database; chains: ChainSettings; log?: BusinessLog }) {
  const { chains, batchLookups, sign, broadcast, confirm, markReverted, logPayout } = payoutSteps({ db, chains: settings, log: events });

  /**
   * The receipt decides: confirmed once it has the network's confirmations (ledger postings and,
   * for the merchant's payout, the transaction's hash in the same database transaction); reverted
   * is a failure surfaced to the workflow, never retried. No receipt yet: the stored bytes are sent
   * again (a node may have dropped them; not when `justSent`) and, past the deadline, Temporal
   * retries the watch.
   */
  async function watchConfirmation(start: PayoutRow, deadline: number, justSent: boolean, lookups: BatchLookups): Promise<PayoutResult> {
    let row = start;
    if (!row.txHash) throw missing(row.id);
    if (row.status === 'failed') throw ApplicationFailure.nonRetryable(`payout ${row.id} failed: ${row.failureReason}`, 'PayoutReverted');
    const client = chains.client(row.network);
    let resent = justSent;
    while (row.status !== 'confirmed') {
      // Alive while it waits on the chain: a worker lost meanwhile misses its heartbeats, and the
      // server gives the payout to another worker after PAYOUT_ACTIVITY's heartbeat timeout.
      heartbeat();
      const receipt = await receiptOf(client, row.txHash as Hash);
      if (receipt?.status === 'reverted') throw await markReverted(row, receipt);
      if (receipt && receipt.confirmations >= BigInt(client.confirmations)) {
        row = await confirm(row, receipt, lookups);
        break;
      }
      if (!receipt && !resent) {
        row = await broadcast(row, lookups);
        resent = true;
      }
      if (Date.now() > deadline) throw ApplicationFailure.retryable(`payout ${row.id} not confirmed yet`, 'PayoutPending');
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return { kind: row.kind, status: 'confirmed', txHash: row.txHash! };
  }

  /** The batch's rows as they stand (none when its plan failed before writing any). */
  async function batchRows(batch: PayoutBatch): Promise<PayoutRow[]> {
    if ('order' in batch) return listPayouts(db, batch.order);
    return findPayouts(db, batch.planned);
  }

  /**
   * What a failed attempt of sendPayouts tells Temporal (payout-failures.ts): anything a retry may fix
   * goes back as it is; a refusal is retried until the bound; a refusal past it, an impossible payout
   * or a reverted transaction fails the batch's unsent rows with the reason (planned ones, and the
   * signed one whose broadcast was refused; never one that may be on its way) and is logged once, at
   * error level, by the attempt that failed them.
   */
  async function settleFailure(batch: PayoutBatch, err: unknown, broadcasting: string | null): Promise<unknown> {
    if (err instanceof ApplicationFailure && err.type === PAYOUT_FAILED) return err;
    const reverted = err instanceof RevertedPayout ? err : null;
    const impossible = err instanceof ApplicationFailure && err.nonRetryable ? err : null;
    const refusal = reverted || impossible ? null : refusalOf(err);
    if (!reverted && !impossible && refusal === null) return err;
    if (refusal !== null && !refusalBoundReached(settings.payoutRefusalWindowSeconds * 1000)) return refusedForNow(refusal);
    const reason = reverted?.reason ?? impossible?.message ?? refusal!;
    const rows = await batchRows(batch);
    const failed = await failPayouts(
      db,
      rows.map((r) => r.id),
      reason,
      broadcasting,
    );
    if (reverted?.marked || failed.length > 0 || rows.length === 0) {
      const paymentId = 'order' in batch ? batch.order : (rows[0]?.paymentId ?? null);
      log.error('payout failed', {
        payoutId: reverted?.payoutId ?? rows.find((r) => failed.includes(r.id))?.id ?? null,
        failedPayoutIds: failed,
        paymentId,
        network: rows[0]?.network ?? null,
        reason,
      });
      const lookups = batchLookups();
      const failedIds = new Set([...failed, ...(reverted?.marked ? [reverted.payoutId] : [])]);
      for (const row of rows) if (failedIds.has(row.id)) await logPayout('payout.failed', row, lookups, { reason });
    }
    if (reverted) return revertedFailure(reverted);
    return impossible ?? givenUp(reason);
  }

  async function planBatch(batch: PayoutBatch): Promise<PayoutRow[]> {
    if ('order' in batch) return planOrderPayouts(db, chains, batch.order, settings);
    const rows = await findPayouts(db, batch.planned);
    const absent = batch.planned.find((id) => !rows.some((r) => r.id === id));
    if (absent) throw missing(absent);
    return rows;
  }

  return {
    /** An exception's money back to `address` (checked by the caller and again here), planned once per attempt. */
    async planRefund(exceptionId: string, address: string): Promise<RefundPlan> {
      return planExceptionRefund(db, chains, settings, exceptionId, address);
    },

    /**
     * An operator's retry (POST /admin/v1/payouts/{id}/retry), run by the workflow that owns the
     * settlement before it sends the batch again: the failed rows reopened (reopenFailedSettlement says
     * which may be signed anew). Returns how many it reopened.
     */
    async reopenPayouts(paymentId: string): Promise<number> {
      return (await reopenFailedSettlement(db, paymentId)).length;
    },

    /**
     * The whole payout of a batch in one activity: planned (once), then each payout signed,
     * broadcast and confirmed in order, every step skipped when its row says it is done. An attempt
     * watches for receipts until its deadline, then lets Temporal retry; the retry resumes from the
     * rows, so a worker killed anywhere re-sends the same signed bytes and never pays twice.
     */
    async sendPayouts(batch: PayoutBatch, goal: PayoutGoal): Promise<void> {
      const deadline = Date.now() + CONFIRM_WATCH_MS;
      const lookups = batchLookups();
      // The signed row whose broadcast is under way: a refusal of that broadcast fails it too.
      let broadcasting: string | null = null;
      try {
        const rows = await planBatch(batch);
        for (const [i, row] of rows.entries()) {
          heartbeat();
          if (row.status === 'failed') throw givenUp(`${row.id} is failed: ${row.failureReason}`);
          const signed = await sign(row.id, null, lookups, row);
          const fresh = signed.status === 'signed';
          broadcasting = signed.id;
          const sent = fresh ? await broadcast(signed, lookups) : signed;
          broadcasting = null;
          if (goal === 'broadcast' && i === rows.length - 1) return;
          await watchConfirmation(sent, deadline, fresh, lookups);
        }
      } catch (err) {
        throw await settleFailure(batch, err, broadcasting);
      }
    },
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
