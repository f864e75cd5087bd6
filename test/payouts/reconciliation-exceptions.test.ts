import { describe, expect, it } from 'vitest';
import { ledgerAccount } from '../../src/domain/ledger';
import { balanceOf, payFromWallet, randomAddress, strangerToken } from '../support/chain';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { creditsOf, exceptionsOf, pressPay, sessionRow, waitForStatus } from '../proof/support';
import {
  ledgerBalance,
  merchantWithFreshWallet,
  openSession,
  ownTreasury,
  reconciliationDifferences,
  unbalancedPostings,
  waitForPayouts,
} from './support';

// Reconciliation finds 0 differences after money arrives wrong. Whatever reaches a
// deposit address and is not the payment's money (a duplicate, another token, a token nobody
// configured, dust, the credits of an underpaid payment) is on the ledger from the moment it arrives,
// held for its owner, and stays reconciled when an operator refunds or accepts it.
const own = ownTreasury({ SESSION_TTL_SECONDS: '8' });
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;
const usdc = chain.tokens.polygon.USDC;

const differences = () => reconciliationDifferences(ctx);
const adminPost = (url: string, payload?: object) =>
  ctx.app.inject({ method: 'POST', url, headers: adminHeaders, ...(payload ? { payload } : {}) });
const exceptionStatus = async (id: string) =>
  (await ctx.db.sql`select status from payment_exceptions where id = ${id}`)[0]!.status as string;

describe('reconciliation of money that is not the payment’s', () => {
  it('holds a duplicate, other tokens and dust at a paid address, and a refund pays the duplicate back: 0 differences throughout', async () => {
    const m = await merchantWithFreshWallet(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    await payFromWallet(chain, usdc, depositAddress, g);
    await waitForStatus(ctx, id, 'completed');
    await waitForPayouts(ctx, id);
    await ctx.temporal.workflow.getHandle(id).result();

    const stranger = await strangerToken(chain);
    await payFromWallet(chain, usdc, depositAddress, 2_000_000n);
    await payFromWallet(chain, usdc, depositAddress, 4_000n);
    await payFromWallet(chain, chain.tokens.polygon.USDT, depositAddress, 3_000_000n);
    await stranger.pay(depositAddress, 5_000_000n);
    await eventually(
      () => creditsOf(ctx, id),
      (rows) => rows.length === 5,
      30_000,
      'every log recorded',
    );
    const exceptions = await eventually(
      () => exceptionsOf(ctx, id),
      (rows) => rows.length === 3,
      20_000,
      'three exceptions',
    );
    expect(exceptions.map((e) => [e.kind, e.amount]).sort()).toEqual([
      ['duplicate', 2_000_000n],
      ['wrong_asset', 3_000_000n],
      ['wrong_asset', 5_000_000n],
    ]);
    expect(await ledgerBalance(ctx, ledgerAccount.deposit(depositAddress), 'USDC')).toBe(2_004_000n);
    expect(await ledgerBalance(ctx, ledgerAccount.unclaimedDust, 'USDC')).toBe(-4_000n);
    expect(await differences()).toEqual([]);

    const duplicate = exceptions.find((e) => e.kind === 'duplicate')!;
    const customer = randomAddress();
    const refund = await adminPost(`/admin/v1/exceptions/${duplicate.id}/refund`, { address: customer });
    expect(refund.statusCode, refund.body).toBe(200);
    await eventually(
      () => exceptionStatus(duplicate.id),
      (s) => s === 'refunded',
      60_000,
      'the duplicate refunded',
    );
    expect(await balanceOf(chain, usdc, customer)).toBe(2_000_000n);
    expect(await ledgerBalance(ctx, ledgerAccount.exceptionHeld(duplicate.id), 'USDC')).toBe(0n);
    // The dust is all the address holds of USDC now, and all the ledger says it holds.
    expect(await ledgerBalance(ctx, ledgerAccount.deposit(depositAddress), 'USDC')).toBe(4_000n);
    expect(await differences()).toEqual([]);
    expect(await unbalancedPostings(ctx)).toEqual([]);
  }, 240_000);

  it('holds an underpaid payment’s credits at its end, and its acceptance pays them out: 0 differences throughout', async () => {
    const m = await merchantWithFreshWallet(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const paid = g - 1_000_000n;
    await payFromWallet(chain, usdc, depositAddress, paid);
    await waitForStatus(ctx, id, 'expired', 30_000);
    const [underpaid] = await eventually(
      () => exceptionsOf(ctx, id),
      (rows) => rows.length === 1,
      20_000,
      'the underpaid exception',
    );
    expect(underpaid).toMatchObject({ kind: 'underpaid', amount: paid });
    expect(await ledgerBalance(ctx, ledgerAccount.exceptionHeld(underpaid!.id), 'USDC')).toBe(-paid);
    expect(await differences()).toEqual([]);

    const accepted = await adminPost(`/admin/v1/exceptions/${underpaid!.id}/accept`);
    expect(accepted.statusCode, accepted.body).toBe(200);
    await waitForStatus(ctx, id, 'completed');
    await waitForPayouts(ctx, id);
    expect(await ledgerBalance(ctx, ledgerAccount.exceptionHeld(underpaid!.id), 'USDC')).toBe(0n);
    expect(await ledgerBalance(ctx, ledgerAccount.deposit(depositAddress), 'USDC')).toBe(0n);
    expect(await balanceOf(chain, usdc, m.wallet)).toBeGreaterThan(0n);
    expect(await differences()).toEqual([]);
    expect(await unbalancedPostings(ctx)).toEqual([]);
  }, 240_000);
});
