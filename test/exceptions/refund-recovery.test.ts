import { WorkflowUpdateFailedError } from '@temporalio/client';
import { encodeAbiParameters, keccak256, numberToHex, type Address } from 'viem';
import { payeeOf } from '../../src/chains/sweeper';
import { describe, expect, it } from 'vitest';
import { ZERO_ADDRESS } from '../../src/domain/evm-address';
import { temporalCallError } from '../../src/payments/temporal-call';
import { refundUpdate } from '../../src/workflows/payment-exception/messages';
import { balanceOf, randomAddress } from '../support/chain';
import { adminHeaders } from '../support/harness';
import { eventually } from '../support/http';
import { killHard } from '../support/processes';
import { useRefundStack } from './refund-stack';

// A refused or failed refund never blocks a later valid one, and every
// answer is in the envelope (never a 500). Real chain (the run's anvil), real Temporal, a worker
// process (worker.ts) reaching the chain through a JSON-RPC proxy that can act at an exact call.
const stack = useRefundStack();
const { ctx, chain, token, startWorker, refund, lateException } = stack;
const refundedEvents = (id: string) =>
  stack.receiver.received.filter((d) => d.body.sessionId === id && d.body.event === 'payment.refunded');

/** The exception's refund rows; `to_address` is who gets the money (the payee of the sweeper's `forward`). */
async function refundRows(exceptionId: string): Promise<Record<string, any>[]> {
  const rows = await ctx.db.sql<
    Record<string, any>[]
  >`select attempt, kind, status, to_address, tx_hash, failure_reason, call_data from payouts where exception_id = ${exceptionId} order by attempt, kind`;
  return rows.map(({ call_data: callData, ...r }) => ({
    ...r,
    to_address: payeeOf({ toAddress: r.to_address as string, callData: callData as string | null }),
  }));
}

async function exceptionStatus(exceptionId: string): Promise<string> {
  const [row] = await ctx.db.sql`select status from payment_exceptions where id = ${exceptionId}`;
  return row!.status as string;
}

/** Updates the run took (admitted, accepted or completed): none for a request the service refused. */
async function updatesInRun(exceptionId: string): Promise<number> {
  const history = await ctx.temporal.workflow.getHandle(exceptionId).fetchHistory();
  return (history.events ?? []).filter((e) =>
    Object.keys(e).some((k) => k.startsWith('workflowExecutionUpdate') && (e as Record<string, unknown>)[k] != null),
  ).length;
}

/**
 * Sets `owner`'s balance of the test token directly in its storage (TestToken.sol: balanceOf is
 * slot 3), so the money leaves or comes back without a Transfer log the watcher would take for a
 * new arrival.
 */
async function setTokenBalance(owner: Address, amount: bigint) {
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 3n]));
  await chain.control.setStorageAt({ address: token, index: slot, value: numberToHex(amount, { size: 32 }) });
  expect(await balanceOf(chain, token, owner)).toBe(amount);
}

async function waitRefunded(exceptionId: string, customer: Address, amount: bigint) {
  await eventually(
    () => exceptionStatus(exceptionId),
    (s) => s === 'refunded',
    60_000,
    'the exception refunded',
  );
  expect(await balanceOf(chain, token, customer)).toBe(amount);
}

