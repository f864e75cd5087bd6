import {
  allHandlersFinished,
  ApplicationFailure,
  log,
  condition,
  getExternalWorkflowHandle,
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
import { CANCEL_REASONS, canTransition, checkoutSourcesOf, isTerminal, type CancelReason, type PaymentStatus } from '../../domain/payment-status';
import { statusAfter, type SessionMove } from '../../domain/session-move';
import type { ChainProofActivities, ProviderClaim } from '../../activities/chain-proof';
import type { CheckoutActivities } from '../../activities/checkout-session';
import type { ProviderClosingActivities } from '../../activities/provider-closing';
import type { ChainCompletion, SessionTransitionActivities } from '../../activities/session-transitions';
import type { WebhookActivities } from '../../activities/webhooks';
import { DATABASE_ACTIVITY, LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { linkPaidSignal } from '../payment-link/messages';
import { payOutSession } from './payout';
import { featuresOf } from '../engine-version';
import { PAYMENT_EXCEPTION_WORKFLOW, type PaymentExceptionInput } from '../payment-exception/messages';
import { emitAndDeliver, inRunDeliveries } from '../webhook-delivery/start';
import { completedAttributes, PaymentStatusKey } from '../search-attributes';
import {
  cancelUpdate,
  depositSignal,
  expireUpdate,
  providerUpdateSignal,
  startPaymentUpdate,
  stateQuery,
  type CheckoutSessionInput,
  type CancelRequest,
  type CheckoutSessionState,
  type DepositFact,
  type PaymentStart,
  type ProviderFact,
} from './messages';

// The session's database writes: activities for runs recorded before patch local-database-writes,
// local activities since (activity-options.ts; a completed payment's run 72 -> 43 history events).
const asActivities = {
  records: proxyActivities<CheckoutActivities>(DATABASE_ACTIVITY),
  events: proxyActivities<WebhookActivities>(DATABASE_ACTIVITY),
  proof: proxyActivities<ChainProofActivities>(DATABASE_ACTIVITY),
};
// Since patch transitions-with-events, a transition's write and its event are one local activity.
const steps = proxyLocalActivities<SessionTransitionActivities>(LOCAL_DATABASE_ACTIVITY);
const asLocalActivities = {
  records: proxyLocalActivities<CheckoutActivities>(LOCAL_DATABASE_ACTIVITY),
  events: proxyLocalActivities<WebhookActivities>(LOCAL_DATABASE_ACTIVITY),
  proof: proxyLocalActivities<ChainProofActivities>(LOCAL_DATABASE_ACTIVITY),
};

// Only for runs of the previous version, whose Pay was this workflow's update; bounded, as the
// customer waited on it.
const provider = proxyActivities<CheckoutActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 4, nonRetryableErrorTypes: ['ProviderRejected'] },
});

// Closing a provider payment (decisions §12) is worth retrying for a while, never worth failing the
// session for: a payment the provider still takes arrives as money and becomes an exception.
const closing = proxyActivities<ProviderClosingActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 12, nonRetryableErrorTypes: ['ProviderRejected'] },
});

const CANCEL = { kind: 'status', to: 'canceled', from: checkoutSourcesOf('canceled') } satisfies SessionMove;
const EXPIRE: SessionMove = { kind: 'status', to: 'expired', from: checkoutSourcesOf('expired') };

type Command = { kind: 'fact'; fact: ProviderFact } | { kind: 'deposit'; fact: DepositFact } | { kind: 'cancel'; reason?: CancelReason } | { kind: 'expire' };

/**
 * One checkout session, from creation to a terminal state (decisions §6). Provider facts arrive as
 * signals, the customer's actions as updates; every state change is written to Postgres by an
 * idempotent activity before the workflow moves on, so a crash anywhere replays to the same result.
 */
