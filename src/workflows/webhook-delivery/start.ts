import type { EmittedEvent } from '../../activities/webhooks';
import { deliverFirstLocally, retryAfterFirstAttempt } from './workflow';

/**
 * The one way a payment's events reach their targets: the run that emitted the event
 * delivers it itself, one delivery per target, started without waiting so the run moves on while the
 * POST goes out. A receiver that answers the first attempt costs the run one local activity's marker,
 * or nothing where the activity that wrote the event made the attempt (a session's transitions);
 * the retries are one durable activity whose Temporal retry policy is the schedule, so they add
 * nothing to the run's history (webhook-delivery/workflow.ts). The run must not end before `done()`.
 * An operator's resend and the sweep's orphans use the same attempts in a run of their own
 * (webhookDelivery).
 */
export interface InRunDeliveries {
  start(emitted: EmittedEvent): void;
  done(): boolean;
}

export function inRunDeliveries(markFailed: (deliveryId: string) => Promise<void>): InRunDeliveries {
  let open = 0;
  // An event announced again returns the same delivery ids; one delivery per id in a run.
  const started = new Set<string>();
  return {
    start(emitted) {
      for (const deliveryId of emitted.deliveryIds) {
        if (started.has(deliveryId)) continue;
        started.add(deliveryId);
        // The emitting activity made the first attempt (withFirstAttempts): only a failed one goes on.
        if (emitted.toRetry && !emitted.toRetry.includes(deliveryId)) continue;
        open++;
        const input = { deliveryId, retry: emitted.retry };
        // Every outcome of the POSTs is settled inside (markFailed is retried until the database is
        // back), so a rejection here is the run being torn down, not a lost delivery.
        void (emitted.toRetry ? retryAfterFirstAttempt(input, { markFailed }) : deliverFirstLocally(input, { markFailed }))
          .catch(() => 'failed')
          .finally(() => open--);
      }
    },
    done: () => open === 0,
  };
}

/** An event written by `emit` (null: no event after all, a completion it declined), and its deliveries. */
export async function emitAndDeliver(emit: () => Promise<EmittedEvent | null>, deliveries: InRunDeliveries): Promise<void> {
  const emitted = await emit();
  if (emitted) deliveries.start(emitted);
}
