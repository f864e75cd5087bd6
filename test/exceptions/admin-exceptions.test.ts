import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordPaymentException } from '../../src/db/queries/payment-exceptions';
import { newExceptionId } from '../../src/domain/ids';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { seedPayment } from '../support/seed-payment';

// The operators' exception routes without a worker: the queue, its filters, the errors of accept and
// refund (nothing changes), the security of the admin surface, and the migration of review flags.
const ctx = useTestApp();

async function seedException(kind: 'late' | 'overpaid', arrivalKey: string) {
  const m = await createApprovedMerchant(ctx.app);
  const paymentId = await seedPayment(ctx.db.db, m.id, 'completed');
  const row = await recordPaymentException(ctx.db.db, {
    id: newExceptionId(),
    paymentKind: 'checkout_session',
    paymentId,
    kind,
    arrivalKey,
    amountMicro: 1_500_000n,
    references: { note: 'seeded' },
  });
  return { m, paymentId, row };
}

const get = (url: string, headers: Record<string, string> = adminHeaders) => ctx.app.inject({ method: 'GET', url, headers });
const post = (url: string, payload?: Record<string, unknown>, headers: Record<string, string> = adminHeaders) =>
  payload === undefined ? ctx.app.inject({ method: 'POST', url, headers }) : ctx.app.inject({ method: 'POST', url, headers, payload });

describe('GET /admin/v1/exceptions', () => {
  it('lists exceptions by status, oldest first, with amounts as 6-decimal strings; one row per arrival, never overwritten', async () => {
    const { paymentId, row } = await seedException('overpaid', 'completion');
    // The same arrival again changes nothing; another arrival is another row.
    const again = await recordPaymentException(ctx.db.db, {
      id: newExceptionId(),
      paymentKind: 'checkout_session',
      paymentId,
      kind: 'overpaid',
      arrivalKey: 'completion',
      amountMicro: 9n,
      references: {},
    });
    expect(again).toMatchObject({ id: row.id, amountMicro: 1_500_000n, inserted: false });
    await recordPaymentException(ctx.db.db, {
      id: newExceptionId(),
      paymentKind: 'checkout_session',
      paymentId,
      kind: 'late',
      arrivalKey: 'tx:polygon:0xabc',
      amountMicro: 2n,
      references: {},
    });
    const res = await get('/admin/v1/exceptions?status=open');
    expect(res.statusCode).toBe(200);
    const mine = res.json().exceptions.filter((e: { paymentId: string }) => e.paymentId === paymentId);
    expect(mine).toEqual([
      expect.objectContaining({
        id: row.id,
        kind: 'overpaid',
        status: 'open',
        amount: '1.500000',
        arrivalKey: 'completion',
        paymentKind: 'checkout_session',
        resolvedAt: null,
      }),
      expect.objectContaining({ kind: 'late', amount: '0.000002', arrivalKey: 'tx:polygon:0xabc' }),
    ]);
    expect(
      (await get('/admin/v1/exceptions?status=accepted')).json().exceptions.some((e: { paymentId: string }) => e.paymentId === paymentId),
    ).toBe(false);
    expect((await get('/admin/v1/exceptions?status=bogus')).statusCode).toBeGreaterThanOrEqual(400);
  });

  it('names whom each concerns: the merchant, the sender of the money and the token that arrived', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const paymentId = await seedPayment(ctx.db.db, m.id, 'completed');
    const customer = '0x8Ba1f109551bD432803012645Ac136ddd64DBA72';
    const usdc = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
    const other = '0x1111111111111111111111111111111111111111';
    // An overpaid payment: its references name the credits, whose sender the chain recorded.
    const hash = `0x${'ab'.repeat(32)}`;
    await ctx.db
      .sql`insert into chain_credits (network, transaction_hash, log_index, payment_id, asset, token, from_address, to_address, amount_micro, block_number, block_hash)
      values ('polygon', ${hash}, 3, ${paymentId}, 'USDC', ${usdc}, ${customer}, ${other}, 30000000, 100, ${`0x${'cd'.repeat(32)}`})`;
    const overpaid = await recordPaymentException(ctx.db.db, {
      id: newExceptionId(),
      paymentKind: 'checkout_session',
      paymentId,
      kind: 'overpaid',
      arrivalKey: 'completion',
      amountMicro: 5_000_000n,
      references: { logs: [`polygon:${hash}:3`] },
    });
    // Another token, an unknown contract: its sender and contract are the arrival's own.
    const wrong = await recordPaymentException(ctx.db.db, {
      id: newExceptionId(),
      paymentKind: 'checkout_session',
      paymentId,
      kind: 'wrong_asset',
      arrivalKey: `tx:polygon:${hash}:4`,
      amountMicro: 1_000_000n,
      token: other,
      asset: null,
      references: { from: customer, token: other, asset: null },
    });
    // A provider's word with no transfer: no sender, the payment's own token.
    const unverified = await recordPaymentException(ctx.db.db, {
      id: newExceptionId(),
      paymentKind: 'checkout_session',
      paymentId,
      kind: 'unverified',
      arrivalKey: 'claim',
      amountMicro: 25_000_000n,
      references: {},
    });
    const listed = (await get('/admin/v1/exceptions?status=open')).json().exceptions as Record<string, unknown>[];
    const byId = new Map(listed.map((e) => [e.id, e]));
    expect(byId.get(overpaid.id)).toMatchObject({
      merchantId: m.id,
      senders: [customer],
      asset: 'USDC',
      network: 'polygon',
      tokenContract: usdc,
    });
    expect(byId.get(wrong.id)).toMatchObject({
      merchantId: m.id,
      senders: [customer],
      asset: null,
      network: 'polygon',
      tokenContract: other,
    });
    expect(byId.get(unverified.id)).toMatchObject({
      merchantId: m.id,
      senders: [],
      asset: 'USDC',
      network: 'polygon',
      tokenContract: null,
    });
  });

  it('is an admin route: no token or a merchant key is 401, and nothing is listed', async () => {
    const { m } = await seedException('late', 'provider:evt_1');
    expect((await get('/admin/v1/exceptions', {})).statusCode).toBe(401);
    expect((await get('/admin/v1/exceptions', { authorization: `Bearer ${m.apiKey}` })).statusCode).toBe(401);
    expect((await post('/admin/v1/exceptions/exc_000000000000000000000000/accept', undefined, {})).statusCode).toBe(401);
  });
});

