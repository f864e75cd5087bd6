import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSandboxApp } from '../../sandbox/app';
import { balanceOf, randomAddress, sharedChain } from '../support/chain';
import { testConfig } from '../support/harness';

describe('sandbox faucet: POST /test-helpers/faucet', () => {
  const chain = sharedChain();
  let sandbox: FastifyInstance;
  beforeAll(async () => {
    const config = testConfig('postgres://unused@127.0.0.1/unused');
    sandbox = buildSandboxApp({
      apiKey: config.providers.sandbox.apiKey,
      callbackSecret: config.providers.sandbox.callbackSecret,
      publicUrl: config.providers.sandbox.url,
      serviceUrl: config.http.publicBaseUrl,
      chains: config.chains.networks,
    });
    await sandbox.ready();
  });
  afterAll(() => sandbox?.close());

  const faucet = (payload: Record<string, unknown>) => sandbox.inject({ method: 'POST', url: '/test-helpers/faucet', payload });

  it("mints the network's own token to the address, in micro units", async () => {
    const address = randomAddress();
    const res = await faucet({ network: 'polygon', asset: 'usdt', address: address.toLowerCase(), amount: 12.5 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      ok: true,
      network: 'polygon',
      asset: 'USDT',
      address,
      amount: '12.500000',
      token: chain.tokens.polygon.USDT,
    });
    expect(res.json().transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balanceOf(chain, chain.tokens.polygon.USDT, address)).toBe(12_500_000n);
    expect(await balanceOf(chain, chain.tokens.base.USDT, address)).toBe(0n);
  });

  it('mints concurrently, each mint landing once', async () => {
    const addresses = Array.from({ length: 6 }, randomAddress);
    const results = await Promise.all(addresses.map((address) => faucet({ network: 'arbitrum', asset: 'USDC', address, amount: '1' })));
    expect(results.map((r) => r.statusCode)).toEqual(addresses.map(() => 200));
    for (const address of addresses) expect(await balanceOf(chain, chain.tokens.arbitrum.USDC, address)).toBe(1_000_000n);
  });

  it.each([
    [{ network: 'solana', asset: 'USDC', address: randomAddress(), amount: 1 }, 'network'],
    [{ network: 'polygon', asset: 'DAI', address: randomAddress(), amount: 1 }, 'asset'],
    [{ network: 'polygon', asset: 'USDC', address: '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', amount: 1 }, 'address'],
    [{ network: 'polygon', asset: 'USDC', address: randomAddress(), amount: 0 }, 'amount'],
    [{ network: 'polygon', asset: 'USDC', address: randomAddress(), amount: '0.0000001' }, 'amount'],
    [{ network: 'polygon', asset: 'USDC', address: randomAddress(), amount: 1_000_001 }, 'amount'],
  ])('refuses %o (422 on %s)', async (payload, field) => {
    const res = await faucet(payload);
    expect(res.statusCode).toBe(422);
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('refuses a network the sandbox has no chain for', async () => {
    const bare = buildSandboxApp({
      apiKey: 'sbx_sk_x_0123',
      callbackSecret: 'sbx_whsec_x_0123456789',
      publicUrl: 'http://127.0.0.1:1',
      serviceUrl: 'http://127.0.0.1:2',
    });
    const res = await bare.inject({
      method: 'POST',
      url: '/test-helpers/faucet',
      payload: { network: 'base', asset: 'USDC', address: randomAddress(), amount: 1 },
    });
    await bare.close();
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toBe('network_not_configured');
  });
});
