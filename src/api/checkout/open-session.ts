import type { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Config } from '../../config';
import type { Database } from '../../db/client';
import {
  deleteUnstartedSession,
  insertCheckoutSession,
  markWorkflowStarted,
  type CheckoutSessionRow,
} from '../../db/queries/checkout-sessions';
import { listWallets } from '../../db/queries/merchants';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import { DEFAULT_ASSET, DEFAULT_NETWORK, isSupportedPair } from '../../domain/assets';
import { isFiatCurrency, type FiatCurrency } from '../../domain/currencies';
import { AppError, type ErrorDetail } from '../../domain/errors';
import { newPaymentId } from '../../domain/ids';
import { AmountError, fiatDecimals, toUnits } from '../../domain/money';
import { RAIL_FIAT_TO_CRYPTO } from '../../domain/payment-status';
import type { ProviderRegistry } from '../../providers/registry';
import { checkWebhookTarget } from '../../webhooks/target-policy';
import type { checkoutSession } from '../../workflows/checkout-session/workflow';
import { CHECKOUT_SESSION_WORKFLOW } from '../../workflows/checkout-session/messages';
import { MerchantIdKey, OrderIdKey, PaymentStatusKey, ProviderKey } from '../../workflows/search-attributes';
import type { AuthenticatedMerchant } from '../plugins/merchant-auth';
import { isUnavailable } from '../plugins/errors';

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
  cancelUrl?: string | undefined;
  webhookUrl?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** Plugin sessions: the connected site whose endpoint and secret get the deliveries. */
  siteId?: string | undefined;
  orderKey?: string | undefined;
  /** Payment-link sessions: the link this session pays. */
  paymentLinkId?: string | undefined;
}

export interface OpenSessionDeps {
  config: Config;
  db: Database;
  temporal: Client;
  providers: ProviderRegistry;
  now: () => Date;
}

const TEMPORAL_START_DEADLINE_MS = 5000;

/**
 * The one way a checkout session comes to exist (v1 create, plugin create and payment links all call
 * it): rules of decisions §4–§5, the kill switch, provider routing, the settlement wallet, then a
 * session row and its workflow together or not at all.
 */
export async function openCheckoutSession(
  deps: OpenSessionDeps,
  merchant: AuthenticatedMerchant,
  request: CheckoutRequest,
  source: CheckoutSessionRow['source'] = 'api',
): Promise<CheckoutSessionRow> {
  const { config, db, temporal, providers, now } = deps;
  const details: ErrorDetail[] = [];

  const currency = request.currency.toUpperCase();
  let amountMinor: bigint | null = null;
  if (!isFiatCurrency(currency)) {
    details.push({ path: 'currency', message: `Unsupported currency ${request.currency}.` });
  } else {
    amountMinor = parseAmount(request.amount, currency, config.checkout, details);
  }

  const countryCode = request.countryCode.toUpperCase();
  const provider = isFiatCurrency(currency) ? providers.route(countryCode, currency) : undefined;
  if (isFiatCurrency(currency) && !provider) {
    details.push({ path: 'countryCode', message: `No payment provider serves ${countryCode} in ${currency}.` });
  }

  const asset = (request.destinationAsset ?? DEFAULT_ASSET).toUpperCase();
  const network = (request.network ?? DEFAULT_NETWORK).toLowerCase();
  let walletAddress: string | undefined;
  if (!isSupportedPair(asset, network)) {
    details.push({ path: 'network', message: `${asset} on ${network} is not supported.` });
  } else {
    walletAddress = (await listWallets(db, merchant.id)).find((w) => w.asset === asset && w.network === network)?.address;
    if (!walletAddress) details.push({ path: 'network', message: `No settlement wallet is set for ${asset} on ${network}.` });
  }
  if (request.webhookUrl) {
    const refusal = await checkWebhookTarget(request.webhookUrl, config.allowPrivateUrls);
    if (refusal) details.push({ path: 'webhookUrl', message: refusal });
  }
  if (details.length > 0) throw new AppError('ValidationError', 'The checkout session is not valid.', { details });

  // Checked after validation, so a malformed request is told what is wrong with it either way.
  if (!(await getPaymentsSetting(db)).enabled) {
    throw new AppError('PaymentsDisabled', 'New payments are disabled on this platform for now.');
  }

  const id = newPaymentId();
  const expiresAt = new Date(now().getTime() + config.checkout.sessionTtlSeconds * 1000);
  const row = await insertCheckoutSession(db, {
    id,
    merchantId: merchant.id,
    source,
    amountMinor: amountMinor!,
    currency,
    countryCode,
    destinationAsset: asset,
    network,
    walletAddress: walletAddress!,
    commissionBps: merchant.commissionBps,
    provider: provider!.name,
    railType: RAIL_FIAT_TO_CRYPTO,
    customerEmail: request.customerEmail ?? null,
    orderId: request.orderId ?? null,
    merchantOrderId: request.merchantOrderId ?? null,
    successUrl: request.successUrl ?? null,
    cancelUrl: request.cancelUrl ?? null,
    webhookUrl: request.webhookUrl ?? null,
    metadata: request.metadata ?? {},
    siteId: request.siteId ?? null,
    orderKey: request.orderKey ?? null,
    paymentLinkId: request.paymentLinkId ?? null,
    expiresAt,
  });

  const orderRef = request.orderId ?? request.merchantOrderId;
  try {
    await temporal.connection.withDeadline(Date.now() + TEMPORAL_START_DEADLINE_MS, () =>
      temporal.workflow.start<typeof checkoutSession>(CHECKOUT_SESSION_WORKFLOW, {
        workflowId: id,
        taskQueue: config.temporal.taskQueue,
        args: [{ paymentId: id, merchantId: merchant.id, provider: provider!.name, expiresAt: expiresAt.toISOString() }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        typedSearchAttributes: [
          { key: MerchantIdKey, value: merchant.id },
          { key: PaymentStatusKey, value: 'pending' },
          { key: ProviderKey, value: provider!.name },
          ...(orderRef ? [{ key: OrderIdKey, value: orderRef }] : []),
        ],
      }),
    );
  } catch (err) {
    await deleteUnstartedSession(db, id);
    if (isUnavailable(err)) {
      throw new AppError('Unavailable', 'The payment engine is unavailable; nothing was created. Retry with the same Idempotency-Key.');
    }
    throw err;
  }
  await markWorkflowStarted(db, id);
  return { ...row, workflowStarted: true };
}

export function parseAmount(amount: number | string, currency: FiatCurrency, bounds: Config['checkout'], details: ErrorDetail[]): bigint | null {
  const decimals = fiatDecimals(currency);
  let minor: bigint;
  try {
    minor = toUnits(amount, decimals);
  } catch (err) {
    details.push({ path: 'amount', message: err instanceof AmountError ? `${currency} amount ${err.message}.` : 'Invalid amount.' });
    return null;
  }
  const scale = 10n ** BigInt(decimals);
  if (minor < BigInt(bounds.amountMinMajor) * scale || minor > BigInt(bounds.amountMaxMajor) * scale) {
    details.push({ path: 'amount', message: `Amount must be between ${bounds.amountMinMajor} and ${bounds.amountMaxMajor} ${currency}.` });
    return null;
  }
  return minor;
}
