import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ChainProofActivities } from '../../activities/chain-proof';
import type { CheckoutActivities } from '../../activities/checkout-session';
import type { ProviderClosingActivities } from '../../activities/provider-closing';
import type { SessionTransitionActivities } from '../../activities/session-transitions';
import type { WebhookActivities } from '../../activities/webhooks';
import { initialSession, nextDeadline, type SessionEvent } from '../../domain/checkout-session';
import { CANCEL_REASONS, isTerminal } from '../../domain/payment-status';
import { LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { linkPaidSignal } from '../payment-link/messages';
import { PAYMENT_EXCEPTION_WORKFLOW, type PaymentExceptionInput } from '../payment-exception/messages';
import { completedAttributes, PaymentStatusKey } from '../search-attributes';
import { emitAndDeliver, inRunDeliveries } from '../webhook-delivery/start';
import {
  cancelUpdate,
  depositSignal,
  expireUpdate,
  providerUpdateSignal,
  stateQuery,
  type CancelRequest,
  type CheckoutSessionInput,
  type CheckoutSessionState,
} from './messages';
import { payOutSession } from './payout';
import { handleSessionEvent, type SessionPorts } from './session-loop';

// The session's database writes are local activities (activity-options.ts); a transition's write and
// its event are one of them (activities/session-transitions.ts).
const steps = proxyLocalActivities<SessionTransitionActivities>(LOCAL_DATABASE_ACTIVITY);
const records = proxyLocalActivities<CheckoutActivities>(LOCAL_DATABASE_ACTIVITY);
const events = proxyLocalActivities<WebhookActivities>(LOCAL_DATABASE_ACTIVITY);
const proof = proxyLocalActivities<ChainProofActivities>(LOCAL_DATABASE_ACTIVITY);
// Closing a provider payment (decisions §12) is worth retrying for a while, never worth failing the
// session for: a payment the provider still takes arrives as money and becomes an exception.
const closing = proxyActivities<ProviderClosingActivities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 12,
    nonRetryableErrorTypes: ['ProviderRejected'],
  },
});

/**
 * One checkout session, from creation to a terminal state, then its payout (decisions §6, §11). The
 * rules are domain/checkout-session.ts; this loop takes messages and deadlines to them and runs what
 * they decide through activities, every write idempotent, so a crash anywhere replays to the same result.
 */
