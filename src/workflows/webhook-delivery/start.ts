import { ParentClosePolicy, patched, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { EmittedEvent } from '../../activities/webhooks';
import type { Feature } from '../engine-version';
import { deliverFirstLocally, deliverWithRetries, webhookDelivery } from './workflow';

/**
 * A delivery workflow per target of an emitted event (workflow id = delivery id), abandoned by its
 * parent so up to 72 h of retries outlive the payment's run. A delivery already started (a replayed
 * or repeated announcement) is left alone.
 */
export async function startDeliveries(emitted: EmittedEvent): Promise<void> {
  for (const deliveryId of emitted.deliveryIds) {
    try {
      await startChild(webhookDelivery, {
        workflowId: deliveryId,
        args: [{ deliveryId, retry: emitted.retry }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
}

/**
 * Deliveries run by the calling workflow itself (patch deliveries-in-run, issue 14): one durable
 * deliverWebhook activity per target, started without waiting, so the run moves on while the POST
 * goes out. Temporal's retries leave no history, so a failing receiver costs the run nothing but
 * staying open for the retry window; a succeeding one costs an activity's three events instead of a
 * workflow of its own (start, two workflow tasks, the activity, completion, and their visibility
 * records). Since patch delivery-first-attempt-local a receiver that answers the first attempt costs
 * one local activity's marker, and the durable activity only carries the retries. The run must not
 * end before `done()`.
 */
export interface InRunDeliveries {
  start(emitted: EmittedEvent): void;
  done(): boolean;
}

export function inRunDeliveries(markFailed: (deliveryId: string) => Promise<void>, feature: Feature = patched): InRunDeliveries {
  let open = 0;
  // An event announced again returns the same delivery ids; one activity per delivery (its id) in a run.
  const started = new Set<string>();
  return {
    start(emitted) {
      for (const deliveryId of emitted.deliveryIds) {
        if (started.has(deliveryId)) continue;
        started.add(deliveryId);
        open++;
        // deliverWithRetries settles every outcome of the POSTs itself; markFailed is retried until
        // the database is back, so a rejection here is the run being torn down, not a lost delivery.
        const input = { deliveryId, retry: emitted.retry };
        // Since patch delivery-first-attempt-local the first attempt is a local activity (workflow.ts).
        const delivered = feature('delivery-first-attempt-local') ? deliverFirstLocally(input, { markFailed }) : deliverWithRetries(input, { markFailed, activityIdIsDelivery: true });
        void delivered
          .catch(() => 'failed')
          .finally(() => open--);
      }
    },
    done: () => open === 0,
  };
}

/**
 * An event and its deliveries. With `inRun` and patch deliveries-in-run, the run's own activities
 * deliver (above). Otherwise, runs past patch deliveries-from-activity ask the event activity to
 * start the delivery workflows itself (src/temporal/delivery-start.ts): the same workflow ids, none
 * of the child-workflow events in this history. Runs recorded before both start them as children.
 */
export async function emitAndDeliver(
  emit: (options: { deliver: boolean }) => Promise<EmittedEvent | null>,
  feature: Feature = patched,
  inRun?: InRunDeliveries,
): Promise<void> {
  // null: the activity wrote no event after all (a completion it declined), so nothing to deliver.
  if (inRun && feature('deliveries-in-run')) {
    const emitted = await emit({ deliver: false });
    if (emitted) inRun.start(emitted);
    return;
  }
  if (feature('deliveries-from-activity')) {
    await emit({ deliver: true });
    return;
  }
  const emitted = await emit({ deliver: false });
  if (emitted) await startDeliveries(emitted);
}
