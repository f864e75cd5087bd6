import { describe, expect, it } from 'vitest';
import { insertMerchant, lockMerchant } from '../../src/db/queries/merchants';
import { useTestDatabase } from '../support/test-database';
import { seedPayment } from '../support/seed-payment';

// A merchant's lock (a settlement run planning its payout, a refund drawing on its balance) serialises
// those who take it, and never holds up a payment being opened for that merchant: the session's
// foreign-key check only needs the merchant row to stay, not to stay unlocked.
describe('the merchant lock', () => {
  const handle = useTestDatabase(4);

  it('lets a session be opened for the merchant while another transaction holds it, and makes a second locker wait', async () => {
    await insertMerchant(handle.db, {
      id: 'MER_lock',
      name: 'Lock',
      commissionBps: 150,
      securityCodeHash: 'x',
      webhookSecretEncrypted: 'x',
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const holder = handle.db.transaction(async (tx) => {
      await lockMerchant(tx, 'MER_lock');
      locked();
      await released;
    });
    await holding;
    try {
      // Under a lock timeout, so a wait fails the test instead of hanging it.
      const opened = await handle.db.transaction(async (tx) => {
        await tx.execute("set local lock_timeout = '2s'");
        return seedPayment(tx, 'MER_lock', 'pending');
      });
      expect(opened).toMatch(/^SV_/);
      const second = handle.db.transaction(async (tx) => {
        await tx.execute("set local lock_timeout = '300ms'");
        await lockMerchant(tx, 'MER_lock');
      });
      // 55P03 lock_not_available: the second locker waited for the first.
      await expect(second).rejects.toMatchObject({ cause: { code: '55P03' } });
    } finally {
      release();
      await holder;
    }
  });
});