export async function checkoutSession(input: CheckoutSessionInput): Promise<CheckoutSessionState> {
  const id = input.paymentId;
  let session = initialSession({
    chainVerified: input.verification === 'chain',
    expiresAtMs: Date.parse(input.expiresAt),
    proofTimeoutMs: input.providerProofTimeoutMs ?? 3_600_000,
  });
  const deliveries = inRunDeliveries(events.markDeliveryFailed);
  const queue: SessionEvent[] = [];
  // Watchers and providers re-send (at least once): each log in its block, each provider event, once.
  const seen = new Set<string>();
  const once = (key: string) => !seen.has(key) && !!seen.add(key);

  setHandler(stateQuery, () => ({ status: session.status, providerPaymentId: session.providerPaymentId, lateEvents: session.lateEvents }));
  setHandler(depositSignal, (fact) => {
    if (!once(`${fact.kind}:${fact.network}:${fact.transactionHash.toLowerCase()}:${fact.logIndex}@${fact.blockHash.toLowerCase()}`))
      return;
    // A removal followed by the same log in the same block again (re-mined) must credit again.
    if (fact.kind === 'removed')
      seen.delete(`credited:${fact.network}:${fact.transactionHash.toLowerCase()}:${fact.logIndex}@${fact.blockHash.toLowerCase()}`);
    queue.push({ kind: 'deposit', fact });
  });
  setHandler(providerUpdateSignal, (fact) => {
    if (once(`provider:${fact.eventId}`)) queue.push({ kind: 'provider', fact, nowMs: Date.now() });
  });
  // Cancel and expire wait for their own turn in the queue, so one that loses the race to a provider
  // fact still gets its answer: the status the session ended in.
  let requested = 0;
  let handled = 0;
  const inTurn = async (event: SessionEvent) => {
    const ticket = ++requested;
    queue.push(event);
    await condition(() => handled >= ticket);
    return session.status;
  };
  setHandler(cancelUpdate, (request?: CancelRequest) => inTurn(request ? { kind: 'cancel', reason: request.reason } : { kind: 'cancel' }), {
    validator: (request?: CancelRequest) => {
      if (session.status !== 'pending') throw ApplicationFailure.nonRetryable(`the session is ${session.status}`, 'NotCancelable');
      if (request && !CANCEL_REASONS.includes(request.reason))
        throw ApplicationFailure.nonRetryable('unknown cancel reason', 'NotCancelable');
    },
  });
  setHandler(expireUpdate, () => inTurn({ kind: 'expire' }), {
    validator: () => {
      if (session.status !== 'pending') throw ApplicationFailure.nonRetryable(`the session is ${session.status}`, 'NotExpirable');
    },
  });

  const ports: SessionPorts = {
    move: async ({ move }) => {
      await emitAndDeliver(() => steps.moveSession(id, move), deliveries);
      upsertSearchAttributes([{ key: PaymentStatusKey, value: session.status }]);
    },
    recordShortfall: async ({ claim, at }) => (await proof.recordShortfall(id, claim, at))?.exceptionId ?? null,
    credit: ({ fact }) => proof.creditDeposit(id, fact),
    uncredit: async ({ fact }) => (await proof.uncreditDeposit(id, fact)).creditedMicro,
    recordLateDeposit: ({ fact }) => proof.recordLateDeposit(id, fact),
    recordLateSuccess: ({ fact, status }) => records.flagLateSuccess(id, fact, status),
    completeFromChain: async ({ providerPaymentId }) => {
      let completion: Awaited<ReturnType<typeof steps.completeSessionFromChain>> = null;
      await emitAndDeliver(
        async () => (completion = await steps.completeSessionFromChain(id, providerPaymentId))?.emitted ?? null,
        deliveries,
      );
      return completion;
    },
    completeFromProvider: ({ fact }) => records.recordCompletion(id, fact),
    announceException,
    markCompleted: async (completion) => upsertSearchAttributes(completedAttributes(completion)),
    linkPaid: async (linkId) => {
      await closeProviderPayments(linkId);
      // Ends the link's run now rather than at its expiry; Postgres already says paid.
      await getExternalWorkflowHandle(linkId)
        .signal(linkPaidSignal, { sessionId: id })
        .catch(() => undefined);
    },
  };
  const handle = async (event: SessionEvent) => {
    session = await handleSessionEvent(session, event, ports);
    if (event.kind === 'cancel' || event.kind === 'expire') handled++;
  };
  const drain = async () => {
    while (queue.length > 0) await handle(queue.shift()!);
  };

  await records.openSession(id);
  // One timer per deadline for the whole run, however often a message wakes it.
  const timers = new Map<number, Promise<void>>();
  while (!isTerminal(session.status)) {
    const deadline = nextDeadline(session);
    if (queue.length === 0 && deadline > Date.now()) {
      if (!timers.has(deadline)) timers.set(deadline, sleep(deadline - Date.now()));
      // A wait the timer ended leaves its condition pending; the next message resolves it, harmlessly.
      await Promise.race([condition(() => queue.length > 0), timers.get(deadline)]);
    }
    await handle(queue.shift() ?? { kind: 'deadline', nowMs: Date.now() });
  }
  // A session that ended failed after a decline may hold a retry the customer opened and left.
  if (session.status === 'canceled' || session.status === 'expired' || session.status === 'failed') await closeProviderPayments(null);
  // Facts that arrived while the last transition was written are handled too (late money is an exception).
  await drain();
  // Decisions §11: the money a chain-verified completion proved is paid out from this run; a failed
  // payout waits for an operator's retry, handling facts as they come meanwhile.
  if (session.status === 'completed' && session.chainVerified) {
    await payOutSession(id, deliveries, { pending: () => queue.length > 0, handle: drain });
  }
  // The run ends once its deliveries are done; facts arriving meanwhile are handled as above.
  while (!deliveries.done() || queue.length > 0) {
    await condition(() => deliveries.done() || queue.length > 0);
    await drain();
  }
  await condition(allHandlersFinished);
  return { status: session.status, providerPaymentId: session.providerPaymentId, lateEvents: session.lateEvents };

  /**
   * Decisions §12: the exception's own workflow tells the merchant and waits for an operator; it
   * outlives this run (money may be resolved long after the session ended).
   */
  async function announceException(exceptionId: string) {
    const args: [PaymentExceptionInput] = [{ exceptionId, paymentId: id }];
    await startChild(PAYMENT_EXCEPTION_WORKFLOW, {
      workflowId: exceptionId,
      args,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    }).catch((err: unknown) => {
      // The same exception announced again (a second report of one arrival): its run already exists.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    });
  }

  /** Decisions §12: once the session ended unpaid, or its link was paid, nobody may pay what it opened. */
  async function closeProviderPayments(linkId: string | null) {
    try {
      if (linkId) await closing.closeLinkSiblings(linkId, id);
      else await closing.closeSessionProviderPayment(id);
    } catch (err) {
      log.warn('provider payment not closed', { paymentId: id, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
