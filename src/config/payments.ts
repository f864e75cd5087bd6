import { z } from 'zod';
import { EVM_NETWORKS, type EvmNetwork } from '../domain/assets';
import { parseCrypto } from '../domain/money';

// What a payment may be: a checkout session's life and amounts, and what a simple order costs.

// A stablecoin or USD amount as decimal text (at most 6 decimals), held in micro units: never a float.
const microAmount = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,6})?$/, 'must be a decimal amount with at most 6 decimals')
  .transform((v) => parseCrypto(v));

const DEFAULT_NETWORK_FEES = 'ethereum:5.00,polygon:0.05,base:0.05,arbitrum:0.05';
// SIMPLE_ORDER_NETWORK_FEES: `network:amount` pairs, comma-separated; a network left out keeps its default.
const networkFees = z.string().transform((v, ctx) => {
  const fees = Object.fromEntries(
    DEFAULT_NETWORK_FEES.split(',')
      .map((pair) => pair.split(':') as [EvmNetwork, string])
      .map(([n, a]) => [n, parseCrypto(a)]),
  ) as Record<EvmNetwork, bigint>;
  for (const pair of v
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const match = /^([a-z]+):(\d{1,12}(?:\.\d{1,6})?)$/.exec(pair);
    if (!match || !(EVM_NETWORKS as readonly string[]).includes(match[1]!)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${pair}" is not <network>:<amount> with one of ${EVM_NETWORKS.join(', ')} and at most 6 decimals`,
      });
      return z.NEVER;
    }
    fees[match[1] as EvmNetwork] = parseCrypto(match[2]!);
  }
  return fees;
});

export const paymentVariables = {
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600)
    .default(24 * 3600),
  // A simple order the provider left in `processing` this long has failed (its late money is flagged).
  PROCESSING_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600)
    .default(24 * 3600),
  AMOUNT_MIN_MAJOR: z.coerce.number().int().min(1).default(1),
  AMOUNT_MAX_MAJOR: z.coerce.number().int().min(1).default(1_000_000),
  // A simple order's payout costs the treasury gas: it has the network's sweeper forward the
  // customer's part from the order's deposit address, and a settlement run later sweeps what is left
  // there into the treasury (nothing is ever sent to a deposit for gas). The order pays it back as a
  // flat fee per network, in the stablecoin, deducted from its payout: the fee stays at the deposit
  // until that sweep takes it to the treasury. Defaults cover the gas with room for a tenfold fee
  // spike: cents on the L2s and Polygon, dollars on Ethereum.
  SIMPLE_ORDER_NETWORK_FEES: networkFees.prefault(DEFAULT_NETWORK_FEES),
  // The smallest simple order taken, in USD; an order must also be worth twice its network's fee, so
  // the fee never takes more than half of what the customer bought.
  SIMPLE_ORDER_MIN_USD: microAmount.prefault('1.00'),
};

export interface CheckoutSettings {
  sessionTtlSeconds: number;
  processingTimeoutSeconds: number;
  amountMinMajor: number;
  amountMaxMajor: number;
}

/** What a simple order's payout costs the customer (micro units of the stablecoin / of USD). */
export interface SimpleOrderSettings {
  networkFeeMicro: Readonly<Record<EvmNetwork, bigint>>;
  minUsdMicro: bigint;
}

export function paymentSettingsOf(e: z.output<z.ZodObject<typeof paymentVariables>>): {
  checkout: CheckoutSettings;
  simpleOrders: SimpleOrderSettings;
} {
  return {
    checkout: {
      sessionTtlSeconds: e.SESSION_TTL_SECONDS,
      processingTimeoutSeconds: e.PROCESSING_TIMEOUT_SECONDS,
      amountMinMajor: e.AMOUNT_MIN_MAJOR,
      amountMaxMajor: e.AMOUNT_MAX_MAJOR,
    },
    simpleOrders: { networkFeeMicro: e.SIMPLE_ORDER_NETWORK_FEES, minUsdMicro: e.SIMPLE_ORDER_MIN_USD },
  };
}
