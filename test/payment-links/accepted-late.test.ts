import { describe, expect, it } from 'vitest';
import { parseCrypto } from '../../src/domain/money';
import { sharedChain } from '../support/chain';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { exceptionsOf, payFromWallet, sessionRow, waitForStatus } from '../proof/support';
import { openLinkTab } from './support';

// A link is paid once, also when the money that pays it is a late payment an operator
// accepts: the acceptance pays the link like a completion, ending its other sessions;
// and money a session of an already paid link received is refunded, never accepted as a second payment.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();

async function merchantWithLink() {
  const merchant = await createApprovedMerchant(ctx.app, { name: 'Accepted Late' });
  const res = await http('POST', `${ctx.baseUrl}/api/v1/payment-links`, {
    headers: { authorization: `Bearer ${merchant.apiKey}` },
    body: { amount: 30, currency: 'USD' },
  });
  expect(res.status).toBe(201);
  return { merchant, linkId: res.json.paymentLink.id as string };
}

const tab = (linkId: string) => openLinkTab(ctx.baseUrl, linkId);

/** The tab's deposit instructions: its address and the amount in micro units. */
async function depositOf(sessionId: string): Promise<{ address: `0x${string}`; amount: bigint }> {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${sessionId}/deposit`);
  expect(res.status).toBe(200);
  return { address: res.json.deposit.address, amount: parseCrypto(res.json.deposit.amount) };
}

/** The tab's session expired by its merchant, unpaid. */
async function expire(apiKey: string, sessionId: string) {
  const expired = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${sessionId}/expire`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(expired.status).toBe(200);
  await waitForStatus(ctx, sessionId, 'expired');
}

/** The tab's session expired by its merchant, then paid in full from a wallet: a late exception. */
async function paidLate(apiKey: string, sessionId: string) {
  const deposit = await depositOf(sessionId);
  await expire(apiKey, sessionId);
  await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.address, deposit.amount);
  const [late] = await eventually(
    () => exceptionsOf(ctx, sessionId),
    (rows) => rows.length > 0,
    20_000,
    `the late exception of ${sessionId}`,
  );
  expect(late).toMatchObject({ kind: 'late', status: 'open', amount: deposit.amount });
  return late!;
}

const accept = (exceptionId: string) =>
  ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${exceptionId}/accept`, headers: adminHeaders });
const linkRow = async (linkId: string) =>
  (await ctx.db.sql`select status, paid_session_id from payment_links where id = ${linkId}`)[0] as {
    status: string;
    paid_session_id: string | null;
  };
const completedOf = async (linkId: string) =>
  (
    await ctx.db.sql`select t.payment_id from transactions t join checkout_sessions s on s.id = t.payment_id
      where s.payment_link_id = ${linkId} order by t.payment_id`
  ).map((r) => r.payment_id as string);

describe('a payment link and money accepted late', () => {
  it('accepting a session’s late payment pays its link: the link’s other open session ends, a new tab finds it paid', async () => {
    const { merchant, linkId } = await merchantWithLink();
    const late = await tab(linkId);
    const exception = await paidLate(merchant.apiKey, late);
    const other = await tab(linkId);
    expect((await sessionRow(ctx, other)).status).toBe('pending');

    const accepted = await accept(exception.id);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toMatchObject({ paymentStatus: 'completed', exception: { status: 'accepted' } });
    expect(await linkRow(linkId)).toEqual({ status: 'paid', paid_session_id: late });
    expect(await completedOf(linkId)).toEqual([late]);
    // The other tab ends as when a session of the link completes; nobody can pay the link again.
    await waitForStatus(ctx, other, 'canceled');
    const [ended] = await ctx.db.sql`select cancel_reason from checkout_sessions where id = ${other}`;
    expect(ended!.cancel_reason).toBe('link_paid');
    expect((await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${other}/deposit`)).status).toBe(409);
    expect((await http('GET', `${ctx.baseUrl}/link/${linkId}`)).text).toContain('Already paid');
    // Accepted again (a retried call): the same answer, nothing more.
    expect((await accept(exception.id)).json()).toMatchObject({ paymentStatus: 'completed', exception: { status: 'accepted' } });
    expect(await completedOf(linkId)).toEqual([late]);
  }, 90_000);

  it('refuses to accept a late payment once another session paid the link: the money stays open for a refund', async () => {
    const { merchant, linkId } = await merchantWithLink();
    const late = await tab(linkId);
    const exception = await paidLate(merchant.apiKey, late);
    // Before an operator decides, the customer pays the link again through a new tab.
    const payer = await tab(linkId);
    const deposit = await depositOf(payer);
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.address, deposit.amount);
    await waitForStatus(ctx, payer, 'completed');
    expect(await linkRow(linkId)).toEqual({ status: 'paid', paid_session_id: payer });

    const refused = await accept(exception.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ ok: false, error: 'Conflict', message: expect.stringContaining('second payment') });
    // Nothing changed: the link paid once, the late session still expired, its money open for a refund.
    expect(await linkRow(linkId)).toEqual({ status: 'paid', paid_session_id: payer });
    expect(await completedOf(linkId)).toEqual([payer]);
    expect((await sessionRow(ctx, late)).status).toBe('expired');
    expect(await exceptionsOf(ctx, late)).toEqual([expect.objectContaining({ id: exception.id, kind: 'late', status: 'open' })]);
    const refund = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/exceptions/${exception.id}/refund`,
      headers: adminHeaders,
      payload: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
    });
    expect(refund.statusCode).toBe(200);
  }, 90_000);

  it('money reaching a session that ended unpaid after another session paid the link is a duplicate, refunded, never accepted', async () => {
    const { merchant, linkId } = await merchantWithLink();
    const ended = await tab(linkId);
    const endedDeposit = await depositOf(ended);
    await expire(merchant.apiKey, ended);
    const payer = await tab(linkId);
    const deposit = await depositOf(payer);
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.address, deposit.amount);
    await waitForStatus(ctx, payer, 'completed');

    // The customer also sends the first tab's amount to its old address: a second payment for the link.
    await payFromWallet(chain, chain.tokens.polygon.USDC, endedDeposit.address, endedDeposit.amount);
    const [duplicate] = await eventually(
      () => exceptionsOf(ctx, ended),
      (rows) => rows.length > 0,
      20_000,
      'the duplicate exception',
    );
    expect(duplicate).toMatchObject({ kind: 'duplicate', status: 'open', amount: endedDeposit.amount });
    expect((await accept(duplicate!.id)).statusCode).toBe(409);
    expect(await completedOf(linkId)).toEqual([payer]);
    expect((await sessionRow(ctx, ended)).status).toBe('expired');
  }, 90_000);
});
