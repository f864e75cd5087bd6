import { allHandlersFinished, ApplicationFailure, condition, patched, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { SimpleOrderActivities } from '../../activities/simple-orders';
import { canTransitionOrder, isOrderOpen } from '../../domain/payment-status';
import { DATABASE_ACTIVITY } from '../activity-options';
import { PaymentStatusKey } from '../search-attributes';
import {
  choosePaymentUpdate,
  simpleProviderSignal,
  simpleStateQuery,
  type PaymentInstructions,
  type ProviderFact,
  type SimpleOrderInput,
  type SimpleOrderState,
  type SimpleOrderStatus,
} from './messages';

const records = proxyActivities<SimpleOrderActivities>(DATABASE_ACTIVITY);

// Only for runs of the previous version, whose rail choice was this workflow's update; bounded,
// as the customer waited on it.
const provider = proxyActivities<SimpleOrderActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 4, nonRetryableErrorTypes: ['ProviderRejected', 'UnknownRail'] },
});

// Spec 6.4 / decisions §8: one attempt, no retry (the activity itself times the POST out at 8 s).
const webhook = proxyActivities<SimpleOrderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/** A provider that said `processing` and then nothing for this long has failed the order (unless the input says otherwise). */
export const PROCESSING_TIMEOUT_MS = 24 * 3_600_000;

/**
 * One simple-API order: pending → processing → settled | failed; pending → expired (the domain's
 * table). Provider facts arrive as signals; each change is written by an idempotent activity
 * before the workflow moves on. Changes of behaviour since the first version sit behind patched(),
 * so runs begun before them replay as they ran.
 */
export async function simpleOrder(input: SimpleOrderInput): Promise<SimpleOrderState> {
  const code = input.transactionCode;
  let status: SimpleOrderStatus = 'pending';
  let paymentMethod: string | null = null;
  const queue: ProviderFact[] = [];
  const seenEvents = new Set<string>();
  let preparing: { slug: string; result: Promise<PaymentInstructions> } | null = null;

  setHandler(simpleStateQuery, () => ({ status, paymentMethod }));

  setHandler(simpleProviderSignal, (fact) => {
    if (seenEvents.has(fact.eventId)) return;
    seenEvents.add(fact.eventId);
    queue.push(fact);
  });

  // The rail choice now goes from the API to the provider; the handler stays for updates sent to
  // runs of the previous version.
  setHandler(
    choosePaymentUpdate,
    async (slug: string): Promise<PaymentInstructions> => {
      if (!preparing || preparing.slug !== slug) {
        const attempt = {
          slug,
          result: provider.preparePayment(code, slug).catch((err: unknown) => {
            if (preparing === attempt) preparing = null;
            throw err;
          }),
        };
        preparing = attempt;
      }
      const instructions = await preparing.result;
      paymentMethod = slug;
      return instructions;
    },
    {
      validator: (_slug: string) => {
        if (status !== 'pending') throw ApplicationFailure.nonRetryable(`the order is ${status}`, 'NotPayable');
      },
    },
  );

  async function moveTo(next: SimpleOrderStatus, write: () => Promise<unknown>) {
    await write();
    status = next;
    if (patched('simple-order-search-attributes')) upsertSearchAttributes([{ key: PaymentStatusKey, value: next }]);
  }

  async function apply(fact: ProviderFact) {
    if (!isOrderOpen(status)) {
      // Money after the order ended is flagged for an operator, as for a checkout session.
      if (patched('simple-order-late-money')) await records.flagLateOrderFact(code, fact, status);
      return;
    }
    if (fact.type === 'processing' && canTransitionOrder(status, 'processing')) {
      await moveTo('processing', () => records.recordSimpleProcessing(code, fact));
    } else if (fact.type === 'succeeded') {
      await moveTo('settled', () => records.recordSimpleSettlement(code, fact));
      if (input.hasWebhook) {
        try {
          await webhook.sendSettledWebhook(code);
        } catch {
          // Recorded on the order by the activity when it ran at all; never retried (spec 6.4).
        }
      }
    } else if (fact.type === 'failed') {
      await moveTo('failed', () => records.recordSimpleFailure(code, fact));
    }
  }

  /** The provider went quiet after `processing`: the order fails, and anything later is late money. */
  function providerTimedOut(): ProviderFact {
    return { eventId: `timeout:${code}`, type: 'failed', providerPaymentId: '', failureReason: 'provider_timeout', occurredAt: new Date(Date.now()).toISOString() };
  }

  await records.openSimpleOrder(code);
  const expiresAtMs = Date.parse(input.expiresAt);

  while (isOrderOpen(status)) {
    if (status === 'pending') {
      const remaining = expiresAtMs - Date.now();
      const woke = remaining > 0 && (await condition(() => queue.length > 0, remaining));
      if (!woke) {
        await moveTo('expired', () => records.recordSimpleExpiry(code));
        break;
      }
    } else if (patched('simple-order-processing-timeout')) {
      if (!(await condition(() => queue.length > 0, input.processingTimeoutMs ?? PROCESSING_TIMEOUT_MS))) queue.push(providerTimedOut());
    } else {
      await condition(() => queue.length > 0);
    }
    await apply(queue.shift()!);
  }

  // Facts that arrived while the last transition was written are late money too.
  if (patched('simple-order-late-money')) while (queue.length > 0) await apply(queue.shift()!);
  await condition(allHandlersFinished);
  return { status, paymentMethod };
}
