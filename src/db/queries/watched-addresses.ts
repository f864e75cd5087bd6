import { and, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions, depositAddresses, simpleOrders } from '../schema';
import { findDepositAddresses } from './deposit-addresses';

// The deposit addresses a network's chain watcher reads transfers to (open payments', recently
// ended ones', merchants' top-up addresses), and the payment each belongs to.

/**
 * Deposit addresses of the network's chain-verified checkout sessions and simple orders in the given
 * statuses (and, with `hours`, whose last change, their end, lies within that many hours), with the
 * payment each belongs to; with `topUps`, the merchants' top-up addresses too (made after
 * `changedSince`, when given), with their reference.
 */
function depositAddressesOf(
  db: DatabaseOrTransaction,
  network: string,
  statuses: { sessions: (typeof checkoutSessions.status.enumValues)[number][]; orders: (typeof simpleOrders.status.enumValues)[number][] },
  hours?: number,
  changedSince?: Date,
  topUps = false,
): Promise<{ paymentId: string; address: string }[]> {
  const within = (updatedAt: typeof checkoutSessions.updatedAt | typeof simpleOrders.updatedAt) =>
    changedSince
      ? sql`${updatedAt} > ${changedSince.toISOString()}::timestamptz`
      : hours === undefined
        ? undefined
        : sql`${updatedAt} > now() - make_interval(secs => ${hours * 3600})`;
  const sessions = db
    .select({ paymentId: checkoutSessions.id, address: sql<string>`${checkoutSessions.depositAddress}` })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.network, network),
        eq(checkoutSessions.verification, 'chain'),
        isNotNull(checkoutSessions.depositAddress),
        inArray(checkoutSessions.status, statuses.sessions),
        within(checkoutSessions.updatedAt),
      ),
    );
  const orders = db
    .select({ paymentId: simpleOrders.transactionCode, address: sql<string>`${simpleOrders.chainDepositAddress}` })
    .from(simpleOrders)
    .where(
      and(
        eq(simpleOrders.walletNetwork, network),
        eq(simpleOrders.verification, 'chain'),
        isNotNull(simpleOrders.chainDepositAddress),
        inArray(simpleOrders.status, statuses.orders),
        within(simpleOrders.updatedAt),
      ),
    );
  // Every merchant's top-up address is watched for good (docs/settlement.md): with the open payments'
  // in a full read, and those made since in a read of what changed. The partial index
  // deposit_addresses_top_up_idx keeps this off the payments' rows.
  if (!topUps) return sessions.unionAll(orders);
  const topUpAddresses = db
    .select({ paymentId: depositAddresses.paymentReference, address: depositAddresses.address })
    .from(depositAddresses)
    .where(
      and(
        eq(depositAddresses.network, network),
        sql`${depositAddresses.paymentReference} like 'topup:%'`,
        changedSince ? sql`${depositAddresses.createdAt} > ${changedSince.toISOString()}::timestamptz` : undefined,
      ),
    );
  return sessions.unionAll(orders).unionAll(topUpAddresses);
}

/** Deposit addresses of the network's open payments and its top-up addresses: what the network's watcher reads transfers to. */
export function listOpenDepositAddresses(db: DatabaseOrTransaction, network: string): Promise<{ paymentId: string; address: string }[]> {
  return depositAddressesOf(
    db,
    network,
    { sessions: ['pending', 'processing'], orders: ['pending', 'processing'] },
    undefined,
    undefined,
    true,
  );
}

/**
 * The deposit addresses of the network's payments whose row changed after `since` (an index range on
 * updated_at, whatever the number of open payments), and the top-up addresses made since: what the
 * watcher adds between full reads. Open
 * payments, and with `ended` the ones that ended (a payment opened and ended between two reads is
 * still watched for late money). A payment gets its address in the insert that creates it, and every
 * write of these rows sets updated_at = now().
 */
export function listDepositAddressesChangedSince(
  db: DatabaseOrTransaction,
  network: string,
  since: Date,
  options: { ended: boolean },
): Promise<{ paymentId: string; address: string }[]> {
  const statuses = options.ended
    ? {
        sessions: ['pending', 'processing', 'completed', 'failed', 'expired', 'canceled'] as const,
        orders: ['pending', 'processing', 'settled', 'failed', 'expired'] as const,
      }
    : { sessions: ['pending', 'processing'] as const, orders: ['pending', 'processing'] as const };
  return depositAddressesOf(db, network, { sessions: [...statuses.sessions], orders: [...statuses.orders] }, undefined, since, true);
}

/**
 * When the oldest payment the network's watcher must watch was opened (its open payments, and with
 * `endedWithinHours` those ended that recently), or null when there is none: where a watcher with no
 * cursor yet starts reading, so a payment opened and paid before any watcher ran is still seen.
 */
export async function oldestWatchedPaymentOpenedAt(
  db: DatabaseOrTransaction,
  network: string,
  endedWithinHours: number,
): Promise<Date | null> {
  // Open, or changed (ended) within the late-deposit window.
  const watched = (status: SQL, updatedAt: SQL) =>
    sql`(${status} in ('pending', 'processing') or ${updatedAt} > now() - make_interval(secs => ${Math.max(0, endedWithinHours) * 3600}))`;
  const [row] = await db.execute<{ at: string | null }>(sql`select least(
      (select min(${checkoutSessions.createdAt}) from ${checkoutSessions} where ${and(
        eq(checkoutSessions.network, network),
        eq(checkoutSessions.verification, 'chain'),
        isNotNull(checkoutSessions.depositAddress),
        watched(sql`${checkoutSessions.status}`, sql`${checkoutSessions.updatedAt}`),
      )}),
      (select min(${simpleOrders.createdAt}) from ${simpleOrders} where ${and(
        eq(simpleOrders.walletNetwork, network),
        eq(simpleOrders.verification, 'chain'),
        isNotNull(simpleOrders.chainDepositAddress),
        watched(sql`${simpleOrders.status}`, sql`${simpleOrders.updatedAt}`),
      )})
    ) as at`);
  return row?.at ? new Date(row.at) : null;
}

/**
 * Deposit addresses of the network's payments that ended within the last `hours`, so
 * money that still arrives is seen and owned.
 */
export async function listRecentlyEndedDepositAddresses(
  db: DatabaseOrTransaction,
  network: string,
  hours: number,
): Promise<{ paymentId: string; address: string }[]> {
  if (hours <= 0) return [];
  return depositAddressesOf(
    db,
    network,
    { sessions: ['completed', 'failed', 'expired', 'canceled'], orders: ['settled', 'failed', 'expired'] },
    hours,
  );
}

/**
 * The payment each deposit address belongs to, whatever its kind or status (a transfer may confirm
 * after the payment ended). The payment reference is also its workflow's id.
 */
export async function findDepositOwners(
  db: DatabaseOrTransaction,
  addresses: readonly string[],
): Promise<{ paymentId: string; address: string }[]> {
  const rows = await findDepositAddresses(db, addresses);
  return rows.map((r) => ({ paymentId: r.paymentReference, address: r.address }));
}
