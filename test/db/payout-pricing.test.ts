import { describe, expect, it } from 'vitest';
import { insertPayoutsOnce, listPayouts, outgoingUnconfirmed, type NewPayout } from '../../src/db/queries/payouts';
import { priceSettlement, settlementCover } from '../../src/db/queries/payouts-plan';
import { useTestDatabase } from '../support/test-database';
import { eventually } from '../support/http';

// Issue 32: a settlement's pricing is one statement where it was a transaction (lock, an update per
// row, the gas row, a read). What it must keep: all or nothing (a row priced or changed by another
// attempt meanwhile means this one writes nothing), a gas row already there stays, the rows come
// back in sending order as they stand.
describe('a settlement priced in one statement', () => {
  const handle = useTestDatabase(4);

  const DEPOSIT = '0x00000000000000000000000000000000000000d1';
  const TREASURY = '0x00000000000000000000000000000000000000a1';
  const TOKEN = '0x00000000000000000000000000000000000000c1';
  const transfer = (paymentId: string, kind: 'merchant' | 'commission', amount: string, fromAddress = DEPOSIT): NewPayout => ({
    id: `po_${paymentId}_${kind}`,
    paymentId,
    kind,
    network: 'base',
    asset: 'USDC',
    token: TOKEN,
    fromAddress,
    toAddress: kind === 'merchant' ? '0x00000000000000000000000000000000000000b1' : TREASURY,
    amount,
  });
  const gasRow = (paymentId: string, id = `po_${paymentId}_gas`): NewPayout => ({
    id,
    paymentId,
    kind: 'gas',
    network: 'base',
    asset: 'ETH',
    token: null,
    fromAddress: TREASURY,
    toAddress: DEPOSIT,
    amount: '210000000000000',
    gasLimit: '21000',
    maxFeePerGas: '10',
    maxPriorityFeePerGas: '1',
  });
  const terms = (paymentId: string, gasLimit: string) =>
    (['merchant', 'commission'] as const).map((kind) => ({
      id: `po_${paymentId}_${kind}`,
      gasLimit,
      maxFeePerGas: '20',
      maxPriorityFeePerGas: '2',
    }));

  it('prices every transfer and adds the gas row, returning the settlement in sending order', async () => {
    await insertPayoutsOnce(handle.db, [transfer('SV_p1', 'merchant', '900'), transfer('SV_p1', 'commission', '100')]);
    const rows = await priceSettlement(handle.db, { paymentId: 'SV_p1', terms: terms('SV_p1', '65000'), gas: [gasRow('SV_p1')] });
    expect(rows.map((r) => r.kind)).toEqual(['gas', 'merchant', 'commission']);
    expect(rows).toEqual(await listPayouts(handle.db, 'SV_p1'));
    expect(rows.map((r) => [r.gasLimit, r.maxFeePerGas, r.maxPriorityFeePerGas, r.status])).toEqual([
      ['21000', '10', '1', 'planned'],
      ['65000', '20', '2', 'planned'],
      ['65000', '20', '2', 'planned'],
    ]);
    expect(rows[0]).toMatchObject({ attempt: 1, exceptionId: null, refundId: null, replacedHashes: [], nonce: null, signedTx: null });
    expect(rows[0]!.createdAt).toBeInstanceOf(Date);
  });

  it('writes nothing when another attempt priced one of the rows first, and answers the rows as they stand', async () => {
    await insertPayoutsOnce(handle.db, [transfer('SV_p2', 'merchant', '900'), transfer('SV_p2', 'commission', '100')]);
    await handle.sql`update payouts set gas_limit = 70000, max_fee_per_gas = 30, max_priority_fee_per_gas = 3 where id = 'po_SV_p2_commission'`;
    const rows = await priceSettlement(handle.db, { paymentId: 'SV_p2', terms: terms('SV_p2', '65000'), gas: [gasRow('SV_p2')] });
    expect(rows.map((r) => [r.kind, r.gasLimit])).toEqual([
      ['merchant', null],
      ['commission', '70000'],
    ]);
    expect(rows).toEqual(await listPayouts(handle.db, 'SV_p2'));
  });

  it('writes nothing for a row no longer planned (an operator failed it)', async () => {
    await insertPayoutsOnce(handle.db, [transfer('SV_p3', 'merchant', '900'), transfer('SV_p3', 'commission', '100')]);
    await handle.sql`update payouts set status = 'failed', failure_reason = 'given up' where id = 'po_SV_p3_merchant'`;
    const rows = await priceSettlement(handle.db, { paymentId: 'SV_p3', terms: terms('SV_p3', '65000'), gas: [gasRow('SV_p3')] });
    expect(rows.map((r) => [r.kind, r.status, r.gasLimit])).toEqual([
      ['merchant', 'failed', null],
      ['commission', 'planned', null],
    ]);
  });

  it('keeps a gas row already there (sent before a retry) as it is', async () => {
    await insertPayoutsOnce(handle.db, [transfer('SV_p4', 'merchant', '900'), transfer('SV_p4', 'commission', '100')]);
    await insertPayoutsOnce(handle.db, [{ ...gasRow('SV_p4', 'po_SV_p4_old_gas'), amount: '5' }]);
    const rows = await priceSettlement(handle.db, { paymentId: 'SV_p4', terms: terms('SV_p4', '65000'), gas: [gasRow('SV_p4')] });
    expect(rows.map((r) => [r.id, r.amount, r.gasLimit])).toEqual([
      ['po_SV_p4_old_gas', '5', '21000'],
      ['po_SV_p4_merchant', '900', '65000'],
      ['po_SV_p4_commission', '100', '65000'],
    ]);
  });

  it('prices once when two attempts price at once: the second, waiting on the rows, writes nothing', async () => {
    await insertPayoutsOnce(handle.db, [transfer('SV_p5', 'merchant', '900'), transfer('SV_p5', 'commission', '100')]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    // The first attempt's statement inside a transaction kept open, so the second one waits on its row locks.
    const first = handle.db.transaction(async (tx) => {
      const rows = await priceSettlement(tx, { paymentId: 'SV_p5', terms: terms('SV_p5', '65000'), gas: [gasRow('SV_p5')] });
      locked();
      await held;
      return rows;
    });
    await holding;
    const second = priceSettlement(handle.db, {
      paymentId: 'SV_p5',
      terms: terms('SV_p5', '99999'),
      gas: [gasRow('SV_p5', 'po_SV_p5_gas2')],
    });
    // The second statement is under way and waits on the first one's row locks.
    await eventually(
      async () =>
        (
          await handle.sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query like '%with terms as%'`
        )[0]!.n,
      (n) => n === 1,
      10_000,
      'the second pricing waiting on the rows',
    );
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.map((r) => r.gasLimit)).toEqual(['21000', '65000', '65000']);
    expect(b).toEqual(a);
    expect((await listPayouts(handle.db, 'SV_p5')).map((r) => r.id)).toEqual(['po_SV_p5_gas', 'po_SV_p5_merchant', 'po_SV_p5_commission']);
  });

  it('reads the cover checks as outgoingUnconfirmed and the credits rule give them', async () => {
    // Another deposit address than the tests above: their planned rows are not this sender's.
    const sender = '0x00000000000000000000000000000000000000d2';
    await insertPayoutsOnce(handle.db, [transfer('SV_c1', 'merchant', '900', sender), transfer('SV_c1', 'commission', '100', sender)]);
    await insertPayoutsOnce(handle.db, [
      { ...transfer('SV_c2', 'merchant', '40', sender), id: 'po_c2_refund', kind: 'refund', exceptionId: 'EX_1' },
    ]);
    // The credit's token in another case than the payouts': compared without case, as before.
    await handle.sql`insert into chain_credits (network, transaction_hash, log_index, payment_id, token, from_address, to_address,
        amount_micro, block_number, block_hash, state)
      values ('base', '0xabc', 0, 'SV_c1', ${TOKEN.replace('c1', 'C1')}, '0x01', ${sender}, 950, 1, '0xb1', 'credited'),
             ('base', '0xabc', 1, 'SV_c1', ${TOKEN}, '0x01', ${sender}, 7, 1, '0xb1', 'removed')`;
    const cover = await settlementCover(handle.db, { paymentId: 'SV_c1', network: 'base', sender, token: TOKEN });
    expect(cover.othersMicro).toBe(await outgoingUnconfirmed(handle.db, 'base', sender, TOKEN, 'SV_c1'));
    expect(cover.othersMicro).toBe(40n);
    expect(cover).toMatchObject({ credited: 950n, paidOut: 1000n });
  });
});
