import type { SearchAttributePair } from '@temporalio/common';
import { postgresCode } from '../domain/sql-errors';
import type { PaymentContext } from './context';
import { callTemporal, startPaymentWorkflow, TEMPORAL_CALL_DEADLINE_MS } from './temporal-call';

/**
 * Of a create's TEMPORAL_CALL_DEADLINE_MS in all, what is kept back from the start's deadline: the
 * call answers a little after its deadline (temporal-call.ts), and the request must still answer
 * within the whole (a create during a Temporal outage: 503 within 5 s).
 */
const START_RESERVE_MS = 500;

/** One payment's workflow and row, for the protocol below. */
export interface PaymentRecord<Row> {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: SearchAttributePair[];
  /** Stores the row, once its workflow runs. */
  insert(): Promise<Row>;
}

/**
 * The one protocol by which a payment comes to exist, for every face: its workflow first, then its
 * row. A row exists only once its run does, so every payment a merchant, a customer or the chain
 * watcher can find has one, and nothing is left half made for a sweep to resolve. The run waits for
 * facts before it touches the row, and none reaches it before the row is stored: signals come
 * through routes that find the row first, and the watcher watches the rows' deposit addresses.
 *
 * Fail-fast: a start that fails has stored nothing; the caller gets `Unavailable` within
 * TEMPORAL_CALL_DEADLINE_MS. An insert that fails after the start leaves a run without a row: when
 * Postgres refused the statement (nothing stored), the run is ended at once, within what is left of
 * the deadline; when the outcome is unknown (the connection lost, the statement's deadline passed),
 * it is left as it is: with its row it goes on as any payment, without one it ends at its expiry,
 * when the expiry finds no row to write (a failed run an operator can see in Temporal).
 */
export async function openPayment<Row extends object>(ctx: PaymentContext, record: PaymentRecord<Row>): Promise<Row> {
  const deadline = Date.now() + TEMPORAL_CALL_DEADLINE_MS - START_RESERVE_MS;
  await startPaymentWorkflow(ctx, record, deadline);
  try {
    return await record.insert();
  } catch (err) {
    if (postgresCode(err) !== undefined && Date.now() < deadline) {
      const handle = ctx.temporal.workflow.getHandle(record.workflowId);
      await callTemporal(
        ctx.temporal,
        record.workflowId,
        () => handle.terminate('its row was refused by Postgres'),
        undefined,
        deadline,
      ).catch(() => {
        // Left to end at its expiry, as above.
      });
    }
    throw err;
  }
}