describe('refused refund addresses', () => {
  it('the zero address is 422 and changes nothing; a valid refund of the same exception then goes out on chain exactly once, however often it is asked for', async () => {
    await startWorker();
    const late = await lateException();

    const zero = await refund(late.exceptionId, ZERO_ADDRESS);
    expect(zero.statusCode).toBe(422);
    expect(zero.json()).toMatchObject({
      ok: false,
      error: 'ValidationError',
      message: expect.stringContaining('zero address'),
      details: [{ path: 'address' }],
    });
    expect(await refundRows(late.exceptionId)).toEqual([]);
    expect(await exceptionStatus(late.exceptionId)).toBe('open');
    expect(await updatesInRun(late.exceptionId)).toBe(0);

    // Two operators at once, then a third: one refund, every answer the same.
    const customer = randomAddress();
    const answers = await Promise.all([refund(late.exceptionId, customer), refund(late.exceptionId, customer)]);
    answers.push(await refund(late.exceptionId, customer));
    for (const a of answers) {
      expect(a.statusCode).toBe(200);
      expect(a.json()).toMatchObject({
        ok: true,
        refund: { address: customer, amount: (Number(late.g) / 1e6).toFixed(6), failureReason: null },
      });
    }
    await waitRefunded(late.exceptionId, customer, late.g);
    expect(await balanceOf(chain, token, late.depositAddress)).toBe(0n);
    const rows = await refundRows(late.exceptionId);
    expect(rows.filter((r) => r.kind === 'refund')).toEqual([
      expect.objectContaining({ attempt: 1, status: 'confirmed', to_address: customer }),
    ]);
    await eventually(
      () => Promise.resolve(refundedEvents(late.id).length),
      (n) => n === 1,
      20_000,
      'payment.refunded delivered',
    );
    // After it: the same refund again, and nothing more leaves.
    const again = await refund(late.exceptionId, customer);
    expect(again.json()).toMatchObject({
      exception: { status: 'refunded' },
      refund: { status: 'confirmed', transactionHash: rows.find((r) => r.kind === 'refund')!.tx_hash },
    });
    expect(await ctx.temporal.workflow.getHandle(late.exceptionId).result()).toBe('refunded');
    expect(await balanceOf(chain, token, customer)).toBe(late.g);
    expect(refundedEvents(late.id)).toHaveLength(1);
  }, 180_000);

  it('refuses every address that is not the customer’s with 422 (the service before any workflow, the validator and the planning activity behind it); a later valid refund still works', async () => {
    await startWorker();
    const late = await lateException();
    const other = await lateException();
    const refused: [string, unknown, string][] = [
      ['malformed', '0x1234', 'must be an EVM address'],
      ['not hex', `0x${'z'.repeat(40)}`, 'must be an EVM address'],
      ['41 hex digits', `${randomAddress()}0`, 'must be an EVM address'],
      ['not a string', 12345, 'not valid'],
      ['a wrong EIP-55 checksum', '0x52908400098527886E0F7030069857D2E4169Ee7', 'EIP-55 checksum'],
      ['the zero address', ZERO_ADDRESS.toUpperCase().replace('0X', '0x'), 'zero address'],
      ['its own deposit address', late.depositAddress, 'deposit addresses'],
      ['an address without its checksum', randomAddress().toLowerCase(), 'EIP-55 checksum'],
      ['another payment’s deposit address', other.depositAddress, 'deposit addresses'],
      ['the token contract', token, 'token contract'],
      ['another configured token contract', chain.tokens.ethereum.USDT, 'token contract'],
      ['the treasury', stack.treasury, 'treasury'],
    ];
    for (const [what, address, message] of refused) {
      const res = await refund(late.exceptionId, address);
      expect(res.statusCode, what).toBe(422);
      expect(res.json(), what).toMatchObject({ ok: false, error: 'ValidationError', message: expect.stringContaining(message) });
    }
    expect(await refundRows(late.exceptionId)).toEqual([]);
    expect(await exceptionStatus(late.exceptionId)).toBe('open');
    expect(await updatesInRun(late.exceptionId)).toBe(0);

    // Sent to the workflow directly (past the service): the validator refuses what the address
    // itself says, the planning activity the rest, at once (non-retryable), mapped to 422 in the
    // one place; the failed plan is not kept, so it blocks nothing.
    const handle = ctx.temporal.workflow.getHandle(late.exceptionId);
    for (const [address, message] of [
      [ZERO_ADDRESS, 'zero address'],
      ['0x52908400098527886E0F7030069857D2E4169Ee7', 'EIP-55 checksum'],
      [stack.treasury, 'treasury'],
      [late.depositAddress, 'deposit addresses'],
      [token, 'token contract'],
    ] as const) {
      const err = await handle.executeUpdate(refundUpdate, { args: [{ address }] }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, address).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(temporalCallError(err, late.exceptionId, 'This exception cannot be refunded.'), address).toMatchObject({
        code: 'ValidationError',
        status: 422,
        message: expect.stringContaining(message),
      });
    }
    expect(await refundRows(late.exceptionId)).toEqual([]);

    const customer = randomAddress();
    expect((await refund(late.exceptionId, customer)).statusCode).toBe(200);
    await waitRefunded(late.exceptionId, customer, late.g);
    expect((await refundRows(late.exceptionId)).filter((r) => r.kind === 'refund')).toEqual([
      expect.objectContaining({ attempt: 1, status: 'confirmed' }),
    ]);
    // The updates the run did take: the five refused ones sent directly and the valid one (a check that counts at all).
    expect(await updatesInRun(late.exceptionId)).toBeGreaterThan(0);
  }, 240_000);
});

