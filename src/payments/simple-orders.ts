import { randomUUID } from 'node:crypto';
import { findSimpleOrder, insertSimpleOrder, updateSimpleOrder, type SimpleOrderRow } from '../db/queries/simple-orders';
import { isSupportedPair, normalizeWalletAddress, SUPPORTED_PAIRS, type Network } from '../domain/assets';
import { AppError, notFound, type ErrorDetail } from '../domain/errors';
import { isTransactionCode } from '../domain/ids';
import { formatCrypto } from '../domain/money';
import { orderPayoutTerms, type OrderPayoutTerms } from '../domain/order-fees';
import { depositChoice, findRail } from '../domain/rails';
import { checkWebhookTarget } from '../webhooks/target-policy';
import type { PaymentInstructions } from '../domain/rails';
import { SIMPLE_ORDER_WORKFLOW, type SimpleOrderInput } from '../workflows/simple-order/messages';
import { OrderIdKey, PaymentStatusKey, ProviderKey } from '../workflows/search-attributes';
import { parseFiat } from './amounts';
import type { PaymentContext } from './context';
import { ensurePaymentsEnabled } from './kill-switch';
import { openPayment } from './open-payment';
import { depositAddressFor, fixOrderExpectedGross, verificationOf, verifierFor } from './deposits';
import { closeOrderDeposit, closeSessionPayment, createOrderPayment } from './provider-payments';
import { fiatProvider, usdValue } from './rails';

export interface SimpleCheckoutBody {
  fiat_amount: number;
  fiat_currency: string;
  external_reference?: string | undefined;
  webhook_url?: string | undefined;
  success_url?: string | undefined;
  cancel_url?: string | undefined;
  customer: { wallet_address: string; crypto_currency: string; crypto_currency_network: string };
}

const invalid = (details: ErrorDetail[]) => {
  const first = details[0];
  return new AppError('ValidationError', first ? `${first.path}: ${first.message}` : 'The checkout is not valid.', { details });
};

function belowMinimum(usdMicro: bigint, terms: OrderPayoutTerms, asset: string, network: string): AppError {
  const fee =
    terms.feeMicro > 0n
      ? ` (its payout to ${asset} on ${network.toUpperCase()} carries a network fee of ${formatCrypto(terms.feeMicro)} ${asset})`
      : '';
  const message = `fiat_amount: the order is worth ${formatCrypto(usdMicro)} USD, below the minimum of ${formatCrypto(terms.minimumUsdMicro)} USD${fee}.`;
  return new AppError('ValidationError', message, { details: [{ path: 'fiat_amount', message }] });
}

/** What the payout to a wallet costs, for each asset and network a customer may be paid on (GET /api/payment_options). */
export interface PayoutFee {
  currency: string;
  network: string;
  /** Deducted from the payout, 6 decimals; 0.000000 where nothing is paid out by us. */
  network_fee: string;
  minimum_amount_usd: string;
}

export function payoutFees(ctx: Pick<PaymentContext, 'config'>): PayoutFee[] {
  return (Object.entries(SUPPORTED_PAIRS) as [string, readonly string[]][]).flatMap(([asset, networks]) =>
    networks.map((network) => {
      const terms = orderPayoutTerms(ctx.config.simpleOrders, network, verifierFor(ctx.config, network, asset) ? 'chain' : 'provider');
      return {
        currency: asset,
        network: network.toUpperCase(),
        network_fee: formatCrypto(terms.feeMicro),
        minimum_amount_usd: formatCrypto(terms.minimumUsdMicro),
      };
    }),
  );
}

