import {
  allHandlersFinished,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ChainProofActivities } from '../../activities/chain-proof';
import type { SimpleOrderActivities } from '../../activities/simple-orders';
import { isOrderOpen } from '../../domain/payment-status';
import { decideOrder, initialOrder, nextOrderDeadline, type OrderEffect, type OrderEvent } from '../../domain/simple-order';
import { LOCAL_DATABASE_ACTIVITY } from '../activity-options';
import { payOutOrder } from '../checkout-session/payout';
import { handleEvent, Inbox, onceEach } from '../decision-loop';
import { PaymentStatusKey } from '../search-attributes';
import { depositSignal, simpleProviderSignal, simpleStateQuery, type SimpleOrderInput, type SimpleOrderState } from './messages';

const records = proxyLocalActivities<SimpleOrderActivities>(LOCAL_DATABASE_ACTIVITY);
const proof = proxyLocalActivities<ChainProofActivities>(LOCAL_DATABASE_ACTIVITY);
// The simple API's callback: one attempt, no retry (the activity itself times the POST out at 8 s).
const webhook = proxyActivities<SimpleOrderActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } });

/** A provider that said `processing` and then nothing for this long has failed the order (unless the input says otherwise). */
export const PROCESSING_TIMEOUT_MS = 24 * 3_600_000;

/**
 * One simple-API order, from creation to its end, then its payout. The rules are
 * domain/simple-order.ts; this loop takes messages and deadlines to them and runs what they decide
 * through idempotent activities, so a crash anywhere replays to the same result.
 */
export async function simpleOrder(input: SimpleOrderInput): Promise<SimpleOrderState> {
  const code = input.transactionCode;
  let order = initialOrder({
    chainVerified: input.verification === 'chain',
    expiresAtMs: Date.parse(input.expiresAt),
    proofTimeoutMs: input.providerProofTimeoutMs,
    processingTimeoutMs: input.processingTimeoutMs ?? PROCESSING_TIMEOUT_MS,
  });
  const inbox = new Inbox<OrderEvent>();
  const news = onceEach();

  setHandler(simpleStateQuery, () => ({ status: order.status }));
  setHandler(simpleProviderSignal, (fact) => {
    if (news.providerEvent(fact.eventId)) inbox.push({ kind: 'provider', fact, nowMs: Date.now() });
  });
  setHandler(depositSignal, (fact) => {
    if (order.chainVerified && news.deposit(fact)) inbox.push({ kind: 'deposit', fact });
  });

  const perform = async (effect: OrderEffect): Promise<OrderEvent | null> => {
    switch (effect.kind) {
      case 'move': {
        const { move } = effect;
        if (move.to === 'expired') await records.recordSimpleExpiry(code);
        else if (move.to === 'processing') await records.recordSimpleProcessing(code, move.fact);
        else if (move.to === 'settled') await records.recordSimpleSettlement(code, move.fact);
        else await records.recordSimpleFailure(code, move.fact);
        upsertSearchAttributes([{ key: PaymentStatusKey, value: move.to }]);
        return null;
      }
      case 'announceSettled':
        await announceSettled();
        return null;
      case 'recordShortfall':
        await proof.recordOrderShortfall(code, effect.claim, effect.at);
        return null;
      case 'credit':
        return { kind: 'credited', credit: await proof.creditOrderDeposit(code, effect.fact) };
      case 'uncredit':
        await proof.uncreditOrderDeposit(code, effect.fact);
        return null;
      case 'recordLateDeposit':
        await proof.recordLateDeposit(code, effect.fact);
        return null;
      case 'recordLateFact':
        await records.flagLateOrderFact(code, effect.fact, effect.status);
        return null;
      case 'settleFromChain': {
        const settled = (await proof.recordOrderChainSettlement(code, effect.providerPaymentId)) !== null;
        if (settled) upsertSearchAttributes([{ key: PaymentStatusKey, value: 'settled' }]);
        return { kind: 'chainSettled', settled };
      }
    }
  };
  const handle = async (event: OrderEvent) => {
    order = await handleEvent(decideOrder, perform, order, event);
  };

  // The row is stored once this run exists (payments/open-payment.ts); nothing here reads it before a fact arrives.
  while (isOrderOpen(order.status)) await handle(await inbox.next(nextOrderDeadline(order), (nowMs) => ({ kind: 'deadline', nowMs })));
  // Facts that arrived while the last transition was written are late money too.
  while (inbox.size > 0) await handle(inbox.shift()!);
  // The money the chain proved goes on to the customer's wallet; transaction.settled
  // follows its broadcast (payout_dispatched true).
  if (order.status === 'settled' && order.chainVerified) await payOutOrder(code, announceSettled);
  while (inbox.size > 0) await handle(inbox.shift()!);
  await condition(allHandlersFinished);
  return { status: order.status };

  async function announceSettled() {
    if (!input.hasWebhook) return;
    try {
      await webhook.sendSettledWebhook(code);
    } catch {
      // Recorded on the order by the activity when it ran at all; never retried: the receiver gets one attempt (docs/api.md).
    }
  }
}