export async function checkoutSession(input: CheckoutSessionInput): Promise<CheckoutSessionState> {
  // Each patch's new branch: by the run's engine version, else by patched() (engine-version.ts).
  const feature = featuresOf(input.engine);
  const { records, events, proof } = feature('local-database-writes') ? asLocalActivities : asActivities;
  // Deliveries this run posts itself (patch deliveries-in-run); it ends once they are done.
  const deliveries = inRunDeliveries(events.markDeliveryFailed, feature);
  let status: PaymentStatus = 'pending';
  let providerPaymentId: string | null = null;
  let lateEvents = 0;
  let starting: Promise<PaymentStart> | null = null;
  const queue: Command[] = [];
  const seenEvents = new Set<string>();
  // Each cancel request waits for its own turn in the queue, not for a terminal state: a cancel
  // that loses the race to a provider fact must still get its answer.
  let cancelsRequested = 0;
  let cancelsHandled = 0;
  // Decisions §11: on a network with a verifier only a confirmed credit of the deposit address
  // completes; the provider's word moves to processing. Runs started before this carry no
  // `verification` and never reach patched(), so their histories replay unchanged.
  const chainVerified = input.verification === 'chain' && feature('chain-proof');
  const seenLogs = new Set<string>();
  // A provider success waiting for its transfer, and when it becomes `unverified`.
  let claim: ProviderClaim | null = null;
  let claimDueMs: number | null = null;
  // The own token's credits as the last credit activity reported them.
  let creditedMicro = 0n;

  setHandler(stateQuery, () => ({ status, providerPaymentId, lateEvents }));

  setHandler(depositSignal, (fact) => {
    // Watchers re-send after a crash (at least once); a log in the same block is the same news.
    const key = `${fact.kind}:${fact.network}:${fact.transactionHash.toLowerCase()}:${fact.logIndex}@${fact.blockHash.toLowerCase()}`;
    if (seenLogs.has(key)) return;
    seenLogs.add(key);
    // A removal followed by the same log in the same block again (re-mined) must credit again.
    if (fact.kind === 'removed') seenLogs.delete(key.replace(/^removed:/, 'credited:'));
    queue.push({ kind: 'deposit', fact });
  });

  setHandler(providerUpdateSignal, (fact) => {
    // Providers retry callbacks; the API dedupes too, but the workflow must not depend on it.
    if (seenEvents.has(fact.eventId)) return;
    seenEvents.add(fact.eventId);
    queue.push({ kind: 'fact', fact });
  });

  // Pay now goes from the API to the provider; the handler stays for updates sent to runs of the
  // previous version (and so that their histories replay).
  setHandler(
    startPaymentUpdate,
    async () => {
      starting ??= provider.createProviderPayment(input.paymentId).catch((err: unknown) => {
        starting = null;
        throw err;
      });
      const started = await starting;
      providerPaymentId = started.providerPaymentId;
      return started;
    },
    {
      validator: () => {
        if (status !== 'pending') throw ApplicationFailure.nonRetryable(`the session is ${status}`, 'NotPayable');
      },
    },
  );

  setHandler(
    cancelUpdate,
    async (request?: CancelRequest) => {
      const ticket = ++cancelsRequested;
      queue.push(request ? { kind: 'cancel', reason: request.reason } : { kind: 'cancel' });
      await condition(() => cancelsHandled >= ticket);
      return status;
    },
    {
      validator: (request?: CancelRequest) => {
        if (status !== 'pending') throw ApplicationFailure.nonRetryable(`the session is ${status}`, 'NotCancelable');
        if (request && !CANCEL_REASONS.includes(request.reason)) throw ApplicationFailure.nonRetryable('unknown cancel reason', 'NotCancelable');
      },
    },
  );

  // The merchant's expire: the expiry timer's transition, now, for a pending session only (as Stripe's).
  // Queued like cancel, so a provider fact already waiting wins and the answer says so.
  let expiresRequested = 0;
  let expiresHandled = 0;
  setHandler(
    expireUpdate,
    async () => {
      const ticket = ++expiresRequested;
      queue.push({ kind: 'expire' });
      await condition(() => expiresHandled >= ticket);
      return status;
    },
    {
      validator: () => {
        if (status !== 'pending') throw ApplicationFailure.nonRetryable(`the session is ${status}`, 'NotExpirable');
      },
    },
  );

  /**
   * A transition: since patch transitions-with-events its write and its event are one local activity
   * (activities/session-transitions.ts); runs before it write and announce in two.
   */
  async function moveTo(move: SessionMove) {
    const next = statusAfter(move);
    if (!feature('transitions-with-events')) return writeThenAnnounce(next, () => writeOf(move));
    await emitAndDeliver((options) => steps.moveSession(input.paymentId, move, options), feature, deliveries);
    status = next;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: next }]);
  }

  /** A move's write as its own activity (runs before transitions-with-events). */
  function writeOf(move: SessionMove): Promise<unknown> {
    if (move.kind === 'status') return records.recordStatusChange(input.paymentId, move.from, move.to);
    if (move.kind === 'processing') return records.recordProcessing(input.paymentId, move.fact);
    if (move.kind === 'failed') return records.recordFailure(input.paymentId, move.fact);
    return Promise.resolve();
  }

  async function writeThenAnnounce(next: PaymentStatus, write: () => Promise<unknown>) {
    await write();
    status = next;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: next }]);
    await announce(next);
  }

  /** One event per transition, and a delivery per target (webhook-delivery/start.ts). */
  async function announce(next: PaymentStatus) {
    await emitAndDeliver((options) => events.emitPaymentEvent(input.paymentId, next, null, options), feature, deliveries);
  }

  async function apply(command: Command) {
    if (command.kind === 'cancel') {
      if (canTransition(status, 'canceled')) {
        // Part of G already credited is the customer's money: underpaid, owned before the end, as at
        // expiry. Only when something was credited, so runs without credits keep their commands.
        if (chainVerified && creditedMicro > 0n) {
          const shortfall = await proof.recordShortfall(input.paymentId, claim, 'expiry');
          if (shortfall?.exceptionId) await announceException(shortfall.exceptionId);
        }
        await moveTo(command.reason ? { kind: 'status', to: 'canceled', from: CANCEL.from, reason: command.reason } : CANCEL);
      }
      cancelsHandled++;
      return;
    }
    if (command.kind === 'expire') {
      // New commands behind a patch; no recorded run before this one received the update.
      if (status === 'pending' && feature('expire-on-demand')) {
        // As at the timer: short credits are underpaid money, recorded and announced before the end.
        const shortfall = chainVerified ? await proof.recordShortfall(input.paymentId, claim, 'expiry') : null;
        if (shortfall?.exceptionId) await announceException(shortfall.exceptionId);
        await moveTo(EXPIRE);
      }
      expiresHandled++;
      return;
    }
    if (command.kind === 'deposit') return applyDeposit(command.fact);
    const { fact } = command;
    if (chainVerified && fact.type === 'succeeded' && !isTerminal(status)) {
      // A hint, never a completion: processing, and a deadline for the transfer it announces.
      if (canTransition(status, 'processing')) await moveTo({ kind: 'processing', fact });
      if (!claim) {
        claim = { eventId: fact.eventId, providerPaymentId: fact.providerPaymentId, destinationAmount: fact.destinationAmount, transactionHash: fact.transactionHash };
        claimDueMs = Date.now() + (input.providerProofTimeoutMs ?? 3_600_000);
      }
      return;
    }
    if (isTerminal(status)) {
      // A success after the session ended is money that arrived: flag it, never drop it.
      if (fact.type === 'succeeded' && status !== 'completed') {
        lateEvents++;
        const exceptionId = await records.flagLateSuccess(input.paymentId, fact, status);
        if (exceptionId) await announceException(exceptionId);
      }
      return;
    }
    if (fact.type === 'processing' && canTransition(status, 'processing')) {
      await moveTo({ kind: 'processing', fact });
    } else if (fact.type === 'succeeded') {
      let paidLinkId: string | null = null;
      let duplicateExceptionId: string | undefined;
      const complete = async () => ({ paidLinkId, duplicateExceptionId } = (await records.recordCompletion(input.paymentId, fact)) ?? { paidLinkId: null });
      // Runs before exceptions never see a duplicate (their activity reported none), so they move as they did.
      if (feature('exception-events')) {
        await complete();
        if (duplicateExceptionId) return announceException(duplicateExceptionId);
        await moveTo({ kind: 'announce', status: 'completed' });
      } else {
        await writeThenAnnounce('completed', complete);
      }
      if (paidLinkId && feature('link-told-from-workflow')) await tellLinkPaid(paidLinkId);
    } else if (fact.type === 'failed') {
      // The provider's payment failed, but what the chain already credited is the customer's money:
      // underpaid, owned before the end, as at cancel and expiry (found by the money-rules property test).
      if (chainVerified && creditedMicro > 0n) {
        const shortfall = await proof.recordShortfall(input.paymentId, claim, 'expiry');
        if (shortfall?.exceptionId) await announceException(shortfall.exceptionId);
      }
      await moveTo({ kind: 'failed', fact });
    }
  }

  /** A credit (or its removal) of the deposit address; completes once the credits cover G. */
  async function applyDeposit(fact: DepositFact) {
    if (!chainVerified) return;
    if (fact.kind === 'removed') {
      creditedMicro = BigInt((await proof.uncreditDeposit(input.paymentId, fact)).creditedMicro);
      return;
    }
    if (isTerminal(status) && feature('exception-events')) {
      // Money after the end: credited to this session and recorded as an exception (late or duplicate).
      const exceptionId = await proof.recordLateDeposit(input.paymentId, fact);
      if (exceptionId) await announceException(exceptionId);
      return;
    }
    const credit = await proof.creditDeposit(input.paymentId, fact);
    creditedMicro = BigInt(credit.creditedMicro);
    // Not this payment's money (another token, decisions §14): the merchant is told, nothing credits.
    if (credit.exceptionId) await announceException(credit.exceptionId);
    if (isTerminal(status) || !credit.held || credit.expectedMicro === null) return;
    if (BigInt(credit.creditedMicro) < BigInt(credit.expectedMicro)) return;
    // Not moveTo: the activity re-checks the credits under the session's lock and may decline.
    const paidBy = providerPaymentId ?? claim?.providerPaymentId ?? null;
    let completion: ChainCompletion | null = null;
    const withEvent = feature('transitions-with-events');
    if (withEvent) {
      // The completion and its payment.completed in one local activity (activities/session-transitions.ts).
      await emitAndDeliver(async (options) => {
        const done = await steps.completeSessionFromChain(input.paymentId, paidBy, options);
        completion = done;
        return done?.emitted ?? null;
      }, feature, deliveries);
    } else {
      completion = await proof.recordChainCompletion(input.paymentId, paidBy);
    }
    if (!completion) return;
    if (completion.duplicateExceptionId) return announceException(completion.duplicateExceptionId);
    status = 'completed';
    upsertSearchAttributes(completedAttributes(completion));
    if (!withEvent) await announce('completed');
    if (completion.overpaidExceptionId) await announceException(completion.overpaidExceptionId);
    if (completion.paidLinkId) await tellLinkPaid(completion.paidLinkId);
  }

  /**
   * Decisions §12: the exception's own workflow tells the merchant and waits for an operator; it
   * outlives this run (money may be resolved long after the session ended). Records made before
   * this version carry no id and are not announced, so their histories replay unchanged.
   */
  async function announceException(exceptionId: string) {
    if (!feature('exception-events')) return;
    const args: [PaymentExceptionInput] = [{ exceptionId, paymentId: input.paymentId }];
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
      if (linkId) await closing.closeLinkSiblings(linkId, input.paymentId);
      else await closing.closeSessionProviderPayment(input.paymentId);
    } catch (err) {
      log.warn('provider payment not closed', { paymentId: input.paymentId, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Ends the link's run now rather than at its expiry; Postgres already says paid, so a closed run is fine. */
  async function tellLinkPaid(linkId: string) {
    if (feature('close-provider-payments')) await closeProviderPayments(linkId);
    try {
      await getExternalWorkflowHandle(linkId).signal(linkPaidSignal, { sessionId: input.paymentId });
    } catch {
      // The link's run has ended (expired or replaced); it finds the link paid in Postgres.
    }
  }

  // Since patch deadline-timers a deadline is one timer for the whole run; before, every wait with a
  // timeout started a timer and canceled it when a fact woke the run (two history events a wake).
  const deadlineTimers = new Map<number, Promise<void>>();
  /** Whether a command arrived before `deadline` (false once it has passed). */
  async function commandBefore(deadline: number): Promise<boolean> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return false;
    if (!feature('deadline-timers')) return condition(() => queue.length > 0, remaining);
    let timer = deadlineTimers.get(deadline);
    if (!timer) deadlineTimers.set(deadline, (timer = sleep(remaining)));
    // A wait the timer ended leaves its condition pending; the next command resolves it, harmlessly.
    await Promise.race([condition(() => queue.length > 0), timer]);
    return queue.length > 0;
  }

  await records.openSession(input.paymentId);
  const expiresAtMs = Date.parse(input.expiresAt);

  while (!isTerminal(status)) {
    const deadline = claimDueMs === null ? expiresAtMs : Math.min(expiresAtMs, claimDueMs);
    const woke = await commandBefore(deadline);
    if (!woke && claimDueMs !== null && Date.now() < expiresAtMs) {
      // The provider's success was not credited in time: recorded once, never completed.
      const shortfall = await proof.recordShortfall(input.paymentId, claim, 'claim');
      if (shortfall?.exceptionId) await announceException(shortfall.exceptionId);
      claimDueMs = null;
      continue;
    }
    if (!woke) {
      // Short credits at expiry are underpaid money, recorded before the session ends.
      const shortfall = chainVerified ? await proof.recordShortfall(input.paymentId, claim, 'expiry') : null;
      if (shortfall?.exceptionId) await announceException(shortfall.exceptionId);
      await moveTo(EXPIRE);
      break;
    }
    await apply(queue.shift()!);
  }

  const ended = status as PaymentStatus;
  if ((ended === 'canceled' || ended === 'expired') && feature('close-provider-payments')) await closeProviderPayments(null);
  // Facts that arrived while the last transition was written are handled (flagged) too.
  while (queue.length > 0) await apply(queue.shift()!);
  // Decisions §11: the money a chain-verified completion proved is paid out from this run. Runs
  // recorded before payouts never take the 'payout' patch, so their histories replay unchanged.
  if ((status as PaymentStatus) === 'completed' && chainVerified && feature('payout')) {
    // A failed payout waits for an operator's retry; facts arriving meanwhile are handled as they come.
    const handleQueue = async () => {
      while (queue.length > 0) await apply(queue.shift()!);
    };
    await payOutSession(input.paymentId, feature, deliveries, { pending: () => queue.length > 0, handle: handleQueue });
    await handleQueue();
  }
  // The run ends once its deliveries are done; facts arriving meanwhile (a late success is money)
  // are handled as above. Runs without in-run deliveries skip this without a command.
  while (!deliveries.done() || queue.length > 0) {
    await condition(() => deliveries.done() || queue.length > 0);
    while (queue.length > 0) await apply(queue.shift()!);
  }
  await condition(allHandlersFinished);
  return { status, providerPaymentId, lateEvents };
}
