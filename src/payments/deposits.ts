import { depositSalt, forwarderAddress } from '../chains/sweeper';
import type { ChainNetworkConfig, Config } from '../config';
import { allocateDepositAddress } from '../db/queries/deposit-addresses';
import { setExpectedGross, type CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { setOrderExpectedGross, type SimpleOrderRow } from '../db/queries/simple-orders';
import type { Rail } from '../domain/rails';
import { fiatProvider } from './rails';
import { isFiatCurrency } from '../domain/currencies';
import { AppError } from '../domain/errors';
import { formatFiat, parseCrypto } from '../domain/money';
import type { ErrorDetail } from '../domain/errors';
import type { PaymentContext } from './context';

// Where a payment's money must arrive and how much of it, for the networks that have
// a chain verifier. Networks without one keep the provider's word, and production refuses them
// unless the operator allowed it.

export type Verification = 'chain' | 'provider';

/** The configured chain that can verify `asset` on `network`, if any. */
export function verifierFor(config: Config, network: string, asset: string): ChainNetworkConfig | undefined {
  const chain = config.chains.networks.find((n) => n.network === network);
  if (!chain || !config.chains.settlementMnemonic) return undefined;
  return chain.tokens[asset as keyof ChainNetworkConfig['tokens']] ? chain : undefined;
}

/** How a payment on this network will be proven, or a detail saying it may not be taken here. */
export function verificationOf(config: Config, network: string, asset: string, details: ErrorDetail[], path = 'network'): Verification {
  if (verifierFor(config, network, asset)) return 'chain';
  if (config.nodeEnv === 'production' && !config.chains.allowUnverifiedNetworks) {
    details.push({ path, message: `${asset} on ${network} cannot be verified on chain here (ALLOW_UNVERIFIED_NETWORKS is off).` });
  }
  return 'provider';
}

/**
 * The payment's own deposit address (idempotent per payment id), for a chain-verified payment: the
 * network's sweeper forwarder of its index (docs/settlement.md), one hash, no key behind it.
 */
export async function depositAddressFor(ctx: PaymentContext, paymentId: string, network: string): Promise<string> {
  const mnemonic = ctx.config.chains.settlementMnemonic;
  if (!mnemonic) throw new Error('deposit addresses need SETTLEMENT_MNEMONIC');
  const { row } = await allocateDepositAddress(ctx.db, {
    paymentReference: paymentId,
    network,
    derive: depositDeriver(ctx.config, network),
  });
  return row.address;
}

export function depositDeriver(config: Config, network: string): (index: number) => string {
  const sweeper = config.chains.networks.find((n) => n.network === network)?.sweeper;
  if (!sweeper) throw new Error(`${network} has no sweeper`);
  return (index) => forwarderAddress(sweeper, depositSalt(BigInt(index)));
}

/** Where the provider delivers: the deposit address when the payment has one, else the merchant's wallet. */
export const deliveryAddress = (s: Pick<CheckoutSessionRow, 'depositAddress' | 'walletAddress'>) => s.depositAddress ?? s.walletAddress;

/** Where the provider delivers for a simple order: its own deposit address when it has one, else the customer's wallet. */
export const orderDeliveryAddress = (o: Pick<SimpleOrderRow, 'chainDepositAddress' | 'walletAddress'>) =>
  o.chainDepositAddress ?? o.walletAddress;

/** The stablecoin the provider quotes to deliver for a fiat amount: the G of a fiat rail. */
async function quotedGross(
  ctx: PaymentContext,
  provider: string,
  terms: { fiatMinor: bigint; currency: string; asset: string; network: string },
): Promise<bigint> {
  const adapter = ctx.providers.get(provider);
  const currency = terms.currency;
  if (!adapter || !isFiatCurrency(currency)) throw new AppError('Conflict', 'This payment cannot be priced.');
  try {
    const quote = await adapter.quote({
      sourceAmount: formatFiat(terms.fiatMinor, currency),
      sourceCurrency: currency,
      destinationAsset: terms.asset,
      network: terms.network,
    });
    return parseCrypto(quote.destinationAmount);
  } catch {
    throw new AppError('Unavailable', 'The payment provider cannot price this amount right now; please retry in a moment.');
  }
}

/**
 * G for a chain-verified session: the provider's quote for the session's terms, taken now (the
 * customer pressed Pay or asked for the direct rail) and kept; a later quote never replaces it.
 * Null for a provider-verified session.
 */
export async function fixExpectedGross(ctx: PaymentContext, session: CheckoutSessionRow): Promise<bigint | null> {
  if (session.verification !== 'chain' || session.expectedGrossMicro !== null) return session.expectedGrossMicro;
  const micro = await quotedGross(ctx, session.provider, {
    fiatMinor: session.amountMinor,
    currency: session.currency,
    asset: session.destinationAsset,
    network: session.network,
  });
  return setExpectedGross(ctx.db, session.id, micro);
}

/**
 * G for a chain-verified simple order, fixed when the customer chooses a rail, as for a session:
 * the provider's quote on a fiat rail, or on a crypto rail the amount it is asked to forward (the
 * order's USD value). The first one taken stands.
 */
export async function fixOrderExpectedGross(ctx: PaymentContext, order: SimpleOrderRow, rail: Rail): Promise<bigint | null> {
  if (order.verification !== 'chain') return null;
  if (order.expectedGrossMicro !== null) return order.expectedGrossMicro;
  const provider = isFiatCurrency(order.fiatCurrency) ? fiatProvider(ctx.providers, order.fiatCurrency)?.name : undefined;
  const micro =
    rail.type === 'crypto'
      ? order.amountUsdMicro
      : await quotedGross(ctx, provider ?? '', {
          fiatMinor: order.fiatAmountMinor,
          currency: order.fiatCurrency,
          asset: order.walletCurrency,
          network: order.walletNetwork,
        });
  return setOrderExpectedGross(ctx.db, order.transactionCode, micro);
}
