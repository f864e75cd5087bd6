import { insertNewCheckoutSession, type CheckoutSessionRow, type NewSessionValues } from '../db/queries/checkout-sessions';
import type { Database } from '../db/client';
import { listWallets } from '../db/queries/merchants';
import { nextDepositAddress } from '../db/queries/deposit-addresses';
import { DEFAULT_ASSET, DEFAULT_NETWORK, isSupportedPair } from '../domain/assets';
import { isFiatCurrency } from '../domain/currencies';
import { AppError, type ErrorDetail } from '../domain/errors';
import { newPaymentId } from '../domain/ids';
import { formatFiat } from '../domain/money';
import { RAIL_FIAT_TO_CRYPTO } from '../domain/payment-labels';
import { checkWebhookTarget } from '../webhooks/target-policy';
import { CHECKOUT_SESSION_WORKFLOW, type CheckoutSessionInput } from '../workflows/checkout-session/messages';
import { MerchantIdKey, OrderIdKey, PaymentStatusKey, ProviderKey } from '../workflows/search-attributes';
import { parseFiat } from './amounts';
import type { PaymentContext } from './context';
import { depositDeriver, verificationOf } from './deposits';
import { ensurePaymentsEnabled } from './kill-switch';
import { openPayment } from './open-payment';

/** Who a payment is made for: the merchant behind a key, a plugin site or a payment link. */
export interface PayingMerchant {
  id: string;
  commissionBps: number;
}

/** A checkout request, already shape-checked, in the v1 API's field names. */
export interface CheckoutRequest {
  /** A JSON number from an API body, or the decimal string of a stored amount (payment links). */
  amount: number | string;
  currency: string;
  countryCode: string;
  destinationAsset?: string | undefined;
  network?: string | undefined;
  customerEmail?: string | undefined;
  orderId?: string | undefined;
  merchantOrderId?: string | undefined;
  successUrl?: string | undefined;
  /** The hosted page's language (one of PAGE_LOCALES); without it the customer's browser decides. */
  locale?: 'en' | 'de' | 'fr' | 'es' | 'pt' | undefined;
  cancelUrl?: string | undefined;
  webhookUrl?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** Plugin sessions: the connected site whose endpoint and secret get the deliveries. */
  siteId?: string | undefined;
  orderKey?: string | undefined;
  /** Payment-link sessions: the link this session pays. */
  paymentLinkId?: string | undefined;
}

/** The settlement wallet of a merchant for an asset on a network, or a detail saying what is wrong. */
export async function settlementWallet(
  ctx: PaymentContext,
  merchantId: string,
  assetInput: string | undefined,
  networkInput: string | undefined,
  details: ErrorDetail[],
) {
  const asset = (assetInput ?? DEFAULT_ASSET).toUpperCase();
  const network = (networkInput ?? DEFAULT_NETWORK).toLowerCase();
  if (!isSupportedPair(asset, network)) {
    details.push({ path: 'network', message: `${asset} on ${network} is not supported.` });
    return { asset, network, address: undefined };
  }
  const address = await walletAddress(ctx.db, merchantId, asset, network);
  if (!address) details.push({ path: 'network', message: `No settlement wallet is set for ${asset} on ${network}.` });
  return { asset, network, address };
}

// A merchant's settlement wallets, kept per process once found. A wallet is set or replaced,
// never removed, so a kept one can only be out of date in its address, which a checkout session never
// takes from here: its insert reads the address itself (insertNewCheckoutSession). A miss is never kept.
const knownWallets = new WeakMap<Database, Map<string, string>>();
const KNOWN_WALLETS_MAX = 10_000;

async function walletAddress(db: Database, merchantId: string, asset: string, network: string): Promise<string | undefined> {
  const key = `${merchantId}:${asset}:${network}`;
  let known = knownWallets.get(db);
  if (!known) knownWallets.set(db, (known = new Map<string, string>()));
  const hit = known.get(key);
  if (hit) return hit;
  const found = (await listWallets(db, merchantId)).find((w) => w.asset === asset && w.network === network)?.address;
  if (found) {
    if (known.size >= KNOWN_WALLETS_MAX) known.clear();
    known.set(key, found);
  }
  return found;
}