describe('refunds that cannot be made now', () => {
  it('a deposit address that no longer holds the money: 409 with why, nothing planned; once the money is back a refund works', async () => {
    await startWorker();
    const late = await lateException();
    await setTokenBalance(late.depositAddress, 0n);
    const customer = randomAddress();

    const res = await refund(late.exceptionId, customer);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      ok: false,
      error: 'Conflict',
      message: expect.stringMatching(
        /^This exception cannot be refunded: the deposit address 0x[0-9a-fA-F]{40} holds 0\.000000 of the \d+\.\d{6} USDC to refund\.$/,
      ),
    });
    expect(await refundRows(late.exceptionId)).toEqual([]);
    expect(await exceptionStatus(late.exceptionId)).toBe('open');
    // Asked again while it is still missing: the same answer (the failed plan was not kept, and not retried forever).
    expect((await refund(late.exceptionId, customer)).statusCode).toBe(409);

    await setTokenBalance(late.depositAddress, late.g);
    const ok = await refund(late.exceptionId, customer);
    expect(ok.statusCode).toBe(200);
    await waitRefunded(late.exceptionId, customer, late.g);
    expect(await balanceOf(chain, token, late.depositAddress)).toBe(0n);
  }, 180_000);

  it('a refund whose transfer reverts on chain: the payout failed with its reason, the exception open; a new refund goes out once', async () => {
    await startWorker();
    const late = await lateException();
    const first = randomAddress();
    // The money leaves the deposit address just before the refund's signed transfer reaches the
    // node: it was planned (the estimate passed) and is mined, reverted.
    stack.proxy.arm({
      method: 'eth_sendRawTransaction',
      matches: (p) => p.includes(first.slice(2).toLowerCase()),
      when: 'before',
      spring: () => setTokenBalance(late.depositAddress, 0n),
    });
    expect((await refund(late.exceptionId, first)).statusCode).toBe(200);
    const failed = await eventually(
      () => refundRows(late.exceptionId),
      (rows) => rows.some((r) => r.kind === 'refund' && r.status === 'failed'),
      60_000,
      'the refund to fail',
    );
    expect(failed.find((r) => r.kind === 'refund')).toMatchObject({
      attempt: 1,
      to_address: first,
      failure_reason: expect.stringContaining('reverted'),
    });
    expect(await exceptionStatus(late.exceptionId)).toBe('open');
    expect(await balanceOf(chain, token, first)).toBe(0n);
    // The operator sees it: in the payment's payouts and in the refund's answer; the run waits for them again.
    const view = await ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${late.id}`, headers: adminHeaders });
    expect(view.json().payouts).toContainEqual(
      expect.objectContaining({
        kind: 'refund',
        status: 'failed',
        exceptionId: late.exceptionId,
        failureReason: expect.stringContaining('reverted'),
      }),
    );
    // The run recorded the failure (its exceptionRefundNotSent activity completed) and goes on waiting.
    const handle = ctx.temporal.workflow.getHandle(late.exceptionId);
    await eventually(
      async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'exceptionRefundNotSent');
        return (
          scheduled !== undefined &&
          events.some((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1) === Number(scheduled.eventId))
        );
      },
      (recorded) => recorded,
      10_000,
      'the run to record the failed refund',
    );
    expect((await handle.describe()).status.name).toBe('RUNNING');

    // The money is back; another address is no conflict now: a second attempt, sent once.
    await setTokenBalance(late.depositAddress, late.g);
    const second = randomAddress();
    const answers = await Promise.all([refund(late.exceptionId, second), refund(late.exceptionId, second)]);
    for (const a of answers)
      expect(a.json()).toMatchObject({ ok: true, refund: { address: second, status: expect.not.stringMatching(/failed/) } });
    await waitRefunded(late.exceptionId, second, late.g);
    expect(await balanceOf(chain, token, first)).toBe(0n);
    expect(await balanceOf(chain, token, late.depositAddress)).toBe(0n);
    const rows = (await refundRows(late.exceptionId)).filter((r) => r.kind === 'refund');
    expect(rows).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', to_address: first }),
      expect.objectContaining({ attempt: 2, status: 'confirmed', to_address: second }),
    ]);
    await eventually(
      () => Promise.resolve(refundedEvents(late.id).length),
      (n) => n === 1,
      20_000,
      'payment.refunded delivered',
    );
    expect(refundedEvents(late.id)[0]!.body).toMatchObject({ refund: { address: second } });
  }, 240_000);

  it('a refund whose run does not answer in time is 503, never a 500; asking again once it answers is the same refund, sent once', async () => {
    let worker = await startWorker();
    const late = await lateException();
    await killHard(worker);
    const customer = randomAddress();
    const slow = await refund(late.exceptionId, customer);
    expect(slow.statusCode).toBe(503);
    expect(slow.json()).toMatchObject({
      ok: false,
      error: 'Unavailable',
      message: expect.stringContaining('Repeating the same request is safe'),
    });
    worker = await startWorker();
    const answer = await eventually(
      () => refund(late.exceptionId, customer),
      (r) => r.statusCode === 200,
      60_000,
      'the refund to answer',
    );
    expect(answer.json()).toMatchObject({ refund: { address: customer } });
    await waitRefunded(late.exceptionId, customer, late.g);
    expect((await refundRows(late.exceptionId)).filter((r) => r.kind === 'refund')).toHaveLength(1);
  }, 180_000);
});
