import { randomUUID } from 'node:crypto';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Config } from '../../config';
import type { Database } from '../../db/client';
import { getPaymentsSetting } from '../../db/queries/platform-settings';
import { deleteUnstartedSimpleOrder, insertSimpleOrder, markSimpleOrderStarted, type SimpleOrderRow } from '../../db/queries/simple-orders';
import { isSupportedPair, isWalletAddressFor, type Network } from '../../domain/assets';
import { isFiatCurrency } from '../../domain/currencies';
import { AppError, type ErrorDetail } from '../../domain/errors';
import type { ProviderRegistry } from '../../providers/registry';
import { checkWebhookTarget } from '../../webhooks/target-policy';
import { choosePaymentUpdate, SIMPLE_ORDER_WORKFLOW, type PaymentInstructions } from '../../workflows/simple-order/messages';
import type { simpleOrder } from '../../workflows/simple-order/workflow';
import { parseAmount } from '../checkout/open-session';
import { isUnavailable } from '../plugins/errors';
import { fiatProvider, usdMicroOf } from './rails';

export interface SimpleDeps {
  config: Config;
  db: Database;
  temporal: Client;
  providers: ProviderRegistry;
  now: () => Date;
}

export interface SimpleCheckoutBody {
  fiat_amount: number;
  fiat_currency: string;
  external_reference?: string | undefined;
  webhook_url?: string | undefined;
  success_url?: string | undefined;
  cancel_url?: string | undefined;
  customer: { wallet_address: string; crypto_currency: string; crypto_currency_network: string };
}

const TEMPORAL_DEADLINE_MS = 5000;
const UPDATE_DEADLINE_MS = 30_000;

/** A simple-API transaction code: a UUID v4 (decisions §1). */
export const TRANSACTION_CODE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const isTransactionCode = (value: string) => TRANSACTION_CODE.test(value);

/** Fiat amount and currency of the simple API, checked like v1's (decisions §4). */
export function parseFiat(config: Config, amount: number | string, currencyInput: string, details: ErrorDetail[]) {
  const currency = currencyInput.toUpperCase();
  if (!isFiatCurrency(currency)) {
    details.push({ path: 'fiat_currency', message: `Unsupported currency ${currencyInput}.` });
    return null;
  }
  const amountDetails: ErrorDetail[] = [];
  const minor = parseAmount(amount, currency, config.checkout, amountDetails);
  details.push(...amountDetails.map((d) => ({ ...d, path: 'fiat_amount' })));
  return minor === null ? null : { minor, currency };
}

/** POST /api/checkout: a pending order row and its workflow, together or not at all. */
export async function openSimpleOrder(deps: SimpleDeps, body: SimpleCheckoutBody): Promise<SimpleOrderRow> {
  const { config, db, temporal, providers, now } = deps;
  const details: ErrorDetail[] = [];
  const fiat = parseFiat(config, body.fiat_amount, body.fiat_currency, details);
  if (fiat && !fiatProvider(providers, fiat.currency)) details.push({ path: 'fiat_currency', message: `No payment provider takes ${fiat.currency}.` });

  const asset = body.customer.crypto_currency.toUpperCase();
  const network = body.customer.crypto_currency_network.toLowerCase();
  if (!isSupportedPair(asset, network)) {
    details.push({ path: 'customer.crypto_currency_network', message: `${asset} on ${network.toUpperCase()} is not supported.` });
  } else if (!isWalletAddressFor(network as Network, body.customer.wallet_address)) {
    details.push({ path: 'customer.wallet_address', message: `Not a ${network.toUpperCase()} address.` });
  }
  if (body.webhook_url) {
    const refusal = await checkWebhookTarget(body.webhook_url, config.allowPrivateUrls);
    if (refusal) details.push({ path: 'webhook_url', message: refusal });
  }
  if (details.length > 0 || !fiat) {
    const first = details[0];
    throw new AppError('ValidationError', first ? `${first.path}: ${first.message}` : 'The checkout is not valid.', { details });
  }
  if (!(await getPaymentsSetting(db)).enabled) {
    throw new AppError('PaymentsDisabled', 'New payments are disabled on this platform for now.');
  }

  const code = randomUUID();
  const expiresAt = new Date(now().getTime() + config.checkout.sessionTtlSeconds * 1000);
  const row = await insertSimpleOrder(db, {
    transactionCode: code,
    fiatAmountMinor: fiat.minor,
    fiatCurrency: fiat.currency,
    amountUsdMicro: usdMicroOf(fiat.minor, fiat.currency),
    walletAddress: body.customer.wallet_address,
    walletCurrency: asset,
    walletNetwork: network,
    externalReference: body.external_reference ?? null,
    webhookUrl: body.webhook_url ?? null,
    successUrl: body.success_url ?? null,
    cancelUrl: body.cancel_url ?? null,
    expiresAt,
  });
  try {
    await temporal.connection.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () =>
      temporal.workflow.start<typeof simpleOrder>(SIMPLE_ORDER_WORKFLOW, {
        workflowId: code,
        taskQueue: config.temporal.taskQueue,
        args: [{ transactionCode: code, expiresAt: expiresAt.toISOString(), hasWebhook: Boolean(body.webhook_url) }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      }),
    );
  } catch (err) {
    await deleteUnstartedSimpleOrder(db, code);
    if (isUnavailable(err)) throw new AppError('Unavailable', 'The payment engine is unavailable; nothing was created.');
    throw err;
  }
  await markSimpleOrderStarted(db, code);
  return { ...row, workflowStarted: true };
}

/** The customer's rail choice, through the order's workflow (idempotent per transaction code). */
export async function choosePayment(temporal: Client, code: string, slug: string): Promise<PaymentInstructions> {
  try {
    return await temporal.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
      temporal.workflow.getHandle(code).executeUpdate(choosePaymentUpdate, { args: [slug] }),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new AppError('Conflict', 'This order can no longer be paid.');
    if (err instanceof WorkflowUpdateFailedError) {
      const type = (err.cause as { type?: string } | undefined)?.type;
      if (type === 'NotPayable') throw new AppError('Conflict', 'This order can no longer be paid.');
      throw new AppError('Unavailable', 'The payment provider could not prepare this payment; please retry.');
    }
    if (isUnavailable(err)) throw new AppError('Unavailable', 'The payment engine is unavailable; please retry.');
    throw err;
  }
}
