import { describe, expect, it, inject } from 'vitest';
import { adminHeaders, useTestApp } from '../support/harness';

describe('GET /admin/v1/chains', () => {
  const ctx = useTestApp({
    // A hosted node's URL with its key in the path: never shown.
    CHAIN_ETHEREUM_RPC_URL: `${inject('chainRpcUrl')}/v2/AbCdEf0123456789XyZ_abcdEF?token=secret`,
  });

  it('lists the four EVM networks of the dev chain with their tokens, the treasury and the sweeper', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/admin/v1/chains', headers: adminHeaders });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.ok).toBe(true);
    expect(body.chains.map((c: { network: string }) => c.network)).toEqual(['ethereum', 'polygon', 'base', 'arbitrum']);
    const tokens = inject('chainTokens');
    const polygon = body.chains.find((c: { network: string }) => c.network === 'polygon');
    expect(polygon).toEqual({
      network: 'polygon',
      chainId: 31337,
      rpcUrl: inject('chainRpcUrl'),
      confirmations: 1,
      tokens: { USDC: tokens.polygon.USDC, USDT: tokens.polygon.USDT },
      treasury: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      sweeper: inject('chainSweepers').polygon,
    });
  });

  it('never shows an API key of the RPC URL, nor the mnemonic', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/admin/v1/chains', headers: adminHeaders });
    const ethereum = res.json().chains.find((c: { network: string }) => c.network === 'ethereum');
    expect(ethereum.rpcUrl).toBe(`${inject('chainRpcUrl')}/v2/***?***`);
    expect(res.body).not.toContain('AbCdEf0123456789XyZ_abcdEF');
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('test test');
  });

  it('refuses without the admin token', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/admin/v1/chains' });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('chains');
  });
});
