import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/client';
import { recordLateFact } from '../db/queries/late-payments';
import { findSimpleOrder, transitionSimpleOrder, updateSimpleOrder } from '../db/queries/simple-orders';
import { parseCrypto } from '../domain/money';
import type { ProviderFact } from '../domain/provider-fact';
import { settledWebhookBody } from '../domain/webhook-event';
import { postWebhook } from '../webhooks/post';
import { USER_AGENT } from './webhook-attempts';

export interface SimpleOrderActivityDeps {
  db: Database;
  allowPrivateUrls: boolean;
  now: () => Date;
}

/** The simple API's receiver answers within 8 seconds (docs/api.md). */
export const SIMPLE_WEBHOOK_TIMEOUT_MS = 8000;

const missing = (code: string) => ApplicationFailure.nonRetryable(`no simple order ${code}`, 'OrderMissing');

/** Side effects of the simpleOrder workflow; each is idempotent (conditional writes, provider idempotency per reference). */
export function createSimpleOrderActivities({ db, allowPrivateUrls, now }: SimpleOrderActivityDeps) {
  return {
    async recordSimpleProcessing(code: string, fact: ProviderFact): Promise<boolean> {
      return transitionSimpleOrder(db, code, 'processing', { providerPaymentId: fact.providerPaymentId });
    },

    /** The stablecoin reached the customer's wallet: payout dispatched once a transaction hash exists. */
    async recordSimpleSettlement(code: string, fact: ProviderFact): Promise<boolean> {
      if (!fact.destinationAmount) throw ApplicationFailure.nonRetryable('a success without an amount', 'BadProviderFact');
      return transitionSimpleOrder(db, code, 'settled', {
        providerPaymentId: fact.providerPaymentId,
        receivedMicro: parseCrypto(fact.destinationAmount),
        transactionHash: fact.transactionHash ?? null,
        explorerUrl: fact.explorerUrl ?? null,
        payoutDispatched: Boolean(fact.transactionHash),
        settledAt: new Date(fact.occurredAt),
      });
    },

    async recordSimpleFailure(code: string, fact: ProviderFact): Promise<boolean> {
      return transitionSimpleOrder(db, code, 'failed', { failureReason: fact.failureReason ?? 'declined' });
    },

    async recordSimpleExpiry(code: string): Promise<boolean> {
      return transitionSimpleOrder(db, code, 'expired');
    },

    /**
     * Money after the order ended: the same late-money policy as a checkout session's. A success of
     * another provider payment than the one that settled the order is the customer paying on a
     * second rail: a `duplicate` exception.
     */
    async flagLateOrderFact(code: string, fact: ProviderFact, status: string): Promise<void> {
      const order = await findSimpleOrder(db, code);
      if (!order) throw missing(code);
      await recordLateFact(
        db,
        {
          kind: 'simple_order',
          id: code,
          provider: order.provider ?? 'unknown',
          network: order.walletNetwork,
          status,
          paid: status === 'settled',
          paidBy: order.providerPaymentId,
          linkPaidElsewhere: false,
          verification: order.verification,
        },
        fact,
        now(),
      );
    },

    /**
     * The one transaction.settled POST (docs/api.md): 8 s timeout, never a second attempt, the outcome
     * stored on the order. It never throws for a receiver's answer, so nothing can retry it.
     */
    async sendSettledWebhook(code: string): Promise<void> {
      const order = await findSimpleOrder(db, code);
      if (!order) throw missing(code);
      if (!order.webhookUrl || order.webhookStatus !== 'none') return;
      // Claimed before the POST: a crashed attempt is never followed by another.
      const claimed = await db.transaction(async (tx) => {
        const fresh = await findSimpleOrder(tx, code);
        if (!fresh || fresh.webhookStatus !== 'none') return false;
        await updateSimpleOrder(tx, code, { webhookStatus: 'pending', webhookAttemptedAt: now() });
        return true;
      });
      if (!claimed) return;
      const body = JSON.stringify(settledWebhookBody(order, now()));
      const result = await postWebhook({
        url: order.webhookUrl,
        body,
        timeoutMs: SIMPLE_WEBHOOK_TIMEOUT_MS,
        allowPrivate: allowPrivateUrls,
        headers: { 'user-agent': USER_AGENT, 'content-type': 'application/json', 'svc-event-type': 'transaction.settled' },
      });
      const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      await updateSimpleOrder(db, code, {
        webhookStatus: delivered ? 'delivered' : 'failed',
        webhookStatusCode: result.statusCode,
        webhookDurationMs: result.durationMs,
        webhookError: delivered ? null : (result.error ?? `HTTP ${result.statusCode}`),
      });
    },
  };
}

export type SimpleOrderActivities = ReturnType<typeof createSimpleOrderActivities>;
