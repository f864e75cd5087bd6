import { ApplicationFailure, heartbeat, log } from '@temporalio/activity';
import type { Hash } from 'viem';
import { receiptOf } from '../chains/payouts';
import type { ChainSettings } from '../config';
import type { Database } from '../db/client';
import type { BusinessLog } from '../logging';
import { failPayouts, findPayouts, listPayouts, reopenFailedSettlement, type PayoutRow } from '../db/queries/payouts';
import { missingPayout, RevertedPayout, revertedFailure } from './payout-confirmation';
import { givenUp, PAYOUT_FAILED, refusalBoundReached, refusalOf, refusedForNow } from './payout-failures';
import { planOrderPayouts } from './payout-plan';
import { payoutSteps, type BatchLookups } from './payout-steps';
import { planExceptionRefund, type RefundPlan } from './refund-plan';

// Plan (rows) -> sign (the next free nonce, the raw tx stored with it in one statement) ->
// broadcast (the stored bytes, again on every retry) -> confirm (the receipt decides; ledger and
// lookup in one transaction). Each step stores its outcome in Postgres before the next, so any step
// can be retried from what is stored: sendPayouts runs them all in one activity (each attempt resumes
// where the rows say).

/** How long one confirm attempt watches for the receipt before it lets Temporal retry it. */
const CONFIRM_WATCH_MS = 8_000;
const POLL_MS = 250;

/** Which payouts a sendPayouts call sends: an order's (planned on first use), or rows already planned (a settlement run's, a refund). */
export type PayoutBatch = { order: string } | { planned: string[] };
/** How far the batch's last payout is taken; every earlier one is confirmed first. */
export type PayoutGoal = 'broadcast' | 'confirmed';

export interface PayoutResult {
  kind: PayoutRow['kind'];
  status: 'confirmed';
  txHash: string;
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
    if (!row.txHash) throw missingPayout(row.id);
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
    if (absent) throw missingPayout(absent);
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