/**
 * The one way a checkout session comes to exist (v1 create, plugin create and payment links all call
 * it): the amount and currency rules, the kill switch, provider routing, the settlement wallet, then the
 * session row and its workflow together or not at all.
 */
export async function openCheckoutSession(
  ctx: PaymentContext,
  merchant: PayingMerchant,
  request: CheckoutRequest,
  source: CheckoutSessionRow['source'] = 'api',
): Promise<CheckoutSessionRow> {
  const { config, db, providers, now } = ctx;
  const details: ErrorDetail[] = [];
  const fiat = parseFiat(config.checkout, request.amount, request.currency, details);
  const countryCode = request.countryCode.toUpperCase();
  const currency = request.currency.toUpperCase();
  const provider = isFiatCurrency(currency) ? providers.route(countryCode, currency) : undefined;
  if (isFiatCurrency(currency) && !provider) {
    details.push({ path: 'countryCode', message: `No payment provider serves ${countryCode} in ${currency}.` });
  }
  const wallet = await settlementWallet(ctx, merchant.id, request.destinationAsset, request.network, details);
  const verification = verificationOf(config, wallet.network, wallet.asset, details);
  if (request.webhookUrl) {
    const refusal = await checkWebhookTarget(request.webhookUrl, config.allowPrivateUrls);
    if (refusal) details.push({ path: 'webhookUrl', message: refusal });
  }
  if (details.length > 0 || !fiat || !provider || !wallet.address)
    throw new AppError('ValidationError', 'The checkout session is not valid.', { details });
  // Checked after validation, so a malformed request is told what is wrong with it either way.
  await ensurePaymentsEnabled(db);

  const id = newPaymentId();
  const expiresAt = new Date(now().getTime() + config.checkout.sessionTtlSeconds * 1000);
  const orderRef = request.orderId ?? request.merchantOrderId;
  const input: CheckoutSessionInput = {
    paymentId: id,
    merchantId: merchant.id,
    provider: provider.name,
    expiresAt: expiresAt.toISOString(),
    verification,
    providerProofTimeoutMs: config.chains.providerProofTimeoutSeconds * 1000,
  };
  const row = await openPayment(ctx, {
    workflowType: CHECKOUT_SESSION_WORKFLOW,
    workflowId: id,
    args: [input],
    searchAttributes: [
      { key: MerchantIdKey, value: merchant.id },
      { key: PaymentStatusKey, value: 'pending' },
      { key: ProviderKey, value: provider.name },
      ...(orderRef ? [{ key: OrderIdKey, value: orderRef }] : []),
    ],
    // One prepared statement: the row with its settlement wallet's address as stored now and, for a
    // chain-verified session, its deposit address (the network sweeper's forwarder for the next
    // index) with the address's own row.
    insert: async () => {
      const values: NewSessionValues = {
        id,
        verification,
        merchantId: merchant.id,
        source,
        amountMinor: fiat.minor,
        currency: fiat.currency,
        countryCode,
        destinationAsset: wallet.asset,
        network: wallet.network,
        commissionBps: merchant.commissionBps,
        provider: provider.name,
        railType: RAIL_FIAT_TO_CRYPTO,
        customerEmail: request.customerEmail ?? null,
        orderId: request.orderId ?? null,
        merchantOrderId: request.merchantOrderId ?? null,
        successUrl: request.successUrl ?? null,
        locale: request.locale ?? null,
        cancelUrl: request.cancelUrl ?? null,
        webhookUrl: request.webhookUrl ?? null,
        metadata: request.metadata ?? {},
        siteId: request.siteId ?? null,
        orderKey: request.orderKey ?? null,
        paymentLinkId: request.paymentLinkId ?? null,
        expiresAt,
      };
      // Written with the row, so a visible chain-verified session always has one.
      if (verification !== 'chain') return insertNewCheckoutSession(db, values, null);
      return insertNewCheckoutSession(db, values, await nextDepositAddress(db, depositDeriver(config, wallet.network)));
    },
  });
  ctx.log?.('session.created', {
    paymentId: id,
    merchantId: merchant.id,
    workflowId: id,
    railType: row.railType,
    provider: provider.name,
    amount: formatFiat(fiat.minor, fiat.currency),
    currency: fiat.currency,
    destinationAsset: wallet.asset,
    network: wallet.network,
    verification,
    orderId: orderRef ?? null,
    source,
  });
  return row;
}
