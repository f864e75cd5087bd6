import { allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { ChainProofActivities } from '../../activities/chain-proof';
import type { ProviderClaim } from '../../domain/checkout-session';
import type { SimpleOrderActivities } from '../../activities/simple-orders';
import { canTransitionOrder, isOrderOpen } from '../../domain/payment-status';
import { DATABASE_ACTIVITY } from '../activity-options';
import { payOutOrder } from '../checkout-session/payout';
import { PaymentStatusKey } from '../search-attributes';
import {
  depositSignal,
  simpleProviderSignal,
  simpleStateQuery,
  type DepositFact,
  type ProviderFact,
  type SimpleOrderInput,
  type SimpleOrderState,
  type SimpleOrderStatus,
} from './messages';

const records = proxyActivities<SimpleOrderActivities>(DATABASE_ACTIVITY);
const proof = proxyActivities<ChainProofActivities>(DATABASE_ACTIVITY);

// Spec 6.4 / decisions §8: one attempt, no retry (the activity itself times the POST out at 8 s).
const webhook = proxyActivities<SimpleOrderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

type Command = { kind: 'fact'; fact: ProviderFact } | { kind: 'deposit'; fact: DepositFact };

/** A provider that said `processing` and then nothing for this long has failed the order (unless the input says otherwise). */
export const PROCESSING_TIMEOUT_MS = 24 * 3_600_000;

/**
 * One simple-API order: pending → processing → settled | failed; pending → expired (the domain's
 * table). Provider facts arrive as signals; each change is written by an idempotent activity
 * before the workflow moves on.
 */
export async function simpleOrder(input: SimpleOrderInput): Promise<SimpleOrderState> {
  const code = input.transactionCode;
  let status: SimpleOrderStatus = 'pending';
  const queue: Command[] = [];
  const seenEvents = new Set<string>();
  // Decisions §11, as for a checkout session: on a network with a verifier only confirmed credits of
  // the order's deposit address settle it; the provider's success moves it to processing.
  const chainVerified = input.verification === 'chain';
  const seenLogs = new Set<string>();
  // A provider success waiting for its transfer, and when it becomes `unverified`.
  let claim: ProviderClaim | null = null;
  let claimDueMs: number | null = null;

  setHandler(simpleStateQuery, () => ({ status }));

  setHandler(simpleProviderSignal, (fact) => {
    if (seenEvents.has(fact.eventId)) return;
    seenEvents.add(fact.eventId);
    queue.push({ kind: 'fact', fact });
  });

  setHandler(depositSignal, (fact) => {
    if (!chainVerified) return;
    // Watchers re-send after a crash (at least once); a log in the same block is the same news.
    const key = `${fact.kind}:${fact.network}:${fact.transactionHash.toLowerCase()}:${fact.logIndex}@${fact.blockHash.toLowerCase()}`;
    if (seenLogs.has(key)) return;
    seenLogs.add(key);
    // A removal followed by the same log in the same block again (re-mined) must credit again.
    if (fact.kind === 'removed') seenLogs.delete(key.replace(/^removed:/, 'credited:'));
    queue.push({ kind: 'deposit', fact });
  });

  async function moveTo(next: SimpleOrderStatus, write: () => Promise<unknown>) {
    await write();
    status = next;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: next }]);
  }

  async function apply(command: Command) {
    if (command.kind === 'deposit') return applyDeposit(command.fact);
    const { fact } = command;
    if (chainVerified && fact.type === 'succeeded' && isOrderOpen(status)) {
      // A hint, never a settlement: processing, and a deadline for the transfer it announces.
      if (canTransitionOrder(status, 'processing')) await moveTo('processing', () => records.recordSimpleProcessing(code, fact));
      if (!claim) {
        claim = {
          eventId: fact.eventId,
          providerPaymentId: fact.providerPaymentId,
          destinationAmount: fact.destinationAmount,
          transactionHash: fact.transactionHash,
        };
        claimDueMs = Date.now() + input.providerProofTimeoutMs;
      }
      return;
    }
    if (!isOrderOpen(status)) {
      // Money after the order ended is flagged for an operator, as for a checkout session.
      await records.flagLateOrderFact(code, fact, status);
      return;
    }
    if (fact.type === 'processing' && canTransitionOrder(status, 'processing')) {
      await moveTo('processing', () => records.recordSimpleProcessing(code, fact));
    } else if (fact.type === 'succeeded') {
      await moveTo('settled', () => records.recordSimpleSettlement(code, fact));
      await announceSettled();
    } else if (fact.type === 'failed') {
      await moveTo('failed', () => records.recordSimpleFailure(code, fact));
    }
  }

  async function announceSettled() {
    if (!input.hasWebhook) return;
    try {
      await webhook.sendSettledWebhook(code);
    } catch {
      // Recorded on the order by the activity when it ran at all; never retried (spec 6.4).
    }
  }

  /** A credit (or its removal) of the deposit address; settles once the credits cover G. */
  async function applyDeposit(fact: DepositFact) {
    if (fact.kind === 'removed') {
      await proof.uncreditOrderDeposit(code, fact);
      return;
    }
    if (!isOrderOpen(status)) {
      // Money after the end (a second payment while the payout runs, a transfer as the order
      // expires): credited to the order and recorded as an exception, as the watcher does once the run is closed.
      await proof.recordLateDeposit(code, fact);
      return;
    }
    const credit = await proof.creditOrderDeposit(code, fact);
    if (!isOrderOpen(status) || !credit.held || credit.expectedMicro === null) return;
    if (BigInt(credit.creditedMicro) < BigInt(credit.expectedMicro)) return;
    // Not moveTo: the activity re-checks the credits under the order's lock and may decline.
    if (!(await proof.recordOrderChainSettlement(code, claim?.providerPaymentId ?? null))) return;
    status = 'settled';
    upsertSearchAttributes([{ key: PaymentStatusKey, value: 'settled' }]);
    // Decisions §11: the money goes on to the customer's wallet; transaction.settled follows its
    // broadcast (payout_dispatched true).
    await payOutOrder(code, announceSettled);
  }

  /** The provider went quiet after `processing` (or its success was never proven): the order fails, and anything later is late money. */
  function providerTimedOut(): Command {
    const failureReason = claim ? 'unverified' : 'provider_timeout';
    return {
      kind: 'fact',
      fact: {
        eventId: `timeout:${code}`,
        type: 'failed',
        providerPaymentId: '',
        failureReason,
        occurredAt: new Date(Date.now()).toISOString(),
      },
    };
  }

  await records.openSimpleOrder(code);
  const expiresAtMs = Date.parse(input.expiresAt);

  while (isOrderOpen(status)) {
    if (status === 'pending') {
      const remaining = expiresAtMs - Date.now();
      const woke = remaining > 0 && (await condition(() => queue.length > 0, remaining));
      if (!woke) {
        // Short credits at expiry are underpaid money, recorded before the order ends.
        if (chainVerified) await proof.recordOrderShortfall(code, claim, 'expiry');
        await moveTo('expired', () => records.recordSimpleExpiry(code));
        break;
      }
    } else {
      const timeoutMs = input.processingTimeoutMs ?? PROCESSING_TIMEOUT_MS;
      const wait = claimDueMs === null ? timeoutMs : Math.max(1, Math.min(timeoutMs, claimDueMs - Date.now()));
      if (!(await condition(() => queue.length > 0, wait))) {
        if (claimDueMs !== null && Date.now() >= claimDueMs) {
          // The provider's success was not credited in time: recorded once, never settled.
          await proof.recordOrderShortfall(code, claim, 'claim');
          claimDueMs = null;
          continue;
        }
        if (chainVerified) await proof.recordOrderShortfall(code, claim, 'expiry');
        queue.push(providerTimedOut());
      }
    }
    await apply(queue.shift()!);
  }

  // Facts that arrived while the last transition was written are late money too.
  while (queue.length > 0) await apply(queue.shift()!);
  await condition(allHandlersFinished);
  return { status };
}
