import { ParentClosePolicy, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { EmittedEvent } from '../../activities/webhooks';
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
