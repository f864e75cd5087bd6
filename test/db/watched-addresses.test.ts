import { describe, expect, it } from 'vitest';
import { listDepositAddressesChangedSince, listOpenDepositAddresses } from '../../src/db/queries/watched-addresses';
import { seedPayment } from '../support/seed-payment';
import { useTestDatabase } from '../support/test-database';

// Between its full reads, a chain watcher adds only the open payments whose row changed
// since its previous read (src/watchers/chain-watch.ts), so what it reads does not grow with the
// number of open payments.
describe('the open deposit addresses changed since a time', () => {
  const handle = useTestDatabase(2, async (h) => {
    await h.sql`insert into merchants (id, name, status, security_code_hash) values ('MER_watch', 'Watch', 'approved', 'x')`;
  });

  const chainSession = async (address: string, status: 'pending' | 'completed', changedMinutesAgo: number) => {
    const id = await seedPayment(handle.db, 'MER_watch', status);
    await handle.sql`update checkout_sessions set verification = 'chain', deposit_address = ${address},
      updated_at = now() - make_interval(mins => ${changedMinutesAgo}) where id = ${id}`;
    return id;
  };

  it('lists the open ones changed after the time (and the ended ones when asked), and no others', async () => {
    const fresh = await chainSession('0x00000000000000000000000000000000000000f1', 'pending', 0);
    const old = await chainSession('0x00000000000000000000000000000000000000f2', 'pending', 30);
    const ended = await chainSession('0x00000000000000000000000000000000000000f3', 'completed', 0);
    const since = new Date(Date.now() - 10 * 60_000);
    expect(await listDepositAddressesChangedSince(handle.db, 'polygon', since, { ended: false })).toEqual([
      { paymentId: fresh, address: '0x00000000000000000000000000000000000000f1' },
    ]);
    // Late money watched: a payment that opened and ended between two reads is listed too.
    expect((await listDepositAddressesChangedSince(handle.db, 'polygon', since, { ended: true })).map((r) => r.paymentId).sort()).toEqual(
      [fresh, ended].sort(),
    );
    expect(await listDepositAddressesChangedSince(handle.db, 'base', since, { ended: true })).toEqual([]);
    // A full read has both open ones.
    expect((await listOpenDepositAddresses(handle.db, 'polygon')).map((r) => r.paymentId).sort()).toEqual([fresh, old].sort());
  });
});
