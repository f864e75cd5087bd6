import type { Database } from '../../src/db/client';
import { writePostings } from '../../src/db/queries/ledger';
import { payoutItems, payouts } from '../../src/db/schema';
import { holdReleased, outgoingConfirmed, outgoingPlanned, paymentCompleted } from '../../src/domain/balances';
import { newPayoutId } from '../../src/domain/ids';
import { seedPayment } from './seed-payment';

const TREASURY = '0x0000000000000000000000000000000000000009';
const TX_HASH = `0x${'5e'.repeat(32)}`;

/** seedPayment's share: 25.000000 gross at 150 bps. */
export const SEEDED_SHARE_MICRO = 24_625_000n;

/**
 * A merchant's USDC balance on Polygon as settlement leaves it (docs/settlement.md), written directly
 * for tests of what the merchant reads: `paid` completed payments paid by one payout planned at
 * `payoutAt`, and `available` more whose shares are available. The payout is confirmed (its money
 * gone), or with `onItsWay` still broadcast (its shares on their way): a file with a worker keeps it
 * confirmed, or a settlement run would try to finish it. The postings are the completion's, the
 * release's and the payout's. Their deposit addresses are no sweeper's, no sweep confirmed them and
 * the payout has no signed transaction, so no run or watcher sends anything for them.
 */
export async function seedBalance(
  db: Database,
  merchantId: string,
  input: { paid: number; available: number; payoutAt: Date; onItsWay?: boolean },
): Promise<{ paid: string[]; available: string[]; payoutId: string }> {
  const place = { network: 'polygon', asset: 'USDC' };
  const paid: string[] = [];
  const available: string[] = [];
  for (let i = 0; i < input.paid + input.available; i++) {
    const paymentId = await seedPayment(db, merchantId, 'completed');
    (i < input.paid ? paid : available).push(paymentId);
    await writePostings(db, [
      paymentCompleted({
        ...place,
        paymentId,
        merchantId,
        depositAddress: `0xseeded${paymentId}`,
        txHash: null,
        grossMicro: 25_000_000n,
        merchantMicro: SEEDED_SHARE_MICRO,
        commissionMicro: 375_000n,
      }),
      holdReleased({ ...place, paymentId, merchantId, amountMicro: SEEDED_SHARE_MICRO, reservedMicro: 0n, reserveTargetMicro: 0n }),
    ]);
  }
  const payoutId = newPayoutId();
  const amount = SEEDED_SHARE_MICRO * BigInt(paid.length);
  await db.insert(payouts).values({
    id: payoutId,
    // A settlement run's payout names itself; its payments are its items.
    paymentId: payoutId,
    kind: 'merchant',
    network: place.network,
    asset: place.asset,
    fromAddress: TREASURY,
    toAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
    amount: amount.toString(),
    createdAt: input.payoutAt,
    ...(input.onItsWay ? { status: 'broadcast' } : { status: 'confirmed', txHash: TX_HASH, confirmedAt: input.payoutAt }),
  });
  if (paid.length > 0)
    await db.insert(payoutItems).values(paid.map((paymentId) => ({ payoutId, paymentId, amount: String(SEEDED_SHARE_MICRO) })));
  const outgoing = { ...place, outgoingId: payoutId, merchantId, paymentId: null };
  await writePostings(db, [
    outgoingPlanned({ ...outgoing, fromAvailable: amount, fromReserved: 0n }),
    ...(input.onItsWay ? [] : [outgoingConfirmed({ ...outgoing, treasury: TREASURY, txHash: TX_HASH, amountMicro: amount })]),
  ]);
  return { paid, available, payoutId };
}
