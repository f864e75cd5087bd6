import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { BlockNotFoundError, TransactionReceiptNotFoundError, type Hash } from 'viem';
import { payoutSteps } from '../activities/payout-steps';
import type { BusinessLog } from '../logging';
import type { ChainClient } from '../chains/clients';
import { logStanding, transactionStanding } from '../chains/log-standing';
import { receiptOf } from '../chains/payouts';
import type { ChainSettings } from '../config';
import type { Database } from '../db/client';
import { listRecentCredits, moveCredit, uncreditLog, type ChainCreditRow } from '../db/queries/chain-credits';
import { findSession } from '../db/queries/checkout-sessions';
import { readPosting, writePostings } from '../db/queries/ledger';
import { findExceptionByArrival, findOpenExceptionHoldingLog, recordPaymentException } from '../db/queries/payment-exceptions';
import { listRecentlyConfirmedPayouts, lockReopenedPayout, reopenReorgedPayout } from '../db/queries/payout-confirmations';
import { updatePayout, type PayoutRow } from '../db/queries/payouts';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { depositLogKey, type DepositFact } from '../domain/deposit-fact';
import { logArrivalKey } from '../domain/exceptions';
import { newExceptionId } from '../domain/ids';
import { movedPostingOf, payoutFeeMinedAgain, payoutUndone } from '../domain/ledger';
import { depositSignal } from '../workflows/checkout-session/messages';
import { recordException } from '../payments/exception-runs';

// A reorg deeper than the confirmations takes back blocks the
// watcher has already credited (it never reads a confirmed block again) and payouts already
// confirmed. So each network's watcher re-checks, every `intervalMs`, what it credited and what we
// paid out within the last REORG_WATCH_HOURS, in a few batched RPC requests:
// - a credited log still in its block: nothing; mined again elsewhere: its row follows the new block;
//   gone: the credit is `removed`, and when its payment had completed (or the log was an exception's
//   money, alone or with others) it is a `reorged` exception for an operator, announced by its own
//   run as a late deposit is;
// - a confirmed payout whose transaction is gone: `broadcast` again with its exact signed bytes (one
//   nonce, one hash: it is mined once at most, which also fills the sender's nonce gap); a nonce
//   another transaction took is settled by the payout's own broadcast (a new signature only when its
//   hash has no receipt); once mined again it is confirmed again, its postings kept (see
//   domain/ledger.ts payoutFeeMinedAgain and payoutUndone for what is posted beside them).

export interface ReorgWatchSettings {
  /** REORG_WATCH_HOURS: how long after it was recorded a credit or a confirmed payout is re-checked; 0 turns the re-check off. */
  windowHours: number;
  /** How often each network re-checks (default 30 s: a few batched requests per network, whatever the traffic). */
  intervalMs?: number;
  chains: ChainSettings;
  taskQueue: string;
}

/** Rows re-checked per pass and kind: bounds one pass's requests; the freshest (the likeliest to be taken back) first. */
const ROWS_PER_PASS = 500;

export interface ReorgCheckResult {
  /**
   * The lowest height where a credited log's block was replaced (the log gone, or moved): the watcher
   * reads again from there, as it never reads a block below its cursor again, so a transfer mined
   * (again) at those heights of the new chain is seen.
   */
  lowestChanged: bigint | null;
}