describe('accept and refund refusals', () => {
  it('answers 404 for an unknown or malformed id, 409 for a kind that cannot be accepted or refunded, 422 for a bad address; nothing changes', async () => {
    expect((await post('/admin/v1/exceptions/exc_000000000000000000000000/accept')).json()).toMatchObject({ ok: false, error: 'NotFound' });
    expect((await post('/admin/v1/exceptions/nope/accept')).statusCode).toBe(404);
    const { row } = await seedException('overpaid', 'completion');
    const accept = await post(`/admin/v1/exceptions/${row.id}/accept`);
    expect(accept.statusCode).toBe(409);
    expect(accept.json().message).toContain('only late or underpaid');
    // Overpaid money is part of the merchant's gross (paid out with it): not ours to send back.
    const refund = await post(`/admin/v1/exceptions/${row.id}/refund`, { address: '0x52908400098527886E0F7030069857D2E4169EE7' });
    expect(refund.statusCode).toBe(409);
    expect(refund.json()).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('cannot be refunded') });
    expect((await post(`/admin/v1/exceptions/${row.id}/refund`, {})).statusCode).toBe(422);
    // A mixed-case address whose EIP-55 checksum is wrong (last letter's case flipped).
    const badChecksum = await post(`/admin/v1/exceptions/${row.id}/refund`, { address: '0x52908400098527886E0F7030069857D2E4169Ee7' });
    expect(badChecksum.json()).toMatchObject({ ok: false, error: 'ValidationError' });
    expect(
      (await post('/admin/v1/exceptions/exc_000000000000000000000000/refund', { address: '0x52908400098527886E0F7030069857D2E4169EE7' }))
        .statusCode,
    ).toBe(404);
    expect((await ctx.db.sql`select count(*)::int as n from payouts where exception_id = ${row.id}`)[0]!.n).toBe(0);
    const [stored] = await ctx.db.sql`select status, resolved_at from payment_exceptions where id = ${row.id}`;
    expect(stored).toEqual({ status: 'open', resolved_at: null });
  });
});

describe('migration 0010: review flags become exceptions', () => {
  it('turns each flagged payment into an open exception with the flag and note in its references, once', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const late = await seedPayment(ctx.db.db, m.id, 'pending');
    const duplicate = await seedPayment(ctx.db.db, m.id, 'completed');
    await ctx.db
      .sql`update checkout_sessions set status = 'expired', review_flag = 'late_success', review_note = 'late note' where id = ${late}`;
    await ctx.db.sql`update checkout_sessions set review_flag = 'duplicate_link_payment', review_note = 'dup note' where id = ${duplicate}`;
    await ctx.db
      .sql`insert into provider_events (provider, event_id, payment_id, type, payload, state) values ('sandbox', ${`evt_${late}`}, ${late}, 'payment.succeeded', ${JSON.stringify({ destinationAmount: '24.500000' })}::jsonb, 'late')`;
    const sql = readFileSync(path.resolve(__dirname, '../../src/db/migrations/0012_review_flags_to_exceptions.sql'), 'utf8');
    // Run twice: the second run finds the rows (the arrival key 'review_flag') and adds nothing.
    for (let i = 0; i < 2; i++) await ctx.db.sql.unsafe(sql);
    const rows = await ctx.db
      .sql`select payment_id, kind, arrival_key, amount_micro, status, "references"->>'flag' as flag, "references"->>'note' as note from payment_exceptions where payment_id in (${late}, ${duplicate}) order by kind`;
    expect(rows).toEqual([
      {
        payment_id: duplicate,
        kind: 'duplicate',
        arrival_key: 'review_flag',
        amount_micro: '25000000',
        status: 'open',
        flag: 'duplicate_link_payment',
        note: 'dup note',
      },
      {
        payment_id: late,
        kind: 'late',
        arrival_key: 'review_flag',
        amount_micro: '24500000',
        status: 'open',
        flag: 'late_success',
        note: 'late note',
      },
    ]);
    const ids = await ctx.db.sql`select id from payment_exceptions where payment_id in (${late}, ${duplicate})`;
    for (const r of ids) expect(r.id).toMatch(/^exc_[A-Za-z0-9]{24}$/);
  });
});
