import { describe, expect, it } from 'vitest';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { balanceOf, mint, newPayer, pay, sharedChain } from '../support/chain';
import { eventually } from '../support/http';
import { depositAddressOf } from '../support/proof';

// Issue 30 item 5: money over, under or late is the customer's to get back. The checkout page asks
// where to, pre-filled with the address the money came from; the address is checked as an
// operator's refund address is, kept, and is then the operator's refund's default.
const ctx = useTestApp({}, { sandbox: true, worker: true });
const chain = sharedChain();
const token = chain.tokens.polygon.USDC;

async function openSession() {
  const m = await createApprovedMerchant(ctx.app);
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US' },
  });
  expect(res.statusCode).toBe(201);
  const id = res.json().checkoutSession.id as string;
  // The wallet view fixes G (25 USDC) and opens the deposit address.
  expect((await ctx.app.inject({ method: 'POST', url: `/pay/${id}/wallet` })).statusCode).toBe(200);
  return { id, address: await depositAddressOf(ctx, id) };
}

const page = async (id: string) => (await ctx.app.inject({ method: 'GET', url: `/pay/${id}` })).body;
const saveAddress = (id: string, address: string) =>
  ctx.app.inject({
    method: 'POST',
    url: `/pay/${id}/refund-address`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `address=${encodeURIComponent(address)}`,
  });
const stored = async (id: string) => (await ctx.db.sql`select refund_address from checkout_sessions where id = ${id}`)[0]!.refund_address;
const exceptionsOf = (id: string) =>
  ctx.db.sql`select id, kind, status from payment_exceptions where payment_id = ${id} order by created_at`.then((rows) =>
    rows.map((r) => ({ id: r.id as string, kind: r.kind as string, status: r.status as string })),
  );

describe('the customer’s refund address', () => {
  it('is asked for once money is owed back, pre-filled with the sender, checked, kept, and used by the operator’s refund', async () => {
    const session = await openSession();
    // Nothing owed: no question, and a post is refused without writing anything.
    expect(await page(session.id)).not.toContain('id="refund-address"');
    expect((await saveAddress(session.id, '0x52908400098527886E0F7030069857D2E4169EE7')).statusCode).toBe(409);
    expect(await stored(session.id)).toBeNull();

    // 26 USDC for 25: completed, and 1 USDC overpaid.
    const payer = await newPayer(chain);
    await mint(chain, token, payer.address, 40_000_000n);
    await pay(chain, payer, token, session.address, 26_000_000n);
    await eventually(
      () => exceptionsOf(session.id),
      (rows) => rows.some((r) => r.kind === 'overpaid'),
      30_000,
      'the overpaid exception',
    );
    const asked = await page(session.id);
    expect(asked).toContain('Where should money be sent back?');
    // The sender's address, EIP-55, as the field's value.
    expect(asked).toContain(`id="refund-address" name="address" value="${payer.address}"`);

    // Refused: a lowercase address (no checksum), this session's own deposit address; nothing kept.
    for (const bad of [payer.address.toLowerCase(), session.address, 'not an address']) {
      const res = await saveAddress(session.id, bad);
      expect(res.statusCode, bad).toBe(422);
      expect(res.body).toContain('That address cannot receive a refund.');
    }
    expect(await stored(session.id)).toBeNull();

    // A browser's post goes back to the page (post/redirect/get), which says where refunds go.
    const saved = await ctx.app.inject({
      method: 'POST',
      url: `/pay/${session.id}/refund-address`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: `address=${encodeURIComponent(payer.address)}`,
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/pay/${session.id}`);
    expect(await stored(session.id)).toBe(payer.address);
    expect(await page(session.id)).toContain(`Refunds go to ${payer.address}.`);

    // Money after the end (a second transfer to the paid session) is owed back whole: the operator's
    // refund without an address sends it to the customer's.
    await pay(chain, payer, token, session.address, 5_000_000n);
    const owed = await eventually(
      () => exceptionsOf(session.id),
      (rows) => rows.some((r) => r.kind === 'late' || r.kind === 'duplicate'),
      30_000,
      'the money after the end',
    ).then((rows) => rows.find((r) => r.kind === 'late' || r.kind === 'duplicate')!);
    const before = await balanceOf(chain, token, payer.address);
    const refund = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/exceptions/${owed.id}/refund`,
      headers: adminHeaders,
      payload: {},
    });
    expect(refund.statusCode).toBe(200);
    expect(refund.json().refund).toMatchObject({ address: payer.address, amount: '5.000000' });
    await eventually(
      () => balanceOf(chain, token, payer.address),
      (balance) => balance === before + 5_000_000n,
      60_000,
      'the refund to arrive at the customer’s address',
    );
  });

  it('leaves the operator to name the address when the customer gave none', async () => {
    const session = await openSession();
    const payer = await newPayer(chain);
    await mint(chain, token, payer.address, 30_000_000n);
    await pay(chain, payer, token, session.address, 25_000_000n);
    await pay(chain, payer, token, session.address, 5_000_000n);
    const owed = await eventually(
      () => exceptionsOf(session.id),
      (rows) => rows.some((r) => r.kind === 'late' || r.kind === 'duplicate'),
      30_000,
      'the money after the end',
    ).then((rows) => rows.find((r) => r.kind === 'late' || r.kind === 'duplicate')!);
    const refund = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/exceptions/${owed.id}/refund`,
      headers: adminHeaders,
      payload: {},
    });
    expect(refund.statusCode).toBe(422);
    expect(refund.json()).toMatchObject({
      ok: false,
      error: 'ValidationError',
      message: expect.stringContaining('the customer left none'),
    });
    expect(await exceptionsOf(session.id)).toContainEqual({ id: owed.id, kind: owed.kind, status: 'open' });
  });
});