export function createReorgCheck(deps: {
  db: Database;
  temporal: Client;
  settings: ReorgWatchSettings;
  client: ChainClient;
  log: (m: string) => void;
  /** Business events (payout.sent, payout.confirmed, payout.failed), as the payout activities write them. */
  businessLog?: BusinessLog;
}) {
  const { db, temporal, settings, client, log } = deps;
  const steps = payoutSteps({ db, chains: settings.chains, log: deps.businessLog });
  const network = client.network;

  async function receiptOrNull(hash: string) {
    try {
      return await client.publicClient.getTransactionReceipt({ hash: hash as Hash });
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) return null;
      throw err;
    }
  }
  async function blockAt(blockNumber: bigint) {
    try {
      return await client.publicClient.getBlock({ blockNumber });
    } catch (err) {
      if (err instanceof BlockNotFoundError) return null;
      throw err;
    }
  }

  /**
   * A credited log whose block left the chain. The exception first (recorded once per log, and its
   * run started idempotently), then the credit removed: a crash in between finds the log still
   * credited on the next pass and does both again, finding the same exception.
   */
  async function takeBack(row: ChainCreditRow) {
    const session = await findSession(db, row.paymentId);
    const order = session ? undefined : await findSimpleOrder(db, row.paymentId);
    const paymentStatus = session?.status ?? order?.status ?? null;
    const completed = session ? session.status === 'completed' : order?.status === 'settled';
    // The exception whose money this log was: its own (late, duplicate), or one holding it with others (underpaid).
    const arrival =
      (await findExceptionByArrival(db, row.paymentId, logArrivalKey(row))) ??
      (await findOpenExceptionHoldingLog(db, row.paymentId, depositLogKey(row)));
    if (paymentStatus !== null && (completed || row.state === 'wrong_asset' || arrival)) {
      const exception = await recordException({ temporal, taskQueue: settings.taskQueue }, row.paymentId, () =>
        recordPaymentException(db, {
          id: newExceptionId(),
          paymentKind: session ? 'checkout_session' : 'simple_order',
          paymentId: row.paymentId,
          kind: 'reorged',
          arrivalKey: `reorg:${logArrivalKey(row)}`,
          amountMicro: row.amountMicro,
          ...(row.state === 'wrong_asset' ? { token: row.token, asset: row.asset } : {}),
          references: {
            transactionHash: row.transactionHash,
            log: depositLogKey(row),
            blockNumber: row.blockNumber.toString(),
            blockHash: row.blockHash,
            depositAddress: row.toAddress,
            from: row.fromAddress,
            token: row.token,
            asset: row.asset,
            paymentStatus,
            ...(arrival ? { exceptionId: arrival.id, exceptionKind: arrival.kind } : {}),
          },
        }),
      );
      if (exception?.inserted)
        log(
          `chain watcher ${network}: log ${depositLogKey(row)} of ${row.paymentId} (${paymentStatus}) left the chain with block ${row.blockNumber}: exception ${exception.id} (reorged)`,
        );
    }
    await uncreditLog(db, row.paymentId, row);
    // A run still open keeps its own count of the credits: told as the watcher tells a removal within the confirmations.
    const fact: DepositFact = {
      kind: 'removed',
      network: row.network,
      transactionHash: row.transactionHash,
      logIndex: row.logIndex,
      asset: row.asset,
      token: row.token,
      from: row.fromAddress,
      to: row.toAddress,
      amountMicro: row.amountMicro.toString(),
      blockNumber: row.blockNumber.toString(),
      blockHash: row.blockHash,
    };
    try {
      await temporal.workflow.getHandle(row.paymentId).signal(depositSignal, fact);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }

  async function checkCredits(): Promise<bigint | null> {
    const credits = await listRecentCredits(db, network, settings.windowHours, ROWS_PER_PASS);
    if (credits.length === 0) return null;
    const hashes = [...new Set(credits.map((c) => c.transactionHash))];
    const heights = [...new Set(credits.map((c) => c.blockNumber))];
    // Concurrent calls on a batching client: one HTTP request (or a few) for the whole pass.
    const [receipts, blocks] = await Promise.all([Promise.all(hashes.map(receiptOrNull)), Promise.all(heights.map(blockAt))]);
    const receiptOf = new Map(hashes.map((h, i) => [h, receipts[i] ?? null]));
    const blockOf = new Map(heights.map((n, i) => [n, blocks[i] ?? null]));
    let lowestChanged: bigint | null = null;
    const changed = (height: bigint) => {
      if (lowestChanged === null || height < lowestChanged) lowestChanged = height;
    };
    for (const row of credits) {
      const receipt = receiptOf.get(row.transactionHash) ?? null;
      const standing = logStanding(
        { ...row, to: row.toAddress },
        {
          receipt: receipt && {
            blockNumber: receipt.blockNumber,
            blockHash: receipt.blockHash,
            status: receipt.status,
            logs: receipt.logs.map((l) => ({ logIndex: l.logIndex, address: l.address, topics: l.topics, data: l.data })),
          },
          blockHashAtHeight: blockOf.get(row.blockNumber)?.hash ?? null,
        },
      );
      if (standing.kind === 'moved') {
        await moveCredit(db, row, standing);
        changed(standing.blockNumber < row.blockNumber ? standing.blockNumber : row.blockNumber);
      }
      if (standing.kind !== 'gone') continue;
      await takeBack(row);
      changed(row.blockNumber);
    }
    return lowestChanged;
  }

  /** A reopened payout's transaction mined again: confirmed again, or failed if it reverted; what differs posted (payoutFeeMinedAgain, payoutUndone). */
  async function settleMinedAgain(
    row: PayoutRow,
    receipt: { status: 'success' | 'reverted'; blockNumber: bigint; blockHash: string; feeWei: bigint },
    lookups: ReturnType<typeof steps.batchLookups>,
  ) {
    const merchantId = await lookups.merchantOf(row.paymentId);
    const settled = await db.transaction(async (tx) => {
      const before = await lockReopenedPayout(tx, row.id, row.txHash!);
      if (!before) return false;
      const reverted = receipt.status === 'reverted';
      await updatePayout(tx, row.id, {
        status: reverted ? 'failed' : 'confirmed',
        blockNumber: receipt.blockNumber.toString(),
        feeWei: receipt.feeWei.toString(),
        ...(reverted
          ? {
              failureReason: `its transaction ${row.txHash} reverted in block ${receipt.blockNumber}, sent again after a reorg took its first block`,
            }
          : { confirmedAt: new Date() }),
      });
      const postedFeeWei = BigInt(before.feeWei ?? 0);
      // Reverted: what its confirmation moved (a sweep, a payout, a forward) is taken back as posted.
      const moved = reverted ? await readPosting(tx, movedPostingOf(before)) : undefined;
      await writePostings(tx, [
        ...(moved ? [payoutUndone(moved)] : []),
        ...payoutFeeMinedAgain({
          ...before,
          merchantId,
          amount: BigInt(before.amount),
          txHash: before.txHash!,
          feeWei: receipt.feeWei,
          postedFeeWei,
          blockHash: receipt.blockHash,
        }),
      ]);
      log(`chain watcher ${network}: payout ${row.id} (${row.kind}) mined again in block ${receipt.blockNumber}: ${receipt.status}`);
      return true;
    });
    // After the commit, and only by the pass that settled it, as the payout activities log theirs.
    if (!settled) return;
    if (receipt.status === 'reverted') {
      await steps.logPayout('payout.failed', row, lookups, {
        reason: `reverted in block ${receipt.blockNumber}, sent again after a reorg`,
      });
    } else {
      await steps.logPayout('payout.confirmed', row, lookups, { blockNumber: receipt.blockNumber.toString(), afterReorg: true });
    }
  }

  async function checkPayouts(): Promise<void> {
    const sent = await listRecentlyConfirmedPayouts(db, network, settings.windowHours, ROWS_PER_PASS);
    if (sent.length === 0) return;
    const receipts = await Promise.all(sent.map((p) => receiptOf(client, p.txHash as Hash)));
    // A receipt says mined (transactionStanding): the block at the recorded height is read only for a
    // confirmed payout the node has no receipt of, not for every payout of every pass.
    const heights = [
      ...new Set(
        sent.filter((p, i) => p.status === 'confirmed' && p.blockNumber !== null && !receipts[i]).map((p) => BigInt(p.blockNumber!)),
      ),
    ];
    const blocks = await Promise.all(heights.map(blockAt));
    const blockOf = new Map(heights.map((n, i) => [n, blocks[i] ?? null]));
    const lookups = steps.batchLookups();
    // In sending order (a sweep before the payouts that spend what it moved, then by nonce): each send may need the one before it mined.
    for (const [i, row] of sent.entries()) {
      const receipt = receipts[i] ?? null;
      try {
        if (row.status === 'confirmed') {
          const block = row.blockNumber === null ? null : blockOf.get(BigInt(row.blockNumber));
          const standing = transactionStanding(row.txHash!, {
            hasReceipt: receipt !== null,
            transactionsAtHeight: block ? block.transactions : null,
          });
          if (standing !== 'gone') continue;
          const reopened = await reopenReorgedPayout(db, row.id, row.txHash!);
          if (!reopened) continue;
          log(
            `chain watcher ${network}: payout ${row.id} (${row.kind}) left the chain with block ${row.blockNumber}: its transaction ${row.txHash} is sent again`,
          );
          await steps.broadcast(reopened, lookups);
          await steps.logPayout('payout.sent', reopened, lookups, { nonce: reopened.nonce, afterReorg: true });
        } else if (!receipt) {
          await steps.broadcast(row, lookups);
        } else if (receipt.confirmations >= BigInt(client.confirmations)) {
          await settleMinedAgain(row, receipt, lookups);
        }
      } catch (err) {
        // Sent again on the next pass (a payout waiting for its sweep, a node refusing for now).
        log(`chain watcher ${network}: payout ${row.id} after a reorg: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  return async function check(): Promise<ReorgCheckResult> {
    const lowestChanged = await checkCredits();
    await checkPayouts();
    return { lowestChanged };
  };
}
