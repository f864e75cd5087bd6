import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/client';
import {
  findSession,
  lockSession,
  markWorkflowStarted,
  setProviderPaymentId,
  transitionSession,
} from '../db/queries/checkout-sessions';
import { recordLateSuccess } from '../db/queries/late-payments';
import { insertTransactionOnce } from '../db/queries/transactions';
import { isFiatCurrency } from '../domain/currencies';
import { commissionSplit, formatFiat, parseCrypto } from '../domain/money';
import type { PaymentStatus } from '../domain/payment-status';
import type { ProviderRegistry } from '../providers/registry';
import type { PaymentStart, ProviderFact } from '../workflows/checkout-session/messages';
import { announceLinkPaid, recordLinkPayment } from './payment-links';

export interface CheckoutActivityDeps {
  db: Database;
  providers: ProviderRegistry;
  publicBaseUrl: string;
  now: () => Date;
}

const missing = (paymentId: string) => ApplicationFailure.nonRetryable(`no checkout session ${paymentId}`, 'SessionMissing');

/**
 * The checkout workflow's side effects. Each is idempotent: status changes are conditional on the
 * current status, the transaction is unique per payment, so a retry or replay changes nothing.
 */
export function createCheckoutActivities({ db, providers, publicBaseUrl, now }: CheckoutActivityDeps) {
  return {
    async openSession(paymentId: string): Promise<void> {
      await markWorkflowStarted(db, paymentId);
    },

    async createProviderPayment(paymentId: string): Promise<PaymentStart> {
      const session = await findSession(db, paymentId);
      if (!session) throw missing(paymentId);
      const adapter = providers.get(session.provider);
      if (!adapter) throw ApplicationFailure.nonRetryable(`provider ${session.provider} is not configured`, 'ProviderRejected');
      if (!isFiatCurrency(session.currency)) throw ApplicationFailure.nonRetryable('bad currency', 'ProviderRejected');
      const payment = await adapter.createPayment({
        reference: session.id,
        sourceAmount: formatFiat(session.amountMinor, session.currency),
        sourceCurrency: session.currency,
        destinationAsset: session.destinationAsset,
        network: session.network,
        walletAddress: session.walletAddress,
        countryCode: session.countryCode,
        customerEmail: session.customerEmail ?? undefined,
        callbackUrl: providers.callbackUrl(publicBaseUrl, adapter.name),
        returnUrl: `${publicBaseUrl}/pay/${session.id}`,
      });
      await setProviderPaymentId(db, paymentId, payment.providerPaymentId);
      return { providerPaymentId: payment.providerPaymentId, redirectUrl: payment.redirectUrl };
    },

    async recordStatusChange(paymentId: string, from: PaymentStatus[], to: PaymentStatus): Promise<boolean> {
      return transitionSession(db, paymentId, from, to);
    },

    async recordProcessing(paymentId: string, fact: ProviderFact): Promise<boolean> {
      return transitionSession(db, paymentId, ['pending'], 'processing', { providerPaymentId: fact.providerPaymentId });
    },

    /** Commission split, transaction row and session status in one database transaction (decisions §7). */
    async recordCompletion(paymentId: string, fact: ProviderFact): Promise<void> {
      if (!fact.destinationAmount || !fact.transactionHash) {
        throw ApplicationFailure.nonRetryable('a success without amount or transaction hash', 'BadProviderFact');
      }
      const gross = parseCrypto(fact.destinationAmount);
      const paidLink = await db.transaction(async (tx) => {
        const session = await lockSession(tx, paymentId);
        if (!session) throw missing(paymentId);
        const split = commissionSplit(gross, session.commissionBps);
        const completedAt = new Date(fact.occurredAt);
        await insertTransactionOnce(tx, {
          paymentId,
          merchantId: session.merchantId,
          status: 'completed',
          sourceAmountMinor: session.amountMinor,
          sourceCurrency: session.currency,
          destinationAsset: session.destinationAsset,
          network: session.network,
          walletAddress: session.walletAddress,
          grossMicro: gross,
          merchantSettlementMicro: split.merchant,
          platformCommissionMicro: split.commission,
          commissionBps: session.commissionBps,
          provider: session.provider,
          providerPaymentId: fact.providerPaymentId,
          providerEventId: fact.eventId,
          transactionHash: fact.transactionHash,
          explorerUrl: fact.explorerUrl ?? null,
          completedAt,
        });
        await transitionSession(tx, paymentId, ['pending', 'processing'], 'completed', {
          completedAt,
          providerPaymentId: fact.providerPaymentId,
        });
        // A payment link is paid at most once, decided in the same transaction as the completion.
        if (session.paymentLinkId && (await recordLinkPayment(tx, session.paymentLinkId, paymentId))) return session.paymentLinkId;
        return null;
      });
      if (paidLink) await announceLinkPaid(paidLink, paymentId);
    },

    async recordFailure(paymentId: string, fact: ProviderFact): Promise<void> {
      await db.transaction(async (tx) => {
        const session = await lockSession(tx, paymentId);
        if (!session) throw missing(paymentId);
        await insertTransactionOnce(tx, {
          paymentId,
          merchantId: session.merchantId,
          status: 'failed',
          sourceAmountMinor: session.amountMinor,
          sourceCurrency: session.currency,
          destinationAsset: session.destinationAsset,
          network: session.network,
          walletAddress: session.walletAddress,
          commissionBps: session.commissionBps,
          provider: session.provider,
          providerPaymentId: fact.providerPaymentId,
          providerEventId: fact.eventId,
          failureReason: fact.failureReason ?? 'declined',
        });
        await transitionSession(tx, paymentId, ['pending', 'processing'], 'failed');
      });
    },

    async flagLateSuccess(paymentId: string, fact: ProviderFact, status: PaymentStatus): Promise<void> {
      const session = await findSession(db, paymentId);
      if (!session) throw missing(paymentId);
      await recordLateSuccess(db, {
        paymentId,
        provider: session.provider,
        eventId: fact.eventId,
        status,
        summary: `${fact.destinationAmount ?? '?'} ${session.destinationAsset}, tx ${fact.transactionHash ?? '?'}`,
        at: now(),
      });
    },
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
