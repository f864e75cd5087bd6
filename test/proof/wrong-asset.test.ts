import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { paymentExceptionEventSchema } from '../../src/api/webhook-schemas';
import { balanceOf, newPayer, pay, payFromWallet, randomAddress, strangerToken } from '../support/chain';
import { ownTreasury } from '../payouts/support';
import { adminHeaders, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';
import { chooseRail, exceptionRows, openOrder, orderRow } from './order-support';
import { creditsOf, exceptionsOf, merchantOnEveryNetwork, openSession, sessionRow, waitForStatus } from './support';

// Only the payment's own token contract on its own network credits
// it. Another listed stablecoin, or a token contract this deployment does not know, reaching a
// deposit address is a `wrong_asset` exception (contract, amount, transaction), never part of G.
// A treasury of the file's own: the refund below pays gas from it, and its nonces are nobody else's.
const own = ownTreasury({ WEBHOOK_RETRY_BASE_SECONDS: '0.5' });
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = own.chain;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

const exceptionEvents = (id: string) => receiver.received.filter((d) => d.body.sessionId === id && d.body.event === 'payment.exception');
const wrongAssets = async (id: string) => (await exceptionsOf(ctx, id)).filter((e) => e.kind === 'wrong_asset');
const askDeposit = (id: string) => http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/deposit`);

async function directSession(webhook = true): Promise<{ id: string; address: Address; expected: bigint; apiKey: string }> {
  const m = await merchantOnEveryNetwork(ctx);
  const id = await openSession(ctx, m.apiKey, webhook ? { webhookUrl: `${receiver.url}/hooks` } : {});
  const deposit = (await askDeposit(id)).json.deposit;
  return { id, address: deposit.address as Address, expected: (await sessionRow(ctx, id)).expectedGross!, apiKey: m.apiKey };
}

describe('money of the wrong token', () => {
  it('never completes a USDC session from USDT: a wrong_asset exception the merchant hears of, and USDC then completes it', async () => {
    const { id, address, expected, apiKey } = await directSession();
    const usdt = await payFromWallet(chain, chain.tokens.polygon.USDT, address, expected);
    const [wrong] = await eventually(
      () => wrongAssets(id),
      (rows) => rows.length === 1,
      20_000,
      'the wrong_asset exception',
    );
    expect(wrong).toMatchObject({
      status: 'open',
      amount: expected,
      references: { transactionHash: usdt.transactionHash, token: chain.tokens.polygon.USDT, asset: 'USDT' },
    });
    const [row] = await ctx.db.sql`select token, asset from payment_exceptions where payment_id = ${id}`;
    expect(row).toEqual({ token: chain.tokens.polygon.USDT, asset: 'USDT' });
    await eventually(
      () => Promise.resolve(exceptionEvents(id).length),
      (n) => n === 1,
      20_000,
      'payment.exception delivered',
    );
    const event = exceptionEvents(id)[0]!.body;
    expect(paymentExceptionEventSchema.strict().safeParse(event).success).toBe(true);
    expect(event).toMatchObject({ kind: 'wrong_asset', amount: (Number(expected) / 1e6).toFixed(6) });
    // The USDT log is recorded at the address for reconciliation, and counts for nothing.
    expect((await creditsOf(ctx, id)).map((c) => c.state)).toEqual(['wrong_asset']);
    expect((await sessionRow(ctx, id)).status).toBe('pending');
    const proof = (await ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${id}/proof`, headers: adminHeaders })).json();
    expect(proof.proof).toMatchObject({
      credited: '0.000000',
      credits: [{ state: 'wrong_asset', asset: 'USDT', token: chain.tokens.polygon.USDT }],
    });

    const usdc = await payFromWallet(chain, chain.tokens.polygon.USDC, address, expected);
    await waitForStatus(ctx, id, 'completed');
    const tx = (await http('GET', `${ctx.baseUrl}/api/v1/transactions/${id}`, { headers: { authorization: `Bearer ${apiKey}` } })).json
      .transaction;
    expect(tx).toMatchObject({ grossAmount: (Number(expected) / 1e6).toFixed(6), depositTransactionHash: usdc.transactionHash });
    expect((await exceptionsOf(ctx, id)).map((e) => e.kind)).toEqual(['wrong_asset']);
  });

  it('refunds a wrong asset in the token that arrived, once, and the address reconciles', async () => {
    const { id, address } = await directSession(false);
    await payFromWallet(chain, chain.tokens.polygon.USDT, address, 7_000_000n);
    const [wrong] = await eventually(
      () => ctx.db.sql`select id from payment_exceptions where payment_id = ${id} and kind = 'wrong_asset'`,
      (rows) => rows.length === 1,
      20_000,
      'the wrong_asset exception',
    );
    const customer = randomAddress();
    const refund = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/exceptions/${wrong!.id as string}/refund`,
      headers: adminHeaders,
      payload: { address: customer },
    });
    expect(refund.statusCode, refund.body).toBe(200);
    await eventually(
      () => balanceOf(chain, chain.tokens.polygon.USDT, customer),
      (b) => b === 7_000_000n,
      60_000,
      'the USDT back with the customer',
    );
    await eventually(
      () => ctx.db.sql`select status from payment_exceptions where id = ${wrong!.id as string}`.then((r) => r[0]!.status as string),
      (s) => s === 'refunded',
      20_000,
      'the exception refunded',
    );
    expect(await balanceOf(chain, chain.tokens.polygon.USDT, address)).toBe(0n);
    expect(await balanceOf(chain, chain.tokens.polygon.USDC, customer)).toBe(0n);
    const [refundRow] = await ctx.db
      .sql`select asset, token, amount::text as amount from payouts where exception_id = ${wrong!.id as string} and kind = 'refund'`;
    expect(refundRow).toEqual({ asset: 'USDT', token: chain.tokens.polygon.USDT, amount: '7000000' });
    const reconciled = await ctx.app.inject({ method: 'GET', url: '/admin/v1/reconciliation', headers: adminHeaders });
    expect(reconciled.json().differences.filter((d: { account: string }) => d.account.includes(address))).toEqual([]);
    expect((await sessionRow(ctx, id)).status).toBe('pending');
  });

  it('does not complete on G − 1 micro of USDC plus 1 micro of USDT', async () => {
    const { id, address, expected } = await directSession(false);
    await payFromWallet(chain, chain.tokens.polygon.USDC, address, expected - 1n);
    await payFromWallet(chain, chain.tokens.polygon.USDT, address, 1n);
    await eventually(
      () => wrongAssets(id),
      (rows) => rows.length === 1,
      20_000,
      'the wrong_asset exception',
    );
    await eventually(
      () => creditsOf(ctx, id),
      (rows) => rows.length === 2,
      20_000,
      'both logs recorded',
    );
    expect((await creditsOf(ctx, id)).map((c) => c.state).sort()).toEqual(['credited', 'wrong_asset']);
    expect((await wrongAssets(id))[0]!.amount).toBe(1n);
    expect((await sessionRow(ctx, id)).status).toBe('pending');
    // One more micro of USDC, the session's own token, covers G.
    await payFromWallet(chain, chain.tokens.polygon.USDC, address, 1n);
    await waitForStatus(ctx, id, 'completed');
    const [tx] = await ctx.db.sql`select gross_micro::text as gross from transactions where payment_id = ${id}`;
    expect(tx!.gross).toBe(expected.toString());
  });

  it('takes a token contract the deployment does not know as wrong_asset, with its contract and no asset', async () => {
    const { id, address, expected } = await directSession(false);
    // A fresh ERC-20 contract, configured nowhere.
    const { token: stranger, pay: payStranger } = await strangerToken(chain);
    const transfer = await payStranger(address, expected);
    const [wrong] = await eventually(
      () => wrongAssets(id),
      (rows) => rows.length === 1,
      20_000,
      'the wrong_asset exception',
    );
    expect(wrong).toMatchObject({
      amount: expected,
      references: { transactionHash: transfer.transactionHash, token: stranger, asset: null },
    });
    expect((await sessionRow(ctx, id)).status).toBe('pending');
  });

  it('records a zero-value transfer as dust: no exception, no event', async () => {
    const { id, address } = await directSession();
    const payer = await newPayer(chain);
    await pay(chain, payer, chain.tokens.polygon.USDC, address, 0n);
    await eventually(
      () => creditsOf(ctx, id),
      (rows) => rows.length === 1,
      20_000,
      'the zero-value log recorded',
    );
    expect((await creditsOf(ctx, id)).map((c) => c.state)).toEqual(['dust']);
    expect(await exceptionsOf(ctx, id)).toEqual([]);
    expect(exceptionEvents(id)).toEqual([]);
  });

  it('after the run has closed: another token is wrong_asset, dust is only recorded, the own token again is a duplicate', async () => {
    const { id, address, expected } = await directSession(false);
    await payFromWallet(chain, chain.tokens.polygon.USDC, address, expected);
    await waitForStatus(ctx, id, 'completed');
    await ctx.temporal.workflow.getHandle(id).result();
    await payFromWallet(chain, chain.tokens.polygon.USDT, address, 2_000_000n);
    await payFromWallet(chain, chain.tokens.polygon.USDC, address, 9_999n);
    await payFromWallet(chain, chain.tokens.polygon.USDC, address, 3_000_000n);
    await eventually(
      () => creditsOf(ctx, id),
      (rows) => rows.length === 4,
      20_000,
      'every log recorded',
    );
    const exceptions = await eventually(
      () => exceptionsOf(ctx, id),
      (rows) => rows.length === 2,
      20_000,
      'two exceptions',
    );
    expect(exceptions.map((e) => [e.kind, e.amount])).toEqual([
      ['wrong_asset', 2_000_000n],
      ['duplicate', 3_000_000n],
    ]);
    expect((await creditsOf(ctx, id)).find((c) => c.amount === 9_999n)?.state).toBe('dust');
  });

  it('never settles a simple order from the wrong token', async () => {
    const code = await openOrder(ctx);
    await chooseRail(ctx, code, 'card');
    const { depositAddress, expectedGross } = await orderRow(ctx, code);
    await payFromWallet(chain, chain.tokens.polygon.USDT, depositAddress, expectedGross!);
    const [wrong] = await eventually(
      () => exceptionRows(ctx, code),
      (rows) => rows.some((r) => r.kind === 'wrong_asset'),
      20_000,
      'the wrong_asset exception',
    );
    expect(wrong).toMatchObject({ paymentKind: 'simple_order', kind: 'wrong_asset', amount: expectedGross });
    expect((await orderRow(ctx, code)).status).toBe('pending');
  });
});
