import type { SearchAttributePair } from '@temporalio/common';
import type { PaymentContext } from './context';
import { startPaymentWorkflow } from './temporal-call';

/** One payment's row and workflow, for the protocol below. */
export interface PaymentRecord<Row> {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: SearchAttributePair[];
  /** Inserts the row, invisible to lookups until its workflow runs. */
  insert(): Promise<Row>;
  /** Makes the row visible (the workflow's first activity does it too). */
  markStarted(): Promise<void>;
  /** Removes the invisible row when its workflow could not be started. */
  discard(): Promise<void>;
}

/**
 * The one protocol by which a payment comes to exist, for every face: the row first (invisible),
 * then its workflow, then the row made visible; if the start fails, the row is removed and the
 * caller gets `Unavailable`. A process that dies between the two steps leaves an invisible row that
 * the sweep (sweep.ts) resolves within one interval: made visible if its workflow exists, else removed.
 */
export async function openPayment<Row extends object>(ctx: PaymentContext, record: PaymentRecord<Row>): Promise<Row> {
  const row = await record.insert();
  try {
    await startPaymentWorkflow(ctx, record);
  } catch (err) {
    await record.discard();
    throw err;
  }
  await record.markStarted();
  return row;
}
