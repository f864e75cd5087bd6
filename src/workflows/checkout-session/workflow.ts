import { allHandlersFinished, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { initialSession, nextDeadline, type SessionEvent } from '../../domain/checkout-session';
import { CANCEL_REASONS, isTerminal } from '../../domain/payment-status';
import { Inbox, onceEach } from '../decision-loop';
import { inRunDeliveries } from '../webhook-delivery/start';
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
import { closeProviderPayments } from '../closing';
import { sessionPorts, sessionRecords } from './ports';
import { handleSessionEvent } from './session-loop';

/**
 * One checkout session, from creation to a terminal state. The
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
  const deliveries = inRunDeliveries(sessionRecords.markDeliveryFailed);
  const inbox = new Inbox<SessionEvent>();
  const news = onceEach();

  setHandler(stateQuery, () => ({ status: session.status, providerPaymentId: session.providerPaymentId, lateEvents: session.lateEvents }));
  setHandler(depositSignal, (fact) => {
    if (news.deposit(fact)) inbox.push({ kind: 'deposit', fact });
  });
  setHandler(providerUpdateSignal, (fact) => {
    if (news.providerEvent(fact.eventId)) inbox.push({ kind: 'provider', fact, nowMs: Date.now() });
  });
  // Cancel and expire wait for their own turn in the queue, so one that loses the race to a provider
  // fact still gets its answer: the status the session ended in.
  let requested = 0;
  let handled = 0;
  const inTurn = async (event: SessionEvent) => {
    const ticket = ++requested;
    inbox.push(event);
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

  const ports = sessionPorts({ paymentId: id, deliveries, status: () => session.status });
  const handle = async (event: SessionEvent) => {
    session = await handleSessionEvent(session, event, ports);
    if (event.kind === 'cancel' || event.kind === 'expire') handled++;
  };
  const drain = async () => {
    while (inbox.size > 0) await handle(inbox.shift()!);
  };

  // The row is stored once this run exists (payments/open-payment.ts); nothing here reads it before a fact arrives.
  while (!isTerminal(session.status)) await handle(await inbox.next(nextDeadline(session), (nowMs) => ({ kind: 'deadline', nowMs })));
  // A session that ended failed after a decline may hold a retry the customer opened and left.
  if (session.status !== 'completed') await closeProviderPayments(id, null);
  // Facts that arrived while the last transition was written are handled too (late money is an exception).
  await drain();
  // The completion credited the merchant's balance; a settlement run pays it (docs/settlement.md).
  // The run ends once its deliveries are done; facts arriving meanwhile are handled as above.
  while (!deliveries.done() || inbox.size > 0) {
    await condition(() => deliveries.done() || inbox.size > 0);
    await drain();
  }
  await condition(allHandlersFinished);
  return { status: session.status, providerPaymentId: session.providerPaymentId, lateEvents: session.lateEvents };
}
