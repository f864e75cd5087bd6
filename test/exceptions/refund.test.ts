import { payeeOf } from '../../src/chains/sweeper';
import { describe, expect, it } from 'vitest';
import { paymentRefundedEventSchema } from '../../src/api/webhook-schemas';
import { ledgerAccount } from '../../src/domain/ledger';
import { spawnOps } from '../cli/run-ops';
import { balanceOf, randomAddress } from '../support/chain';
import { ADMIN_TOKEN, adminHeaders } from '../support/harness';
import { eventually, http } from '../support/http';
import { killHard } from '../support/processes';
import { useRefundStack } from './refund-stack';
import { sessionRow } from '../proof/support';
import { ledgerBalance, unbalancedPostings } from '../payouts/support';
import { paymentAtRest } from '../support/at-rest';

// An exception's refund: money that arrived after the checkout ended goes back on chain to the
// address an operator gives, exactly once, through the payout machinery; the exception becomes
// `refunded`, `payment.refunded` fires once, the ledger posts it and reconciles. A worker (worker.ts)
// reaches the chain through a JSON-RPC proxy that can SIGKILL it in the middle of the refund.
const stack = useRefundStack();
const { ctx, chain, token, startWorker, refund, lateException } = stack;
const eventsFor = (id: string, type: string) => stack.receiver.received.filter((d) => d.body.sessionId === id && d.body.event === type);

/** The exception's refund rows; `to_address` is who gets the money (the payee of the sweeper's `forward`). */
async function refundRows(exceptionId: string): Promise<Record<string, any>[]> {
  const rows = await ctx.db.sql<
    Record<string, any>[]
  >`select kind, status, amount::text as amount, to_address, tx_hash, call_data from payouts where exception_id = ${exceptionId} order by kind`;
  return rows.map(({ call_data: callData, ...r }) => ({
    ...r,
    to_address: payeeOf({ toAddress: r.to_address as string, callData: callData as string | null }),
  }));
}

