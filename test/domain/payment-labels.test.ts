import { describe, expect, it } from 'vitest';
import { merchantPaymentLabels, paidWithOf, paidWithText, partPayment } from '../../src/domain/payment-labels';
import { settlementsCsv } from '../../src/domain/settlements-csv';

// How a payment reads to its merchant on every page and in every CSV: a wallet payment never names
// the provider, and an open payment shows what of its money arrived.
describe('payment labels', () => {
  const session = { status: 'pending', railType: 'fiat_to_crypto', provider: 'sandbox', providerPaymentId: null };

  it('names the wallet for a wallet payment, and for money that arrived with no provider payment asked for', () => {
    expect(paidWithOf({ ...session, status: 'completed', railType: 'crypto_transfer', arrivedMicro: 0n })).toBe('wallet');
    expect(paidWithOf({ ...session, arrivedMicro: 10_000_000n })).toBe('wallet');
    expect(paidWithOf({ ...session, arrivedMicro: 0n })).toBe('none');
    expect(paidWithOf({ ...session, providerPaymentId: 'sbx_1', arrivedMicro: 10_000_000n })).toBe('provider');
    expect(paidWithOf({ ...session, status: 'completed', providerPaymentId: 'sbx_1', arrivedMicro: 0n })).toBe('provider');
  });

  it('keeps the provider only where it took part', () => {
    expect(merchantPaymentLabels({ ...session, status: 'completed', railType: 'crypto_transfer' }, 0n)).toEqual({
      paidWith: 'wallet',
      provider: null,
    });
    expect(merchantPaymentLabels(session, 5n)).toEqual({ paidWith: 'wallet', provider: null });
    expect(merchantPaymentLabels(session, 0n)).toEqual({ paidWith: 'none', provider: null });
    expect(merchantPaymentLabels({ ...session, providerPaymentId: 'sbx_1' }, 0n)).toEqual({ paidWith: 'provider', provider: 'sandbox' });
  });

  it('says it in words', () => {
    expect(paidWithText('wallet', 'sandbox')).toBe("From the customer's wallet");
    expect(paidWithText('provider', 'sandbox')).toBe('Through sandbox');
    expect(paidWithText('none', null)).toBe('Not paid');
  });

  it('finds a part payment only while open, chain-verified, with its gross fixed and some but not all of it arrived', () => {
    const open = { status: 'pending', verification: 'chain', depositAddress: '0xabc', expectedGrossMicro: 25_000_000n };
    expect(partPayment(open, 10_000_000n)).toEqual({ arrivedMicro: 10_000_000n, expectedMicro: 25_000_000n });
    expect(partPayment({ ...open, status: 'processing' }, 1n)).toEqual({ arrivedMicro: 1n, expectedMicro: 25_000_000n });
    expect(partPayment(open, 0n)).toBeNull();
    expect(partPayment(open, 25_000_000n)).toBeNull();
    expect(partPayment({ ...open, status: 'expired' }, 10_000_000n)).toBeNull();
    expect(partPayment({ ...open, verification: 'provider' }, 10_000_000n)).toBeNull();
    expect(partPayment({ ...open, depositAddress: null }, 10_000_000n)).toBeNull();
    expect(partPayment({ ...open, expectedGrossMicro: null }, 10_000_000n)).toBeNull();
  });

  it('writes how each settled payment was paid in the settlements CSV, last', () => {
    const line = {
      paymentId: 'SV_1',
      asset: 'USDC',
      network: 'polygon',
      grossMicro: 25_000_000n,
      commissionMicro: 375_000n,
      netMicro: 24_625_000n,
      depositTransactionHash: null,
      payoutTransactionHash: '0x1',
      completedAt: null,
      settledAt: new Date(0),
      orderId: null,
    };
    const [header, wallet, provider] = settlementsCsv([
      { ...line, railType: 'crypto_transfer', provider: null },
      { ...line, railType: 'fiat_to_crypto', provider: 'sandbox' },
    ]).split('\r\n');
    expect(header!.split(',').at(-1)).toBe('paid_with');
    expect(wallet!.split(',').slice(-4)).toEqual(['crypto_transfer', '', '', "From the customer's wallet"]);
    expect(provider!.split(',').slice(-4)).toEqual(['fiat_to_crypto', 'sandbox', '', 'Through sandbox']);
  });
});
