import { ApplicationFailure } from '@temporalio/activity';
import { CURRENCY_COUNTRY, fiatProvider, findRail } from '../api/simple/rails';
import { settledWebhookBody } from '../api/simple/views';
import type { Database } from '../db/client';
import { findSimpleOrder, transitionSimpleOrder, updateSimpleOrder, markSimpleOrderStarted } from '../db/queries/simple-orders';
import { isFiatCurrency } from '../domain/currencies';
import { formatCrypto, formatFiat, parseCrypto } from '../domain/money';
import type { ProviderRegistry } from '../providers/registry';
import { postWebhook } from '../webhooks/post';
import type { PaymentInstructions, ProviderFact } from '../workflows/simple-order/messages';
import { USER_AGENT } from './webhooks';

export interface SimpleOrderActivityDeps {
  db: Database;
  providers: ProviderRegistry;
  publicBaseUrl: string;
  allowPrivateUrls: boolean;
  now: () => Date;
}

/** Spec 6.4: the receiver answers within 8 seconds. */
export const SIMPLE_WEBHOOK_TIMEOUT_MS = 8000;

const missing = (code: string) => ApplicationFailure.nonRetryable(`no simple order ${code}`, 'OrderMissing');

/** Side effects of the simpleOrder workflow; each is idempotent (conditional writes, provider idempotency per reference). */
export function createSimpleOrderActivities({ db, providers, publicBaseUrl, allowPrivateUrls, now }: SimpleOrderActivityDeps) {
  return {
    async openSimpleOrder(code: string): Promise<void> {
      await markSimpleOrderStarted(db, code);
    },

    /** The customer's rail: the provider's payment page (fiat) or a deposit address (crypto). */
    async preparePayment(code: string, slug: string): Promise<PaymentInstructions> {
      const order = await findSimpleOrder(db, code);
      if (!order) throw missing(code);
      const rail = findRail(slug);
      if (!rail) throw ApplicationFailure.nonRetryable(`unknown payment method ${slug}`, 'UnknownRail');
      if (!isFiatCurrency(order.fiatCurrency)) throw ApplicationFailure.nonRetryable('bad currency', 'ProviderRejected');
      const adapter = fiatProvider(providers, order.fiatCurrency);
      if (!adapter) throw ApplicationFailure.nonRetryable(`no provider takes ${order.fiatCurrency}`, 'ProviderRejected');
      const callbackUrl = providers.callbackUrl(publicBaseUrl, adapter.name);

      if (rail.type === 'fiat') {
        const payment = await adapter.createPayment({
          reference: code,
          sourceAmount: formatFiat(order.fiatAmountMinor, order.fiatCurrency),
          sourceCurrency: order.fiatCurrency,
          destinationAsset: order.walletCurrency,
          network: order.walletNetwork,
          walletAddress: order.walletAddress,
          countryCode: CURRENCY_COUNTRY[order.fiatCurrency],
          callbackUrl,
          returnUrl: `${publicBaseUrl}/pay/${code}`,
        });
        await updateSimpleOrder(db, code, { paymentMethod: slug, provider: adapter.name, providerPaymentId: payment.providerPaymentId });
        return { type: 'fiat', slug, providerPaymentId: payment.providerPaymentId, redirectUrl: payment.redirectUrl };
      }

      if (!adapter.createDeposit) throw ApplicationFailure.nonRetryable(`${adapter.name} offers no crypto rails`, 'ProviderRejected');
      const deposit = await adapter.createDeposit({
        reference: code,
        asset: rail.asset,
        network: rail.network,
        amount: formatCrypto(order.amountUsdMicro),
        destinationAsset: order.walletCurrency,
        destinationNetwork: order.walletNetwork,
        walletAddress: order.walletAddress,
        callbackUrl,
      });
      await updateSimpleOrder(db, code, {
        paymentMethod: slug,
        provider: adapter.name,
        providerPaymentId: deposit.depositId,
        depositAddress: deposit.address,
        depositAsset: deposit.asset,
        depositNetwork: deposit.network,
        depositAmountMicro: parseCrypto(deposit.amount),
      });
      const expiresAt = new Date(Math.min(Date.parse(deposit.expiresAt), order.expiresAt.getTime())).toISOString();
      return { type: 'crypto', slug, address: deposit.address, amount: deposit.amount, asset: deposit.asset, network: deposit.network.toUpperCase(), expiresAt };
    },

    async recordSimpleProcessing(code: string, fact: ProviderFact): Promise<boolean> {
      return transitionSimpleOrder(db, code, ['pending'], 'processing', { providerPaymentId: fact.providerPaymentId });
    },

    /** The stablecoin reached the customer's wallet: payout dispatched once a transaction hash exists. */
    async recordSimpleSettlement(code: string, fact: ProviderFact): Promise<boolean> {
      if (!fact.destinationAmount) throw ApplicationFailure.nonRetryable('a success without an amount', 'BadProviderFact');
      return transitionSimpleOrder(db, code, ['pending', 'processing'], 'settled', {
        providerPaymentId: fact.providerPaymentId,
        receivedMicro: parseCrypto(fact.destinationAmount),
        transactionHash: fact.transactionHash ?? null,
        explorerUrl: fact.explorerUrl ?? null,
        payoutDispatched: Boolean(fact.transactionHash),
        settledAt: new Date(fact.occurredAt),
      });
    },

    async recordSimpleFailure(code: string, fact: ProviderFact): Promise<boolean> {
      return transitionSimpleOrder(db, code, ['pending', 'processing'], 'failed', { failureReason: fact.failureReason ?? 'declined' });
    },

    async recordSimpleExpiry(code: string): Promise<boolean> {
      return transitionSimpleOrder(db, code, ['pending'], 'expired');
    },

    /**
     * The one transaction.settled POST (spec 6.4): 8 s timeout, never a second attempt, the outcome
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
