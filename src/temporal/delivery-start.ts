import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from '../workflows/webhook-delivery/messages';

/** Starts one delivery's workflow; what the event activities are handed (ActivityDeps.startDelivery). */
export type DeliveryStarter = (input: WebhookDeliveryInput) => Promise<void>;

/**
 * Issue 14: the activity that wrote an event starts its delivery workflows itself (workflow id =
 * delivery id, as the child workflows before had), so the payment's own history no longer carries
 * a child start, its acknowledgement, its completion and the workflow tasks between them for every
 * target. A delivery already started (the activity retried after a crash) is left alone: the ids
 * come from the delivery rows, which the retry finds again, so nothing is posted twice.
 */
export function createDeliveryStarter(client: Client, taskQueue: string): DeliveryStarter {
  return async (input) => {
    try {
      await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        taskQueue,
        workflowId: input.deliveryId,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  };
}
