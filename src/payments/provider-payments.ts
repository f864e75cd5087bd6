import type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
import type { SimpleOrderRow } from '../db/queries/simple-orders';
import { isFiatCurrency } from '../domain/currencies';
import { AppError } from '../domain/errors';
import type { Rail } from '../domain/rails';
import { orderDepositRequest, orderPaymentRequest, sessionPaymentRequest } from '../providers/requests';
import { ProviderError, type ProviderDeposit, type ProviderPayment } from '../providers/types';
import type { PaymentContext } from './context';
import { deliveryAddress, orderDeliveryAddress } from './deposits';
import { fiatProvider } from './rails';

// The provider side of a customer's Pay: created from the API, idempotently per reference, so the
// customer waits on the provider (bounded) and never on a Temporal worker.

/** A provider's refusal or silence, in the words the customer is shown. */
function providerFailure(err: unknown): never {
  if (err instanceof ProviderError) {
    if (err.retryable) throw new AppError('Unavailable', 'The payment provider is not answering right now. Please try again in a moment.');
    throw new AppError('Conflict', 'The payment provider could not take this payment.');
  }
  throw err;
}

export async function createSessionPayment(ctx: PaymentContext, session: CheckoutSessionRow): Promise<ProviderPayment> {
  const adapter = ctx.providers.get(session.provider);
  const currency = session.currency;
  if (!adapter || !isFiatCurrency(currency)) throw new AppError('Conflict', 'This checkout cannot be paid through its provider.');
  const base = ctx.config.http.publicBaseUrl;
  const request = sessionPaymentRequest(
    { ...session, currency, walletAddress: deliveryAddress(session) },
    { callbackUrl: ctx.providers.callbackUrl(base, adapter.name), returnUrl: `${base}/pay/${session.id}` },
  );
  return adapter.createPayment(request).catch(providerFailure);
}

/** Closes a provider payment the customer may no longer pay; a provider that already took it says so. */
export async function closeSessionPayment(ctx: PaymentContext, provider: string, providerPaymentId: string): Promise<{ closed: boolean }> {
  const adapter = ctx.providers.get(provider);
  if (!adapter) return { closed: false };
  return adapter.cancelPayment(providerPaymentId).catch(providerFailure);
}

/** Closes a provider deposit the customer abandoned for another rail; like closeSessionPayment. */
export async function closeOrderDeposit(ctx: PaymentContext, provider: string, depositId: string): Promise<{ closed: boolean }> {
  const adapter = ctx.providers.get(provider);
  if (!adapter?.cancelDeposit) return { closed: false };
  return adapter.cancelDeposit(depositId).catch(providerFailure);
}

export type OrderPayment = { provider: string } & (
  { kind: 'fiat'; payment: ProviderPayment } | { kind: 'crypto'; deposit: ProviderDeposit }
);

export async function createOrderPayment(ctx: PaymentContext, order: SimpleOrderRow, rail: Rail): Promise<OrderPayment> {
  const fiatCurrency = order.fiatCurrency;
  if (!isFiatCurrency(fiatCurrency)) throw new AppError('Conflict', 'This order cannot be paid.');
  const adapter = fiatProvider(ctx.providers, fiatCurrency);
  if (!adapter) throw new AppError('Conflict', `No payment provider takes ${fiatCurrency}.`);
  const base = ctx.config.http.publicBaseUrl;
  const callbackUrl = ctx.providers.callbackUrl(base, adapter.name);
  // The provider delivers to the order's own deposit address when it has one.
  const terms = { ...order, fiatCurrency, walletAddress: orderDeliveryAddress(order) };
  if (rail.type === 'fiat') {
    const payment = await adapter
      .createPayment(orderPaymentRequest(terms, { callbackUrl, returnUrl: `${base}/pay/${order.transactionCode}` }))
      .catch(providerFailure);
    return { provider: adapter.name, kind: 'fiat', payment };
  }
  if (!adapter.createDeposit) throw new AppError('Conflict', `${adapter.name} offers no crypto rails.`);
  const deposit = await adapter.createDeposit(orderDepositRequest(terms, rail, callbackUrl)).catch(providerFailure);
  return { provider: adapter.name, kind: 'crypto', deposit };
}
