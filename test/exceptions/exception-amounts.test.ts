import { describe, expect, it } from 'vitest';
import { recordLateFact } from '../../src/db/queries/late-payments';
import { recordPaymentException } from '../../src/db/queries/payment-exceptions';
import { ExceptionAmountNotPositive, requirePositiveExceptionAmount } from '../../src/domain/exceptions';
import { newExceptionId } from '../../src/domain/ids';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { seedPayment } from '../support/seed-payment';

// An exception is money that arrived or was claimed, so its amount is positive. The
// function that records exceptions refuses anything else before writing, and Postgres refuses it
// too (payment_exceptions_amount_check), whoever writes.
const ctx = useTestApp();

const exceptionsOf = async (paymentId: string) =>
  (await ctx.db.sql`select kind, amount_micro::text as amount from payment_exceptions where payment_id = ${paymentId}`).map((r) => ({
    ...r,
  }));

async function endedPayment(): Promise<string> {
  const m = await createApprovedMerchant(ctx.app);
  return seedPayment(ctx.db.db, m.id, 'completed');
}

describe('an exception’s amount is positive', () => {
  it('is required by the domain', () => {
    expect(requirePositiveExceptionAmount(1n)).toBe(1n);
    for (const amount of [0n, -1n, -24_750_000n]) expect(() => requirePositiveExceptionAmount(amount)).toThrow(ExceptionAmountNotPositive);
  });

  it('is refused by recordPaymentException before anything is written', async () => {
    const paymentId = await endedPayment();
    for (const amountMicro of [0n, -24_750_000n]) {
      await expect(
        recordPaymentException(ctx.db.db, {
          id: newExceptionId(),
          paymentKind: 'checkout_session',
          paymentId,
          kind: 'unverified',
          arrivalKey: `provider:${amountMicro}`,
          amountMicro,
          references: {},
        }),
      ).rejects.toThrow(ExceptionAmountNotPositive);
    }
    expect(await exceptionsOf(paymentId)).toEqual([]);
    const recorded = await recordPaymentException(ctx.db.db, {
      id: newExceptionId(),
      paymentKind: 'checkout_session',
      paymentId,
      kind: 'late',
      arrivalKey: 'provider:one',
      amountMicro: 1n,
      references: {},
    });
    expect(recorded.inserted).toBe(true);
    expect(await exceptionsOf(paymentId)).toEqual([{ kind: 'late', amount: '1' }]);
  });

  it('is refused by Postgres for any writer', async () => {
    const paymentId = await endedPayment();
    for (const amount of [0, -24_750_000]) {
      await expect(
        ctx.db
          .sql`insert into payment_exceptions (id, payment_kind, payment_id, kind, amount_micro) values (${newExceptionId()}, 'checkout_session', ${paymentId}, 'unverified', ${amount})`,
      ).rejects.toMatchObject({ code: '23514', constraint_name: 'payment_exceptions_amount_check' });
    }
    expect(await exceptionsOf(paymentId)).toEqual([]);
  });

  it('makes a late success without a positive amount no exception, while a positive one is recorded', async () => {
    const paymentId = await endedPayment();
    const fact = (eventId: string, destinationAmount: string | undefined, verification: 'chain' | 'provider' = 'provider') =>
      recordLateFact(
        ctx.db.db,
        {
          kind: 'checkout_session',
          id: paymentId,
          provider: 'sandbox',
          network: 'polygon',
          status: 'expired',
          paid: false,
          paidBy: null,
          linkPaidElsewhere: false,
          verification,
        },
        { eventId, type: 'succeeded', providerPaymentId: 'pp_1', destinationAmount, occurredAt: new Date().toISOString() },
        new Date(),
      );
    for (const [eventId, amount] of [
      ['zero', '0.000000'],
      ['negative', '-24.750000'],
      ['missing', undefined],
      ['malformed', 'lots'],
    ] as const) {
      expect(await fact(eventId, amount), eventId).toBeNull();
    }
    expect(await exceptionsOf(paymentId)).toEqual([]);
    expect(await fact('positive', '24.750000')).toMatchObject({ kind: 'late', amountMicro: 24_750_000n, inserted: true });
    expect(await exceptionsOf(paymentId)).toEqual([{ kind: 'late', amount: '24750000' }]);
    // Where only the chain proves money, the provider's word is a claim, not money seen.
    expect(await fact('claimed', '5.000000', 'chain')).toMatchObject({ kind: 'unverified', amountMicro: 5_000_000n, inserted: true });
  });
});

// One arrival, one exception: a provider's word for a transfer (its callback, in an
// API process) and the chain's log of it (the watcher or the run, in a worker) may be recorded at
// the same moment. Each looked for the other's record and, finding none, wrote its own: two open
// exceptions for one arrival of money (seen in a loaded run of test/exceptions/late-and-canceled).
describe('a provider’s word and the chain’s log of one transfer, recorded at once', () => {
  it('make one exception, the log’s, however they interleave', async () => {
    const paymentId = await endedPayment();
    const transfers = Array.from({ length: 20 }, (_, i) => `0x${i.toString(16).padStart(64, 'a')}`);
    const record = (kind: 'unverified' | 'late', arrivalKey: string) =>
      recordPaymentException(ctx.db.db, {
        id: newExceptionId(),
        paymentKind: 'checkout_session',
        paymentId,
        kind,
        arrivalKey,
        amountMicro: 25_000_000n,
        references: {},
      });
    await Promise.all(transfers.flatMap((hash) => [record('unverified', `tx:polygon:${hash}`), record('late', `tx:polygon:${hash}:0`)]));
    const rows = await ctx.db.sql`select kind, arrival_key from payment_exceptions where payment_id = ${paymentId}`;
    const byKey = (a: { arrival_key: string }, b: { arrival_key: string }) => a.arrival_key.localeCompare(b.arrival_key);
    expect(rows.map((r) => ({ kind: r.kind as string, arrival_key: r.arrival_key as string })).sort(byKey)).toEqual(
      transfers.map((hash) => ({ kind: 'late', arrival_key: `tx:polygon:${hash}:0` })).sort(byKey),
    );
  });
});
