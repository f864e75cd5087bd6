import { ParentClosePolicy, patched, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { EmittedEvent } from '../../activities/webhooks';
import type { Feature } from '../engine-version';
import { webhookDelivery } from './workflow';

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
 * An event and its deliveries. Runs past patch deliveries-from-activity ask the event activity to
 * start the delivery workflows itself (src/temporal/delivery-start.ts): the same workflow ids, none
 * of the child-workflow events in this history, and one workflow task less before the first POST.
 * Runs recorded before it start them as children, as they did.
 */
export async function emitAndDeliver(emit: (options: { deliver: boolean }) => Promise<EmittedEvent>, feature: Feature = patched): Promise<void> {
  if (feature('deliveries-from-activity')) {
    await emit({ deliver: true });
    return;
  }
  await startDeliveries(await emit({ deliver: false }));
}
