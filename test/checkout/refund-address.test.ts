import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, activitiesFor, createApprovedMerchant, useTestApp } from '../support/harness';
import { balanceOf, mint, newPayer, pay, sharedChain } from '../support/chain';
import { eventually } from '../support/http';
import { useMailSink } from '../support/mail';
import { depositAddressOf } from '../support/proof';
import { spawnOps } from '../cli/run-ops';

// Money over, under or late is the customer's to get back. The checkout page asks
// where to, pre-filled with the address the money came from; the address is checked as an
// operator's refund address is, kept, and is then the operator's refund's default (the admin API's
// and `ops exceptions refund` without --address). The customer may also leave an email address for a
// receipt and refund notices, each sent once through the SMTP sink.
const mail = useMailSink();
const ctx = useTestApp(mail.env, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();
const token = chain.tokens.polygon.USDC;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-refund-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const ops = (args: string[]) => spawnOps(args, { SVC_URL: ctx.baseUrl, ADMIN_TOKEN, SVC_DATA_DIR: dataDir });

async function openSession(body: Record<string, unknown> = {}) {
  const m = await createApprovedMerchant(ctx.app, { name: 'Refund Shop' });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: { authorization: `Bearer ${m.apiKey}` },
    payload: { amount: 25, currency: 'USD', countryCode: 'US', ...body },
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
/** The email form as a browser posts it: back to the page it came from (post/redirect/get). */
const saveEmail = (id: string, email: string, view?: 'wallet') =>
  ctx.app.inject({
    method: 'POST',
    url: `/pay/${id}/email`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: `email=${encodeURIComponent(email)}${view ? `&view=${view}` : ''}`,
  });
const mailRows = (id: string) =>
  ctx.db.sql`select kind, subject, to_address, locale, status, attempts from customer_mails where payment_id = ${id} order by kind`;
const mailsTo = (to: string) => mail.messages().filter((m) => m.to.includes(to));
const stored = async (id: string) => (await ctx.db.sql`select refund_address from checkout_sessions where id = ${id}`)[0]!.refund_address;
const exceptionsOf = (id: string) =>
  ctx.db.sql`select id, kind, status from payment_exceptions where payment_id = ${id} order by created_at`.then((rows) =>
    rows.map((r) => ({ id: r.id as string, kind: r.kind as string, status: r.status as string })),
  );

describe('the customer’s refund address', () => {
  it('is asked for once money is owed back, pre-filled with the sender, checked, kept, and used by the operator’s refund', async () => {
    const session = await openSession();
    // The receipt address, optional: offered while the checkout is open, checked, kept with the page's language.
    expect(await page(session.id)).toContain('id="receipt-email"');
    const refused = await saveEmail(session.id, 'not-an-email');
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toBe(`/pay/${session.id}`);
    expect((await ctx.db.sql`select receipt_email from checkout_sessions where id = ${session.id}`)[0]!.receipt_email).toBeNull();
    const email = `buyer-${session.id.slice(3, 11).toLowerCase()}@example.com`;
    const savedEmail = await saveEmail(session.id, email, 'wallet');
    expect(savedEmail.statusCode).toBe(303);
    expect(savedEmail.headers.location).toBe(`/pay/${session.id}/wallet`);
    expect(await page(session.id)).toContain(`Your receipt and any refund notice go to ${email}.`);
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
    // The receipt, once: the completion recorded it, the worker's sender sent it.
    const receipt = await mail.waitFor(email, /receipt/);
    expect(receipt.subject).toBe('Your receipt from Refund Shop');
    expect(receipt.text).toContain('Amount: $25.00');
    expect(receipt.text).toContain(`Reference: ${session.id}`);
    expect(receipt.text).toContain('USDC (Polygon)');
    const asked = await page(session.id);
    expect(asked).toContain('Where should money be sent back?');
    // The sender's address, EIP-55, as the field's value.
    expect(asked).toMatch(new RegExp(`<textarea [^>]*id="refund-address" name="address"[^>]*>${payer.address}</textarea>`));

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
    // The operator's command without --address: the customer's address.
    const refund = await ops(['exceptions', 'refund', owed.id]);
    expect(refund.stderr).toBe('');
    expect(refund.code).toBe(0);
    expect(refund.stdout).toMatch(new RegExp(`^refund (planned|signed|broadcast|confirmed): 5\\.000000 to ${payer.address}`));
    await eventually(
      () => balanceOf(chain, token, payer.address),
      (balance) => balance === before + 5_000_000n,
      60_000,
      'the refund to arrive at the customer’s address',
    );

    // The refund notice, once the refund is confirmed: how much, where, and the transaction.
    const notice = await mail.waitFor(email, /sent back/);
    expect(notice.subject).toBe('Money sent back to you by Refund Shop');
    expect(notice.text).toContain('Amount: 5.00 USDC (Polygon)');
    expect(notice.text).toContain(`Sent to: ${payer.address}`);
    expect(notice.text).toMatch(/Transaction: 0x[0-9a-f]{64}/);
    await eventually(
      () => mailRows(session.id),
      (rows) => rows.every((r) => r.status === 'sent'),
      10_000,
      'both mails marked sent',
    );

    // Exactly once each: the activities that recorded them, run again (a retry), record nothing more,
    // so the sender has nothing more to send.
    const activities = activitiesFor(ctx);
    await activities.emitPaymentEvent(session.id, 'completed', null);
    await activities.emitExceptionEvent(owed.id, 'payment.refunded');
    expect(await mailRows(session.id)).toEqual([
      { kind: 'receipt', subject: '', to_address: email, locale: 'en', status: 'sent', attempts: 1 },
      { kind: 'refund', subject: owed.id, to_address: email, locale: 'en', status: 'sent', attempts: 1 },
    ]);
    expect(mailsTo(email).map((m) => m.subject)).toEqual(
      expect.arrayContaining(['Your receipt from Refund Shop', 'Money sent back to you by Refund Shop']),
    );
    expect(mailsTo(email)).toHaveLength(2);
  });

  it('leaves the operator to name the address when the customer gave none (and sends a German receipt)', async () => {
    const session = await openSession({ locale: 'de' });
    const email = `kunde-${session.id.slice(3, 11).toLowerCase()}@example.com`;
    expect((await saveEmail(session.id, email)).statusCode).toBe(303);
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
    const receipt = await mail.waitFor(email);
    expect(receipt.subject).toBe('Ihre Quittung von Refund Shop');
    expect(receipt.text).toMatch(/Betrag: 25,00\s\$/);
    expect(receipt.text).toContain(`Referenz: ${session.id}`);
    const refund = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/exceptions/${owed.id}/refund`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: {},
    });
    expect(refund.statusCode).toBe(422);
    expect(refund.json()).toMatchObject({
      ok: false,
      error: 'ValidationError',
      message: expect.stringContaining('the customer left none'),
    });
    // The command without --address says the same, and that the address is the missing piece.
    const run = await ops(['exceptions', 'refund', owed.id]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error 422 ValidationError: Give the address to send the money back to: the customer left none/);
    expect(run.stderr).toContain('  address: ');
    expect(await exceptionsOf(session.id)).toContainEqual({ id: owed.id, kind: owed.kind, status: 'open' });
    expect(await mailRows(session.id)).toEqual([
      { kind: 'receipt', subject: '', to_address: email, locale: 'de', status: 'sent', attempts: 1 },
    ]);
  });
});
