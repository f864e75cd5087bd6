import { z } from 'zod';
import { formatCrypto } from '../domain/money';
import type { NetworkBalance } from '../payments/merchant-settlements';
import { assetName, networkName } from './closed-values';

// A merchant's balance as the merchant API and the operators' API show it (docs/settlement.md): what
// the platform owes it per network and asset, and where it tops that up.

const amount = (description: string, example: string) => z.string().meta({ description, examples: [example] });

export const balanceView = z.object({
  network: networkName,
  asset: assetName,
  pending: amount('Your share of completed payments still on hold, not yet available.', '0.000000'),
  available: amount('What the next payout pays (and what refunds draw on first).', '24.132500'),
  reserved: amount('Kept back for refunds; payouts leave it.', '0.000000'),
});

export const topUpAddressesView = z
  .array(
    z.object({
      network: networkName,
      address: z
        .string()
        .meta({ description: 'Your own deposit address on this network.', examples: ['0x5FbDB2315678afecb367f032d93F642f64180aa3'] }),
    }),
  )
  .meta({
    description:
      'Where you top up your balance: USDC or USDT sent to your address on a network is credited to your `available` balance there once confirmed, ' +
      'for refunds of completed payments. One address per network, made on first read and never changed.',
  });

export const viewBalance = (b: NetworkBalance) => ({
  network: b.network,
  asset: b.asset,
  pending: formatCrypto(b.pending),
  available: formatCrypto(b.available),
  reserved: formatCrypto(b.reserved),
});
