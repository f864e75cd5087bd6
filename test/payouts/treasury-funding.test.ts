import { parseEther } from 'viem';
import { describe, expect, it } from 'vitest';
import { depositAddresses } from '../../src/db/schema';
import { spawnOps } from '../cli/run-ops';
import { mint, newPayer, pay, randomAddress } from '../support/chain';
import { ADMIN_TOKEN, adminHeaders, useTestApp } from '../support/harness';
import { ledgerBalance, ownTreasury, reconciliationDifferences } from './support';

// Money an operator puts into a treasury from outside (stablecoin, or native coin for gas) is
// recorded from its transaction (docs/settlement.md): before, reconciliation names it as a difference
// of exactly its amount; after, it is on the ledger and nothing differs. Only what the chain shows
// reaching the treasury is posted, once, and never the platform's own money.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true });
const chain = own.chain;
const usdc = chain.tokens.polygon.USDC;

const fund = (body: Record<string, unknown>) =>
  ctx.app.inject({ method: 'POST', url: '/admin/v1/treasury/fundings', headers: adminHeaders, payload: body });

describe("an operator's funding of the treasury", () => {
  it('is a difference until it is recorded, then reconciles; recording it again changes nothing', async () => {
    expect(await reconciliationDifferences(ctx)).toEqual([]);
    const hash = await mint(chain, usdc, own.treasury, 12_500_000n);
    expect(await reconciliationDifferences(ctx)).toEqual([
      {
        account: `treasury:${own.treasury}`,
        expected: '0',
        actual: '12500000',
        note: 'USDC on polygon: the ledger and the chain disagree',
      },
    ]);

    const env = { SVC_URL: ctx.baseUrl, ADMIN_TOKEN };
    const first = await spawnOps(['treasury', 'fund', 'polygon', hash], env);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe('recorded: 12500000 micro USDC from 0x0000000000000000000000000000000000000000\n');
    expect(await reconciliationDifferences(ctx)).toEqual([]);
    expect(await ledgerBalance(ctx, `treasury:${own.treasury}`, 'USDC')).toBe(12_500_000n);

    const again = await fund({ network: 'polygon', transactionHash: hash });
    expect(again.statusCode).toBe(200);
    expect(again.json().fundings).toEqual([expect.objectContaining({ asset: 'USDC', amount: '12500000', recordedNow: false })]);
    expect(await ledgerBalance(ctx, `treasury:${own.treasury}`, 'USDC')).toBe(12_500_000n);
  });

  it('records native coin sent to the treasury for gas', async () => {
    const operator = await newPayer(chain);
    const signed = await operator.signTransaction({
      to: own.treasury,
      value: parseEther('0.25'),
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337,
    });
    const sent = await chain.publicClient.sendRawTransaction({ serializedTransaction: signed });
    await chain.publicClient.waitForTransactionReceipt({ hash: sent, pollingInterval: 50 });
    const res = await fund({ network: 'polygon', transactionHash: sent });
    expect(res.statusCode).toBe(201);
    expect(res.json().fundings).toEqual([
      {
        network: 'polygon',
        asset: 'native',
        amount: parseEther('0.25').toString(),
        from: operator.address,
        transactionHash: sent,
        logIndex: null,
        recordedNow: true,
      },
    ]);
    expect(await ledgerBalance(ctx, `treasury:${own.treasury}`, 'native')).toBe(parseEther('0.25'));
  });

  it('refuses what is not money from outside reaching the treasury, and records nothing', async () => {
    const before = await ledgerBalance(ctx, `treasury:${own.treasury}`, 'USDC');
    const elsewhere = await mint(chain, usdc, randomAddress(), 1_000_000n);
    const refusals: [Record<string, unknown>, number, string, RegExp][] = [
      [{ network: 'polygon', transactionHash: elsewhere }, 409, 'Conflict', /sends nothing from outside to the treasury/],
      [{ network: 'polygon', transactionHash: `0x${'ab'.repeat(32)}` }, 404, 'NotFound', /not found/],
      [{ network: 'polygon', transactionHash: '0x1234' }, 422, 'ValidationError', /request body is not valid/],
      [{ network: 'mars', transactionHash: elsewhere }, 404, 'NotFound', /mars/],
    ];
    for (const [body, status, code, message] of refusals) {
      const res = await fund(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json()).toMatchObject({ ok: false, error: code, message: expect.stringMatching(message) });
    }

    // Money a deposit address of ours sends to the treasury is a payment's, never a funding.
    const deposit = await newPayer(chain);
    await ctx.db.db
      .insert(depositAddresses)
      .values({ derivationIndex: 900_001, address: deposit.address, network: 'polygon', paymentReference: 'SV_fundingtest0000000000001' });
    await mint(chain, usdc, deposit.address, 3_000_000n);
    const fromDeposit = (await pay(chain, deposit, usdc, own.treasury, 3_000_000n)).transactionHash;
    const res = await fund({ network: 'polygon', transactionHash: fromDeposit });
    expect(res.statusCode).toBe(409);
    expect(await ledgerBalance(ctx, `treasury:${own.treasury}`, 'USDC')).toBe(before);
  });
});
