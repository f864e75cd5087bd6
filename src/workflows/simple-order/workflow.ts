import { allHandlersFinished, ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SimpleOrderActivities } from '../../activities/simple-orders';
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

// Database writes retry until Postgres is back: a payment fact must never be dropped.
const records = proxyActivities<SimpleOrderActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// The customer waits for the provider's answer: bounded.
const provider = proxyActivities<SimpleOrderActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 4, nonRetryableErrorTypes: ['ProviderRejected', 'UnknownRail'] },
});

// Spec 6.4 / decisions §8: one attempt, no retry (the activity itself times the POST out at 8 s).
const webhook = proxyActivities<SimpleOrderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

const isOpen = (s: SimpleOrderStatus) => s === 'pending' || s === 'processing';

/**
 * One simple-API order: pending → processing → settled | failed; pending → expired. Provider facts
 * arrive as signals, the customer's rail choice as an update; each change is written by an
 * idempotent activity before the workflow moves on.
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

  setHandler(
    choosePaymentUpdate,
    async (slug: string): Promise<PaymentInstructions> => {
      // The same rail asked again (a reload, the test helper's Pay) shares the one provider call.
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

  async function apply(fact: ProviderFact) {
    if (!isOpen(status)) return;
    if (fact.type === 'processing' && status === 'pending') {
      await records.recordSimpleProcessing(code, fact);
      status = 'processing';
    } else if (fact.type === 'succeeded') {
      await records.recordSimpleSettlement(code, fact);
      status = 'settled';
      if (input.hasWebhook) {
        try {
          await webhook.sendSettledWebhook(code);
        } catch {
          // Recorded on the order by the activity when it ran at all; never retried (spec 6.4).
        }
      }
    } else if (fact.type === 'failed') {
      await records.recordSimpleFailure(code, fact);
      status = 'failed';
    }
  }

  await records.openSimpleOrder(code);
  const expiresAtMs = Date.parse(input.expiresAt);

  while (isOpen(status)) {
    if (status === 'pending') {
      const remaining = expiresAtMs - Date.now();
      const woke = remaining > 0 && (await condition(() => queue.length > 0, remaining));
      if (!woke) {
        await records.recordSimpleExpiry(code);
        status = 'expired';
        break;
      }
    } else {
      await condition(() => queue.length > 0);
    }
    await apply(queue.shift()!);
  }

  await condition(allHandlersFinished);
  return { status, paymentMethod };
}
