import { allocateDepositAddress, findDepositAddressesByReference } from '../db/queries/deposit-addresses';
import { topUpReference } from '../domain/balances';
import type { PaymentContext } from './context';
import { depositDeriver } from './deposits';

/** Where a merchant sends money to its own balance on one network (docs/settlement.md). */
export interface TopUpAddress {
  network: string;
  address: string;
}

/**
 * The merchant's top-up address on each network whose deposits the service sweeps, made on first
 * read and never changed after: a deposit address like a payment's, watched for good, whose money
 * (any configured stablecoin) is credited to the merchant's available balance once confirmed, and
 * swept into the treasury by the next settlement run.
 */
export async function merchantTopUpAddresses(ctx: Pick<PaymentContext, 'db' | 'config'>, merchantId: string): Promise<TopUpAddress[]> {
  if (!ctx.config.chains.settlementMnemonic) return [];
  const networks = ctx.config.chains.networks.filter((n) => n.sweeper).map((n) => n.network);
  const existing = new Map(
    (
      await findDepositAddressesByReference(
        ctx.db,
        networks.map((n) => topUpReference(merchantId, n)),
      )
    ).map((r) => [r.network, r.address]),
  );
  const addresses: TopUpAddress[] = [];
  for (const network of networks) {
    const address =
      existing.get(network) ??
      (
        await allocateDepositAddress(ctx.db, {
          paymentReference: topUpReference(merchantId, network),
          network,
          derive: depositDeriver(ctx.config, network),
        })
      ).row.address;
    addresses.push({ network, address });
  }
  return addresses;
}
