import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSandboxApp } from '../../sandbox/app';
import { DEV_MINTER_ADDRESS } from '../../tools/dev/dev-accounts';
import { readTransfers } from '../../src/chains/transfer-logs';
import { balanceOf, clientFor, randomAddress, sharedChain } from '../support/chain';
import { testConfig } from '../support/harness';

// With a chain configured, the sandbox's delivery after a successful payment is a real ERC-20
// transfer from its own account to the wallet it was asked to pay, which the chain code reads back.
describe('sandbox delivery on the dev chain', () => {
  const chain = sharedChain();
  let sandbox: FastifyInstance;
  const apiKey = 'sbx_sk_delivery_test';
  beforeAll(async () => {
    const config = testConfig('postgres://unused@127.0.0.1/unused');
    sandbox = buildSandboxApp({
      apiKey,
      callbackSecret: config.providers.sandbox.callbackSecret,
      publicUrl: 'http://127.0.0.1:9',
      serviceUrl: 'http://127.0.0.1:9',
      chains: config.chains.networks,
      // Callbacks go nowhere here; one attempt is enough.
      retryDelaysMs: [],
    });
    await sandbox.ready();
  });
  afterAll(() => sandbox?.close());

  const open = (reference: string, wallet: string, network: string, asset = 'USDC') =>
    sandbox.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: { authorization: `Bearer ${apiKey}` },
      payload: {
        reference,
        sourceAmount: '19.99',
        sourceCurrency: 'EUR',
        destinationAsset: asset,
        network,
        walletAddress: wallet,
        countryCode: 'DE',
        callbackUrl: 'http://127.0.0.1:9/callbacks',
        returnUrl: 'http://127.0.0.1:9/return',
      },
    });

  it('pays the quoted amount to the wallet in a real Transfer from the sandbox account', async () => {
    const wallet = randomAddress();
    const opened = await open('ref_delivery_1', wallet, 'polygon');
    expect(opened.statusCode).toBe(201);
    const paid = await sandbox.inject({
      method: 'POST',
      url: '/test-helpers/pay',
      payload: { reference: 'ref_delivery_1', outcome: 'succeeded' },
    });
    expect(paid.statusCode).toBe(200);
    const view = (
      await sandbox.inject({ method: 'GET', url: `/v1/payments/${opened.json().id}`, headers: { authorization: `Bearer ${apiKey}` } })
    ).json();
    expect(view.status).toBe('succeeded');
    expect(view.destinationAmount).toBe('21.589200');
    expect(await balanceOf(chain, chain.tokens.polygon.USDC, wallet)).toBe(21_589_200n);

    const receipt = await chain.publicClient.getTransactionReceipt({ hash: view.transactionHash });
    const client = clientFor(chain, 'polygon');
    const transfers = await readTransfers(client.publicClient, {
      network: 'polygon',
      tokens: client.tokens,
      recipients: [wallet],
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    });
    expect(transfers).toEqual([
      expect.objectContaining({ transactionHash: view.transactionHash, from: DEV_MINTER_ADDRESS, to: wallet, amount: 21_589_200n }),
    ]);
  });

  it('keeps simulating networks it has no chain for', async () => {
    const opened = await open('ref_delivery_2', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', 'tron', 'USDT');
    expect(opened.statusCode).toBe(201);
    await sandbox.inject({ method: 'POST', url: '/test-helpers/pay', payload: { reference: 'ref_delivery_2', outcome: 'succeeded' } });
    const view = (
      await sandbox.inject({ method: 'GET', url: `/v1/payments/${opened.json().id}`, headers: { authorization: `Bearer ${apiKey}` } })
    ).json();
    expect(view.status).toBe('succeeded');
    expect(view.transactionHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('delivers once when the payment is confirmed twice at the same time', async () => {
    const wallet = randomAddress();
    await open('ref_delivery_3', wallet, 'base');
    const pay = () =>
      sandbox.inject({ method: 'POST', url: '/test-helpers/pay', payload: { reference: 'ref_delivery_3', outcome: 'succeeded' } });
    const results = await Promise.all([pay(), pay()]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await balanceOf(chain, chain.tokens.base.USDC, wallet)).toBe(21_589_200n);
  });
});
