import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Database } from '../../db/client';
import { recordProviderEvent, setProviderEventState } from '../../db/queries/provider-events';
import { findSimpleOrder, type SimpleOrderRow } from '../../db/queries/simple-orders';
import { AppError, notFound } from '../../domain/errors';
import { formatCrypto } from '../../domain/money';
import type { ProviderEvent } from '../../providers/types';
import { simpleProviderSignal } from '../../workflows/simple-order/messages';
import { isUnavailable } from '../plugins/errors';
import { fiatText } from './views';
import { providerFact, SIGNAL_DEADLINE_MS } from '../provider-facts';

/**
 * A verified provider callback whose reference is a simple-API transaction code: the same dedupe
 * (provider_events) and amount checks as a checkout session's, then a signal to the simpleOrder workflow.
 */
export async function handleSimpleOrderCallback(deps: { db: Database; temporal: Client }, provider: string, event: ProviderEvent) {
  const { db, temporal } = deps;
  const order = await findSimpleOrder(db, event.reference.toLowerCase());
  if (!order || (order.provider !== null && order.provider !== provider)) throw notFound('Payment');

  const mismatch = compareWithOrder(event, order);
  const { row } = await recordProviderEvent(db, {
    provider,
    eventId: event.eventId,
    paymentId: order.transactionCode,
    type: event.type,
    payload: event,
    state: mismatch ? 'rejected' : 'received',
    ...(mismatch ? { note: mismatch } : {}),
  });
  if (mismatch) throw new AppError('ValidationError', `The callback does not match the order: ${mismatch}.`);
  if (row.state !== 'received') return { ok: true, duplicate: true };

  const fact = providerFact(event);
  const terminal = order.status !== 'pending' && order.status !== 'processing';
  if (terminal) {
    await setProviderEventState(db, { provider, eventId: event.eventId }, 'late', `order was ${order.status}`);
    return { ok: true, late: true };
  }
  try {
    await temporal.connection.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, () =>
      temporal.workflow.getHandle(order.transactionCode).signal(simpleProviderSignal, fact),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      await setProviderEventState(db, { provider, eventId: event.eventId }, 'late', 'order workflow closed');
      return { ok: true, late: true };
    }
    if (isUnavailable(err)) throw new AppError('Unavailable', 'The payment engine is unavailable; retry the callback.');
    throw err;
  }
  await setProviderEventState(db, { provider, eventId: event.eventId }, 'signaled');
  return { ok: true };
}

/**
 * The provider must be paying this order: the customer's wallet, asset and network; for a fiat rail
 * the order's fiat amount and currency, for a crypto rail the deposit's amount and asset.
 */
function compareWithOrder(event: ProviderEvent, order: SimpleOrderRow): string | null {
  // Fiat currencies and stablecoin assets never share a code, so the source currency names the rail.
  if (order.depositAsset !== null && event.sourceCurrency === order.depositAsset) {
    const expected = order.depositAmountMicro === null ? null : formatCrypto(order.depositAmountMicro);
    if (event.sourceAmount !== expected) return `amount ${event.sourceAmount} ≠ ${expected ?? '?'}`;
  } else {
    if (event.sourceCurrency !== order.fiatCurrency) return `currency ${event.sourceCurrency} ≠ ${order.fiatCurrency}`;
    if (event.sourceAmount !== fiatText(order)) return `amount ${event.sourceAmount} ≠ ${fiatText(order)}`;
  }
  if (event.destinationAsset !== order.walletCurrency || event.network !== order.walletNetwork) {
    return `destination ${event.destinationAsset}/${event.network} ≠ ${order.walletCurrency}/${order.walletNetwork}`;
  }
  if (event.walletAddress !== order.walletAddress) return 'wallet address differs';
  if (event.type === 'payment.succeeded' && (!event.destinationAmount || !/^\d+\.\d{6}$/.test(event.destinationAmount) || !event.transactionHash)) {
    return 'a success needs a 6-decimal destination amount and a transaction hash';
  }
  return null;
}
