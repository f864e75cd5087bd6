import type { Database } from '../../src/db/client';
import { insertCheckoutSession } from '../../src/db/queries/checkout-sessions';
import { insertTransactionOnce } from '../../src/db/queries/transactions';
import { newPaymentId } from '../../src/domain/ids';

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';

/**
 * A checkout session row (and its transaction, once final) written directly, for tests of read-only
 * operator surfaces; the workflow that writes them for real has its own end-to-end tests.
 * 25.00 USD at 150 bps: 25.000000 gross, 24.625000 to the merchant, 0.375000 commission.
 */
export async function seedPayment(db: Database, merchantId: string, status: 'pending' | 'completed' | 'failed'): Promise<string> {
  const id = newPaymentId();
  const common = { merchantId, destinationAsset: 'USDC', network: 'polygon', walletAddress: EVM, commissionBps: 150, provider: 'sandbox' };
  await insertCheckoutSession(db, {
    ...common,
    id,
    status,
    amountMinor: 2500n,
    currency: 'USD',
    countryCode: 'US',
    railType: 'fiat_to_crypto',
    expiresAt: new Date(Date.now() + 3600_000),
    ...(status === 'completed' ? { completedAt: new Date() } : {}),
  });
  if (status === 'pending') return id;
  await insertTransactionOnce(db, {
    ...common,
    paymentId: id,
    status,
    sourceAmountMinor: 2500n,
    sourceCurrency: 'USD',
    providerEventId: `pe_${id}`,
    ...(status === 'completed'
      ? {
          grossMicro: 25_000_000n,
          merchantSettlementMicro: 24_625_000n,
          platformCommissionMicro: 375_000n,
          transactionHash: `0x${'ab'.repeat(32)}`,
          completedAt: new Date(),
        }
      : { failureReason: 'declined' }),
  });
  return id;
}
