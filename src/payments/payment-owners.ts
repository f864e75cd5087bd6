import type { SignalDefinition } from '@temporalio/client';
import { findSessionWithMerchant } from '../db/queries/checkout-sessions';
import type { PaymentKind } from '../db/queries/late-payments';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { isFiatCurrency } from '../domain/currencies';
import { formatCrypto, formatFiat } from '../domain/money';
import { isOrderOpen, isTerminal } from '../domain/payment-status';
import type { ExpectedTerms, ProviderEvent, ProviderFact } from '../domain/provider-fact';
import { providerUpdateSignal } from '../workflows/checkout-session/messages';
import { simpleProviderSignal } from '../workflows/simple-order/messages';
import type { PaymentContext } from './context';
import { orderDeliveryAddress } from './deposits';

/** Whatever owns a provider payment, reduced to what ingesting its events needs. */
export interface PaymentOwner {
  kind: PaymentKind;
  /** The payment's id, which is also its workflow's id. */
  id: string;
  status: string;
  /** No state change can follow: a fact now is late money. */
  ended: boolean;
  /** The provider payment that is (or paid) the payment; another one's success is a second payment. */
  providerPaymentId: string | null;
  /** Another session of its payment link paid the link: its success is a second payment. */
  linkPaidElsewhere: boolean;
  /** Where its money arrives (an arrival's key names it). */
  network: string;
  /** Whether only the chain proves its money: the provider's word is then a claim. */
  verification: 'chain' | 'provider';
  signal: SignalDefinition<[ProviderFact]>;
  /** The terms the provider must be paying for this owner (for the rail the event names). */
  expectedTerms(event: ProviderEvent): ExpectedTerms;
}

const fiatText = (minor: bigint, currency: string) => (isFiatCurrency(currency) ? formatFiat(minor, currency) : minor.toString());

/**
 * The payment a provider's reference belongs to, found by provider and reference in every kind of
 * payment, never guessed from the reference's shape. References are unique across kinds (SV_ ids
 * and UUIDs), so at most one matches.
 */
export async function findPaymentOwner(ctx: PaymentContext, provider: string, reference: string): Promise<PaymentOwner | undefined> {
  // Sessions first, one read (with its link's payer): most callbacks are theirs (an order's costs a second read, a session's none).
  const session = await findSessionWithMerchant(ctx.db, reference);
  if (session && session.provider === provider) {
    return {
      kind: 'checkout_session',
      id: session.id,
      status: session.status,
      ended: isTerminal(session.status),
      providerPaymentId: session.providerPaymentId,
      linkPaidElsewhere: session.linkPaidBy !== null && session.linkPaidBy !== session.id,
      network: session.network,
      verification: session.verification,
      signal: providerUpdateSignal,
      expectedTerms: () => ({
        sourceAmount: fiatText(session.amountMinor, session.currency),
        sourceCurrency: session.currency,
        destinationAsset: session.destinationAsset,
        network: session.network,
        // The provider delivers to the session's deposit address when it has one.
        walletAddress: session.depositAddress ?? session.walletAddress,
      }),
    };
  }
  const order = await findSimpleOrder(ctx.db, reference.toLowerCase());
  if (order && (order.provider === null || order.provider === provider)) {
    // The provider delivers to the order's deposit address when it has one.
    const destination = {
      destinationAsset: order.walletCurrency,
      network: order.walletNetwork,
      walletAddress: orderDeliveryAddress(order),
    };
    return {
      kind: 'simple_order',
      id: order.transactionCode,
      status: order.status,
      ended: !isOrderOpen(order.status),
      providerPaymentId: order.providerPaymentId,
      linkPaidElsewhere: false,
      network: order.walletNetwork,
      verification: order.verification,
      signal: simpleProviderSignal,
      // Fiat currencies and stablecoin assets never share a code, so the source currency names the rail.
      expectedTerms: (event) =>
        order.depositAsset !== null && event.sourceCurrency === order.depositAsset
          ? {
              sourceAmount: order.depositAmountMicro === null ? '?' : formatCrypto(order.depositAmountMicro),
              sourceCurrency: order.depositAsset,
              ...destination,
            }
          : { sourceAmount: fiatText(order.fiatAmountMinor, order.fiatCurrency), sourceCurrency: order.fiatCurrency, ...destination },
    };
  }
  return undefined;
}
