import { eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { chainCursors } from '../schema';

// Where a network's chain watcher stands: its cursor, and the head and confirmed block of its last scan.

export async function loadCursor(db: DatabaseOrTransaction, network: string): Promise<string | undefined> {
  const [row] = await db.select().from(chainCursors).where(eq(chainCursors.network, network));
  return row?.cursor;
}

/** The chain's head as the network's watcher last saw it (null before its first scan): confirmations without an RPC call. */
export async function loadWatchedHead(db: DatabaseOrTransaction, network: string): Promise<bigint | null> {
  const [row] = await db.select({ head: chainCursors.head }).from(chainCursors).where(eq(chainCursors.network, network));
  return row?.head ?? null;
}

/** Stores the cursor, and with `position` where the scan that made it stood (for the lag metric). */
export async function saveCursor(
  db: DatabaseOrTransaction,
  network: string,
  cursor: string,
  position?: { head: bigint; confirmedThrough: bigint },
): Promise<void> {
  const values = { cursor, ...(position ?? {}) };
  await db
    .insert(chainCursors)
    .values({ network, ...values })
    .onConflictDoUpdate({ target: chainCursors.network, set: { ...values, updatedAt: sql`now()` } });
}
