import type { SearchAttributePair } from '@temporalio/common';
import type { PaymentContext } from './context';
import { startPaymentWorkflow, TEMPORAL_CALL_DEADLINE_MS } from './temporal-call';

/**
 * Of a create's TEMPORAL_CALL_DEADLINE_MS in all, what the removal of the row is given when the start
 * failed: a create during a Temporal outage answers within the deadline, clean-up included.
 */
const DISCARD_RESERVE_MS = 1000;

/** One payment's row and workflow, for the protocol below. */
export interface PaymentRecord<Row> {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: SearchAttributePair[];
  /** Inserts the row, invisible to lookups until its workflow runs. */
  insert(): Promise<Row>;
  /** Makes the row visible (the sweep does it for a row whose process died before this). */
  markStarted(): Promise<void>;
  /** Removes the invisible row when its workflow could not be started. */
  discard(): Promise<void>;
}

/**
 * The one protocol by which a payment comes to exist, for every face: the row first (invisible),
 * then its workflow, then the row made visible; if the start fails, the row is removed and the
 * caller gets `Unavailable`. A process that dies between the two steps leaves an invisible row that
 * the sweep (sweep.ts) resolves within one interval: made visible if its workflow exists, else removed.
 *
 * Fail-fast: from the insert on, the whole create takes at most TEMPORAL_CALL_DEADLINE_MS. The start
 * gets what is left of it minus DISCARD_RESERVE_MS; a removal that outlasts the reserve (Postgres slow
 * too) goes on without the caller, and should it fail the sweep removes the invisible row.
 */
export async function openPayment<Row extends object>(ctx: PaymentContext, record: PaymentRecord<Row>): Promise<Row> {
  const began = Date.now();
  const row = await record.insert();
  try {
    await startPaymentWorkflow(ctx, record, began + TEMPORAL_CALL_DEADLINE_MS - DISCARD_RESERVE_MS);
  } catch (err) {
    const discarded = record.discard().catch(() => {
      // The sweep removes an invisible row whose workflow does not exist.
    });
    const left = Math.max(0, began + TEMPORAL_CALL_DEADLINE_MS - Date.now());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([discarded, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
    clearTimeout(timer);
    throw err;
  }
  await record.markStarted();
  return row;
}
