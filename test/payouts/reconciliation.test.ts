import { encodeAbiParameters, keccak256, numberToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { mint, payFromWallet } from '../support/chain';
import { ADMIN_TOKEN, useTestApp } from '../support/harness';
import { spawnOps } from '../cli/run-ops';
import { exceptionsOf, pressPay, sessionRow, waitForStatus } from '../proof/support';
import { eventually } from '../support/http';
import { ledgerBalance, merchantWithFreshWallet, openSession, ownTreasury, reconciliationDifferences, waitForPayouts } from './support';

// GET /admin/v1/reconciliation compares the ledger with the chain and with the
// transactions table. After real payouts it finds nothing; a balance changed behind the ledger's back
// and a transaction row edited by hand are each named.
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;
const token = chain.tokens.polygon.USDC;

const differences = () => reconciliationDifferences(ctx);

describe('reconciliation', () => {
  it('finds no difference after payouts, and names each one made behind the ledger’s back', async () => {
    const m = await merchantWithFreshWallet(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const id = await openSession(ctx, m.apiKey);
      const g = await pressPay(ctx, id);
      await payFromWallet(chain, token, (await sessionRow(ctx, id)).depositAddress, g);
      ids.push(id);
    }
    for (const id of ids) {
      await waitForStatus(ctx, id, 'completed');
      await waitForPayouts(ctx, id);
      await ctx.temporal.workflow.getHandle(id).result();
    }
    expect(await differences()).toEqual([]);
    const env = { SVC_URL: ctx.baseUrl, ADMIN_TOKEN };
    const clean = await spawnOps(['reconcile'], env);
    expect(clean).toMatchObject({ code: 0, stdout: '0 differences\n', stderr: '' });

    // Tokens that reach a paid address are a duplicate exception, on the ledger from their arrival:
    // still no difference. The token balance set behind the ledger's back (no transfer log: written
    // into the token's storage), and a transaction row edited by hand, are each named.
    const { depositAddress } = await sessionRow(ctx, ids[0]!);
    await mint(chain, token, depositAddress, 1_234_567n);
    await eventually(
      () => exceptionsOf(ctx, ids[0]!),
      (rows) => rows.length === 1,
      20_000,
      'the duplicate exception',
    );
    expect(await differences()).toEqual([]);
    const held = await ledgerBalance(ctx, `deposit:${depositAddress}`, 'USDC');
    expect(held).toBe(1_234_567n);
    // TestToken's `balanceOf` mapping is storage slot 3 (contracts/TestToken.sol).
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [depositAddress, 3n]));
    await chain.control.setStorageAt({ address: token, index: slot, value: numberToHex(held + 1n, { size: 32 }) });
    await ctx.db.sql`update transactions set transaction_hash = ${'0x' + 'ee'.repeat(32)} where payment_id = ${ids[1]!}`;
    const found = await differences();
    expect(found).toEqual([
      {
        account: `deposit:${depositAddress}`,
        expected: held.toString(),
        actual: (held + 1n).toString(),
        note: 'USDC on polygon: the ledger and the chain disagree',
      },
      {
        account: `transaction:${ids[1]}`,
        expected: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        actual: '0x' + 'ee'.repeat(32),
        note: 'transactionHash is not the confirmed merchant payout’s',
      },
    ]);
    // The ops CLI prints each difference and exits 1.
    const dirty = await spawnOps(['reconcile'], env);
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toContain(
      `deposit:${depositAddress}: expected ${held}, actual ${held + 1n} (USDC on polygon: the ledger and the chain disagree)`,
    );
    expect(dirty.stdout).toContain(`transaction:${ids[1]}: expected 0x`);
    expect(dirty.stdout).toMatch(/2 differences\n$/);
  }, 180_000);
});
