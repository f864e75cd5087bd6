import { describe, expect, it } from 'vitest';
import { transferUri } from '../../src/domain/payment-uri';

describe('wallet URIs in QR codes', () => {
  const evm = { token: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', chainId: 137 };
  it('EVM: EIP-681 ERC-20 transfer with token, chain id and amount in token units', () => {
    expect(
      transferUri({ network: 'polygon', asset: 'USDC', address: '0x52908400098527886E0F7030069857D2E4169EE7', amount: '27.500000', evm }),
    ).toBe(
      'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x52908400098527886E0F7030069857D2E4169EE7&uint256=27500000',
    );
  });
  it('EVM without a token this deployment watches: no URI (the bare address is shown instead)', () => {
    expect(
      transferUri({ network: 'base', asset: 'USDC', address: '0x52908400098527886E0F7030069857D2E4169EE7', amount: '1.000000' }),
    ).toBeNull();
  });
  it('Solana Pay with the SPL mint, and tron: with the TRC-20 contract, amounts as plain decimals', () => {
    expect(
      transferUri({ network: 'solana', asset: 'USDC', address: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', amount: '27.000000' }),
    ).toBe('solana:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin?amount=27&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    expect(transferUri({ network: 'TRON', asset: 'usdt', address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', amount: '1.250000' })).toBe(
      'tron:TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL?amount=1.25&token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    );
    expect(transferUri({ network: 'tron', asset: 'USDC', address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', amount: '1.000000' })).toBeNull();
  });
});
