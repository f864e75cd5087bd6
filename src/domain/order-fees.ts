import { isEvmNetwork, type EvmNetwork } from './assets';

// A simple order pays its own payout's gas. The operator sets a flat fee per
// network (SIMPLE_ORDER_NETWORK_FEES) and a minimum order (SIMPLE_ORDER_MIN_USD); the fee is fixed on
// the order when it is opened and deducted from its payout, so the treasury's gas is never paid by
// merchants' commission. Pure: the use case, the payout plan and payment_options all decide with it.

export interface OrderFeeSettings {
  networkFeeMicro: Readonly<Record<EvmNetwork, bigint>>;
  minUsdMicro: bigint;
}

export interface OrderPayoutTerms {
  /** Deducted from the payout to the customer's wallet; 0 where we pay nothing out (no verifier). */
  feeMicro: bigint;
  /** The smallest order taken: the configured minimum, and at least twice the fee. */
  minimumUsdMicro: bigint;
}

/** The terms of an order paid out on `network`: only chain-verified orders are paid out by us. */
export function orderPayoutTerms(settings: OrderFeeSettings, network: string, verification: 'chain' | 'provider'): OrderPayoutTerms {
  const feeMicro = verification === 'chain' && isEvmNetwork(network) ? settings.networkFeeMicro[network] : 0n;
  const twice = 2n * feeMicro;
  return { feeMicro, minimumUsdMicro: settings.minUsdMicro > twice ? settings.minUsdMicro : twice };
}

/** What a settled order's payout sends: the customer gets the rest of what arrived after the fee. */
export function orderPayoutSplit(receivedMicro: bigint, feeMicro: bigint): { customerMicro: bigint; feeMicro: bigint } {
  const fee = feeMicro < receivedMicro ? feeMicro : receivedMicro;
  return { customerMicro: receivedMicro - fee, feeMicro: fee };
}
