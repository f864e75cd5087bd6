import { z } from 'zod';
import { ASSETS, NETWORKS } from '../domain/assets';
import { PAYMENT_STATUSES, SIMPLE_ORDER_STATUSES } from '../domain/payment-status';
import { RAIL_CRYPTO_TRANSFER, RAIL_FIAT_TO_CRYPTO } from '../domain/payment-labels';

// The closed value sets of the API (enums for statuses, rails, assets, networks, event
// types), one schema each, so every route that shows one documents the same set. Statuses and rails
// are typed in the code, so their schemas check what is sent. Assets and networks are text in
// Postgres, written only after the checks, and are accepted in any case on input
// (`usdc`, `Polygon`): their set is documented here for clients without being re-checked on output.

export const paymentStatus = z
  .enum(PAYMENT_STATUSES)
  .meta({ description: 'pending → processing → completed | failed; pending | processing → expired; pending → canceled.' });
export const simpleOrderStatus = z.enum(SIMPLE_ORDER_STATUSES);
export const railType = z.enum([RAIL_FIAT_TO_CRYPTO, RAIL_CRYPTO_TRANSFER]).meta({
  description: 'fiat_to_crypto (through the provider) or crypto_transfer (paid from the customer’s own wallet).',
  examples: [RAIL_FIAT_TO_CRYPTO],
});
export const mode = z
  .enum(['live', 'test'])
  .meta({ description: 'live (records created in test mode earlier are read-only).', examples: ['live'] });

/** A stablecoin's symbol as the API writes it. */
export const assetName = z.string().meta({ enum: [...ASSETS], examples: ['USDC'] });
/** A network's name as the API writes it. */
export const networkName = z.string().meta({ enum: [...NETWORKS], examples: ['polygon'] });
