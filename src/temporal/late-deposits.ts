import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Database } from '../db/client';
import { uncreditLog } from '../db/queries/chain-credits';
import { recordLateDeposit } from '../db/queries/late-deposits';
import type { DepositFact } from '../domain/deposit-fact';
import { PAYMENT_EXCEPTION_WORKFLOW, type PaymentExceptionInput } from '../workflows/payment-exception/messages';

export interface LateDepositSettings {
  /** How long an ended session's deposit address stays watched (LATE_DEPOSIT_WATCH_HOURS). */
  watchHours: number;
  taskQueue: string;
}

/**
 * Decisions §12: a log to the deposit address of a session whose run has closed. Rather than keep
 * every payment's run open for days in case money comes, the money gets its own small run: the
 * exception is recorded (keyed by the transfer, so a re-sent log or the provider's callback for the
 * same transfer finds it) and its workflow, id = exception id, tells the merchant and waits for an
 * operator. Both steps are idempotent, and the watcher re-sends after a crash before its cursor moves.
 */
export async function recordClosedRunDeposit(db: Database, temporal: Client, settings: LateDepositSettings, paymentId: string, fact: DepositFact): Promise<void> {
  if (fact.kind === 'removed') {
    // The exception stays (it was money an operator was told of); the credit no longer counts.
    await uncreditLog(db, paymentId, fact);
    return;
  }
  const exception = await recordLateDeposit(db, paymentId, fact);
  if (!exception) return;
  const input: PaymentExceptionInput = { exceptionId: exception.id, paymentId };
  try {
    await temporal.workflow.start(PAYMENT_EXCEPTION_WORKFLOW, {
      workflowId: exception.id,
      taskQueue: settings.taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
