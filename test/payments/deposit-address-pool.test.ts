import { describe, expect, it } from 'vitest';
import { settlementKeys } from '../../src/chains/derivation';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { refillDepositAddressPool } from '../../src/payments/deposit-address-pool';
import { KILL_SWITCH_CACHE_MS } from '../../src/payments/kill-switch';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';

// Issue 32: session creation in one statement. Deposit addresses come from a pool the worker fills
// ahead of need (and are derived inline when it is empty), never one address for two payments; the
// kill switch is read at most once a KILL_SWITCH_CACHE_MS per process and still takes effect within it.
const ctx = useTestApp();
const keys = settlementKeys(DEV_SETTLEMENT_MNEMONIC);

const create = (apiKey: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { amount: 12, currency: 'USD', countryCode: 'US' },
  });

const poolSize = async () => (await ctx.db.sql`select count(*)::int as n from deposit_address_pool`)[0]!.n as number;

describe('the deposit address pool', () => {
  it('is topped up to its target below its low-water mark, with the addresses of fresh sequence indices', async () => {
    expect(await poolSize()).toBe(0);
    const added = await refillDepositAddressPool(ctx.db.db, DEV_SETTLEMENT_MNEMONIC, { target: 30, lowWater: 10, batch: 12 });
    expect(added).toBe(30);
    // Above the low-water mark: nothing to do.
    expect(await refillDepositAddressPool(ctx.db.db, DEV_SETTLEMENT_MNEMONIC, { target: 30, lowWater: 10, batch: 12 })).toBe(0);
    const rows = await ctx.db.sql`select derivation_index, address from deposit_address_pool order by derivation_index`;
    expect(rows).toHaveLength(30);
    for (const r of rows) expect(r.address).toBe(keys.depositAddress(r.derivation_index as number));
    // The indices are the sequence's: an inline allocation after them takes a later one.
    const [next] = await ctx.db.sql`select last_value::int as v from deposit_address_index`;
    expect(next!.v).toBeGreaterThanOrEqual(rows.at(-1)!.derivation_index as number);
    await ctx.db.sql`delete from deposit_address_pool`;
  });

  it('hands each of many concurrent creations its own address: pooled ones first, derived inline once it is empty', async () => {
    await refillDepositAddressPool(ctx.db.db, DEV_SETTLEMENT_MNEMONIC, { target: 12, lowWater: 12, batch: 12 });
    const pooled = new Set((await ctx.db.sql`select address from deposit_address_pool`).map((r) => r.address as string));
    expect(pooled.size).toBe(12);
    const m = await createApprovedMerchant(ctx.app);
    const results = await Promise.all(Array.from({ length: 30 }, () => create(m.apiKey)));
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 201));
    const ids = results.map((r) => r.json().checkoutSession.id as string);
    const sessions = await ctx.db.sql`select s.id, s.deposit_address, d.derivation_index, d.payment_reference
      from checkout_sessions s join deposit_addresses d on d.address = s.deposit_address where s.id = any(${ids})`;
    expect(sessions).toHaveLength(30);
    // Never one address twice: 30 sessions, 30 addresses, 30 indices, each its own row.
    expect(new Set(sessions.map((s) => s.deposit_address)).size).toBe(30);
    expect(new Set(sessions.map((s) => s.derivation_index)).size).toBe(30);
    for (const s of sessions) {
      expect(s.payment_reference).toBe(s.id);
      expect(s.deposit_address).toBe(keys.depositAddress(s.derivation_index as number));
    }
    // The pool was used up (each of its addresses went to one session), the rest derived inline.
    expect(await poolSize()).toBe(0);
    expect(sessions.filter((s) => pooled.has(s.deposit_address as string))).toHaveLength(12);
  });

  it('takes the settlement wallet as stored when the session is inserted', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const first = await create(m.apiKey);
    expect(first.statusCode).toBe(201);
    const replaced = '0x000000000000000000000000000000000000dEaD';
    const res = await ctx.app.inject({
      method: 'PUT',
      url: `/admin/v1/merchants/${m.id}/wallets`,
      headers: adminHeaders,
      payload: { asset: 'USDC', network: 'polygon', address: replaced },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    const second = await create(m.apiKey);
    const [row] = await ctx.db.sql`select wallet_address from checkout_sessions where id = ${second.json().checkoutSession.id}`;
    expect(row!.wallet_address).toBe(replaced);
  });
});

describe('the kill switch, read at most once a second', () => {
  it('holds at once when flipped through this process, and within KILL_SWITCH_CACHE_MS when flipped elsewhere', async () => {
    const m = await createApprovedMerchant(ctx.app);
    expect((await create(m.apiKey)).statusCode).toBe(201);
    // Another API process flips it (the row written directly): this one refuses within the bound.
    await ctx.db.sql`insert into platform_settings (key, value) values ('payments', '{"enabled": false}')
      on conflict (key) do update set value = excluded.value, updated_at = now()`;
    const flipped = Date.now();
    let refusedAfter = -1;
    while (Date.now() - flipped < KILL_SWITCH_CACHE_MS + 2000) {
      const res = await create(m.apiKey);
      if (res.statusCode === 403) {
        expect(res.json().error).toBe('PaymentsDisabled');
        refusedAfter = Date.now() - flipped;
        break;
      }
      expect(res.statusCode).toBe(201);
    }
    console.log(`kill switch flipped elsewhere: refused after ${refusedAfter} ms`);
    expect(refusedAfter).toBeGreaterThanOrEqual(0);
    expect(refusedAfter).toBeLessThanOrEqual(KILL_SWITCH_CACHE_MS + 250);

    // Through this process's admin API: at once, both ways.
    await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: true } });
    expect((await create(m.apiKey)).statusCode).toBe(201);
    await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: false } });
    expect((await create(m.apiKey)).statusCode).toBe(403);
    await ctx.app.inject({ method: 'PUT', url: '/admin/v1/settings/payments', headers: adminHeaders, payload: { enabled: true } });
    expect((await create(m.apiKey)).statusCode).toBe(201);
  });
});