/** POST /api/checkout: a pending order row and its workflow, together or not at all. */
export async function openSimpleOrder(ctx: PaymentContext, body: SimpleCheckoutBody): Promise<SimpleOrderRow> {
  const { config, db, now } = ctx;
  const details: ErrorDetail[] = [];
  const fiat = parseFiat(config.checkout, body.fiat_amount, body.fiat_currency, details, {
    amount: 'fiat_amount',
    currency: 'fiat_currency',
  });
  const provider = fiat ? fiatProvider(ctx.providers, fiat.currency) : undefined;
  if (fiat && !provider) details.push({ path: 'fiat_currency', message: `No payment provider takes ${fiat.currency}.` });

  const asset = body.customer.crypto_currency.toUpperCase();
  const network = body.customer.crypto_currency_network.toLowerCase();
  let walletAddress: string | null = null;
  if (!isSupportedPair(asset, network)) {
    details.push({ path: 'customer.crypto_currency_network', message: `${asset} on ${network.toUpperCase()} is not supported.` });
  } else {
    walletAddress = normalizeWalletAddress(network as Network, body.customer.wallet_address);
    if (!walletAddress)
      details.push({ path: 'customer.wallet_address', message: `Not a ${network.toUpperCase()} address (checksum included).` });
  }
  const verification = walletAddress ? verificationOf(config, network, asset, details, 'customer.crypto_currency_network') : 'provider';
  if (body.webhook_url) {
    const refusal = await checkWebhookTarget(body.webhook_url, config.allowPrivateUrls);
    if (refusal) details.push({ path: 'webhook_url', message: refusal });
  }
  if (details.length > 0 || !fiat || !provider || !walletAddress) throw invalid(details);
  await ensurePaymentsEnabled(db);
  const amountUsdMicro = await usdValue(provider, fiat.minor, fiat.currency);
  // The payout's network fee is fixed now; an order too small to carry it is refused.
  const terms = orderPayoutTerms(config.simpleOrders, network, verification);
  if (amountUsdMicro < terms.minimumUsdMicro) throw belowMinimum(amountUsdMicro, terms, asset, network);

  const code = randomUUID();
  const expiresAt = new Date(now().getTime() + config.checkout.sessionTtlSeconds * 1000);
  const input: SimpleOrderInput = {
    transactionCode: code,
    expiresAt: expiresAt.toISOString(),
    hasWebhook: Boolean(body.webhook_url),
    processingTimeoutMs: config.checkout.processingTimeoutSeconds * 1000,
    verification,
    providerProofTimeoutMs: config.chains.providerProofTimeoutSeconds * 1000,
  };
  const row = await openPayment(ctx, {
    workflowType: SIMPLE_ORDER_WORKFLOW,
    workflowId: code,
    args: [input],
    // No merchant stands behind a simple order; the external reference is its order id.
    searchAttributes: [
      { key: PaymentStatusKey, value: 'pending' },
      { key: ProviderKey, value: provider.name },
      ...(body.external_reference ? [{ key: OrderIdKey, value: body.external_reference }] : []),
    ],
    insert: async () =>
      insertSimpleOrder(db, {
        transactionCode: code,
        verification,
        // Allocated before the row exists, so a visible chain-verified order always has one.
        chainDepositAddress: verification === 'chain' ? await depositAddressFor(ctx, code, network) : null,
        fiatAmountMinor: fiat.minor,
        fiatCurrency: fiat.currency,
        amountUsdMicro,
        networkFeeMicro: terms.feeMicro,
        walletAddress,
        walletCurrency: asset,
        walletNetwork: network,
        externalReference: body.external_reference ?? null,
        webhookUrl: body.webhook_url ?? null,
        successUrl: body.success_url ?? null,
        cancelUrl: body.cancel_url ?? null,
        expiresAt,
      }),
  });
  return row;
}

/** An order by its transaction code as a client sent it: 400 for a malformed code, 404 when unknown. */
export async function loadSimpleOrder(ctx: PaymentContext, code: string): Promise<SimpleOrderRow> {
  if (!isTransactionCode(code)) throw new AppError('InvalidId', 'transaction_code must be a UUID.');
  const order = await findSimpleOrder(ctx.db, code.toLowerCase());
  if (!order) throw notFound('Transaction');
  return order;
}

/**
 * The customer's rail: the provider's page (fiat) or a deposit address (crypto), created from the API
 * idempotently per transaction code, so a choice never waits on a workflow task.
 */
export async function chooseRail(ctx: PaymentContext, order: SimpleOrderRow, slug: string): Promise<PaymentInstructions> {
  const rail = findRail(slug);
  if (!rail)
    throw new AppError('ValidationError', `payment_method: unknown rail ${slug}.`, {
      details: [{ path: 'payment_method', message: 'Unknown payment method.' }],
    });
  if (order.status !== 'pending') throw new AppError('Conflict', `The order is ${order.status} and can no longer be paid.`);
  await ensurePaymentsEnabled(ctx.db);
  await fixOrderExpectedGross(ctx, order, rail);
  const made = await createOrderPayment(ctx, order, rail);
  if (made.kind === 'fiat') {
    await updateSimpleOrder(ctx.db, order.transactionCode, {
      paymentMethod: rail.slug,
      provider: made.provider,
      providerPaymentId: made.payment.providerPaymentId,
    });
    await closeAbandonedRail(ctx, order, made.payment.providerPaymentId);
    return { type: 'fiat', slug: rail.slug, providerPaymentId: made.payment.providerPaymentId, redirectUrl: made.payment.redirectUrl };
  }
  const chosen = depositChoice(rail.slug, made.deposit, order.expiresAt);
  await updateSimpleOrder(ctx.db, order.transactionCode, { paymentMethod: rail.slug, provider: made.provider, ...chosen.columns });
  await closeAbandonedRail(ctx, order, made.deposit.depositId);
  return chosen.instructions;
}

/**
 * The customer switched rail, so the previous rail's provider payment is closed and
 * cannot be paid too. Best effort: a provider that cannot be asked (or already took the money) lets
 * that payment through, and its success becomes a `duplicate` exception of the order.
 */
async function closeAbandonedRail(ctx: PaymentContext, order: SimpleOrderRow, current: string): Promise<void> {
  if (!order.provider || !order.providerPaymentId || order.providerPaymentId === current) return;
  // The previous choice's id is a deposit's on a crypto rail, a payment's on a fiat one.
  const close = findRail(order.paymentMethod ?? '')?.type === 'crypto' ? closeOrderDeposit : closeSessionPayment;
  await close(ctx, order.provider, order.providerPaymentId).catch(() => undefined);
}