describe('refunding an exception on chain', () => {
  it('sends late money back once to the operator’s address: refunded, payment.refunded once, posted and reconciled', async () => {
    await startWorker();
    const late = await lateException();
    const customer = randomAddress();

    // Bad input changes nothing: a malformed address, a mixed-case one with a wrong EIP-55 checksum, none.
    for (const address of ['0xabc', '0x52908400098527886E0F7030069857D2E4169Ee7', undefined]) {
      const res = await refund(late.exceptionId, address);
      expect(res.statusCode, String(address)).toBe(422);
      expect(res.json()).toMatchObject({ ok: false, error: 'ValidationError' });
    }
    expect(await refundRows(late.exceptionId)).toEqual([]);

    // Two operators at once: one refund, both answered with it.
    const [a, b] = await Promise.all([refund(late.exceptionId, customer), refund(late.exceptionId, customer)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json()).toMatchObject({
      ok: true,
      exception: { id: late.exceptionId, kind: 'late' },
      refund: { address: customer, amount: (Number(late.g) / 1e6).toFixed(6) },
    });
    // Another address while it is under way is a conflict; so is accepting the same money.
    expect((await refund(late.exceptionId, randomAddress())).statusCode).toBe(409);
    const accept = await ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${late.exceptionId}/accept`, headers: adminHeaders });
    expect(accept.statusCode).toBe(409);

    // The customer's wallet receives exactly the late amount; the deposit address is empty.
    await eventually(
      () => balanceOf(chain, token, customer),
      (balance) => balance === late.g,
      60_000,
      'the refund to arrive',
    );
    const [exception] = await eventually(
      () => ctx.db.sql`select status, resolved_at from payment_exceptions where id = ${late.exceptionId}`,
      (rows) => rows[0]?.status === 'refunded',
      20_000,
      'the exception refunded',
    );
    expect(exception!.resolved_at).not.toBeNull();
    expect(await balanceOf(chain, token, late.depositAddress)).toBe(0n);
    const rows = await refundRows(late.exceptionId);
    expect(rows.filter((r) => r.kind === 'refund')).toEqual([
      {
        kind: 'refund',
        status: 'confirmed',
        amount: late.g.toString(),
        to_address: customer,
        tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
    ]);
    const sent = rows.find((r) => r.kind === 'refund')!.tx_hash as string;
    // The session stays expired: the money went back, it never paid the checkout.
    expect((await sessionRow(ctx, late.id)).status).toBe('expired');

    // The merchant hears of it once, with the transfer.
    await eventually(
      () => Promise.resolve(eventsFor(late.id, 'payment.refunded').length),
      (n) => n === 1,
      20_000,
      'payment.refunded delivered',
    );
    const event = eventsFor(late.id, 'payment.refunded')[0]!.body;
    expect(paymentRefundedEventSchema.strict().safeParse(event).success).toBe(true);
    expect(event).toMatchObject({
      exceptionId: late.exceptionId,
      status: 'refunded',
      refund: { address: customer, transactionHash: sent },
    });

    // Asked again: the same refund, confirmed, and nothing more leaves.
    const again = await refund(late.exceptionId, customer);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ exception: { status: 'refunded' }, refund: { status: 'confirmed', transactionHash: sent } });
    // The ops CLI answers the same.
    const cli = await spawnOps(['exceptions', 'refund', late.exceptionId, '--address', customer], { SVC_URL: ctx.baseUrl, ADMIN_TOKEN });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`refund confirmed: ${(Number(late.g) / 1e6).toFixed(6)} to ${customer} in ${sent}`);
    await paymentAtRest(ctx, late.id);
    expect(await balanceOf(chain, token, customer)).toBe(late.g);
    expect(eventsFor(late.id, 'payment.refunded')).toHaveLength(1);
    expect(eventsFor(late.id, 'payment.exception')).toHaveLength(1);

    // The customer's page says where the money went.
    expect((await http('GET', `${ctx.baseUrl}/pay/${late.id}`)).text).toContain('were sent back to your wallet');

    // Ledger: the money held for the customer came in and went out; the chain agrees.
    expect(await ledgerBalance(ctx, ledgerAccount.exceptionHeld(late.exceptionId), 'USDC')).toBe(0n);
    expect(await ledgerBalance(ctx, ledgerAccount.deposit(late.depositAddress), 'USDC')).toBe(0n);
    // Two lines on the exception's account: its arrival, and the refund.
    const [posted] = await ctx.db
      .sql`select count(*)::int as n from ledger_entries where account = ${ledgerAccount.exceptionHeld(late.exceptionId)}`;
    expect(posted!.n).toBe(2);
    expect(await unbalancedPostings(ctx)).toEqual([]);
    const reconciled = await ctx.app.inject({ method: 'GET', url: '/admin/v1/reconciliation', headers: adminHeaders });
    expect(reconciled.json().differences.filter((d: { account: string }) => d.account.includes(late.depositAddress))).toEqual([]);
  }, 180_000);

  it('survives a worker killed after the refund was broadcast: the next worker confirms the same transfer, paid once', async () => {
    let worker = await startWorker();
    const late = await lateException();
    const customer = randomAddress();
    stack.proxy.arm({
      method: 'eth_sendRawTransaction',
      matches: (p) => p.includes(customer.slice(2).toLowerCase()),
      when: 'after',
      spring: () => killHard(worker),
    });
    expect((await refund(late.exceptionId, customer)).statusCode).toBe(200);
    await eventually(
      async () => stack.proxy.armed(),
      (armed) => !armed,
      60_000,
      'the trap to spring',
    );
    expect(worker.exitCode !== null || worker.signalCode !== null).toBe(true);
    const [atKill] = (await refundRows(late.exceptionId)).filter((r) => r.kind === 'refund');
    expect(atKill!.status).not.toBe('confirmed');
    worker = await startWorker();
    await eventually(
      () => ctx.db.sql`select status from payment_exceptions where id = ${late.exceptionId}`,
      (rows) => rows[0]?.status === 'refunded',
      90_000,
      'the exception refunded after the restart',
    );
    const [after] = (await refundRows(late.exceptionId)).filter((r) => r.kind === 'refund');
    expect(after).toMatchObject({ status: 'confirmed', tx_hash: atKill!.tx_hash });
    expect(await balanceOf(chain, token, customer)).toBe(late.g);
    expect(await balanceOf(chain, token, late.depositAddress)).toBe(0n);
    await eventually(
      () => Promise.resolve(eventsFor(late.id, 'payment.refunded').length),
      (n) => n === 1,
      20_000,
      'payment.refunded delivered',
    );
    expect(await unbalancedPostings(ctx)).toEqual([]);
  }, 240_000);
});
