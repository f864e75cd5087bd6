import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../src/domain/errors';
import { verificationOf } from '../../src/payments/deposits';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { http } from '../support/http';
import { EVM_WALLETS, openSession } from './support';

// Which payments are proven on chain, and networks without a verifier in production.
const ctx = useTestApp({}, { listen: true });
const SOLANA = { asset: 'USDC', network: 'solana', address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV' };
const TRON = { asset: 'USDT', network: 'tron', address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' };

describe('verification', () => {
  it('says chain for EVM networks with a verifier and provider for solana and tron, in the transaction lookup', async () => {
    const m = await createApprovedMerchant(ctx.app, { wallets: [...EVM_WALLETS, SOLANA, TRON] });
    const cases = [
      [{ network: 'polygon' }, 'chain'],
      [{ network: 'ethereum' }, 'chain'],
      [{ network: 'solana' }, 'provider'],
      [{ destinationAsset: 'USDT', network: 'tron' }, 'provider'],
    ] as const;
    for (const [body, verification] of cases) {
      const id = await openSession(ctx, m.apiKey, body);
      const tx = await http('GET', `${ctx.baseUrl}/api/v1/transactions/${id}`, { headers: { authorization: `Bearer ${m.apiKey}` } });
      expect(tx.json.transaction.verification).toBe(verification);
    }
  });

  it('refuses networks without a verifier in production unless ALLOW_UNVERIFIED_NETWORKS is set', () => {
    const production = { ...ctx.config, nodeEnv: 'production' as const };
    const refused: ErrorDetail[] = [];
    expect(verificationOf(production, 'solana', 'USDC', refused)).toBe('provider');
    expect(refused).toEqual([{ path: 'network', message: expect.stringContaining('ALLOW_UNVERIFIED_NETWORKS') }]);

    const allowed: ErrorDetail[] = [];
    verificationOf({ ...production, chains: { ...production.chains, allowUnverifiedNetworks: true } }, 'tron', 'USDT', allowed);
    expect(allowed).toEqual([]);

    // An EVM network without an RPC URL has no verifier either.
    const noPolygon: ErrorDetail[] = [];
    const withoutPolygon = {
      ...production,
      chains: { ...production.chains, networks: production.chains.networks.filter((n) => n.network !== 'polygon') },
    };
    expect(verificationOf(withoutPolygon, 'polygon', 'USDC', noPolygon)).toBe('provider');
    expect(noPolygon).toHaveLength(1);
    const fine: ErrorDetail[] = [];
    expect(verificationOf(production, 'polygon', 'USDC', fine)).toBe('chain');
    expect(fine).toEqual([]);
  });

  it('answers 422 for a session on an unverified network when the config refuses them', async () => {
    const m = await createApprovedMerchant(ctx.app, { wallets: [SOLANA] });
    const saved = { nodeEnv: ctx.config.nodeEnv };
    // The app reads the same config object; production mode for this one request.
    Object.assign(ctx.config, { nodeEnv: 'production' });
    try {
      const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
        headers: { authorization: `Bearer ${m.apiKey}` },
        body: { amount: 25, currency: 'USD', countryCode: 'US', network: 'solana' },
      });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.json)).toContain('ALLOW_UNVERIFIED_NETWORKS');
    } finally {
      Object.assign(ctx.config, saved);
    }
  });
});
