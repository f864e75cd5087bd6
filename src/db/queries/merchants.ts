import { desc, eq, sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { merchants, merchantWallets, type MerchantStatus } from '../schema';
import { preparedFor } from './prepared';

export type MerchantRow = typeof merchants.$inferSelect;
export type WalletRow = typeof merchantWallets.$inferSelect;

export async function insertMerchant(
  db: DatabaseOrTransaction,
  input: { id: string; name: string; commissionBps: number; securityCodeHash: string; webhookSecretEncrypted: string },
): Promise<MerchantRow> {
  const [row] = await db.insert(merchants).values(input).returning();
  return row!;
}

export async function findMerchant(db: DatabaseOrTransaction, id: string): Promise<MerchantRow | undefined> {
  return db.query.merchants.findFirst({ where: eq(merchants.id, id) });
}

/** The name a customer sees on the public lookup (prepared: the hosted page polls it). */
export async function findMerchantName(db: DatabaseOrTransaction, id: string): Promise<string | undefined> {
  const query = preparedFor(db, 'find_merchant_name', () =>
    db
      .select({ name: merchants.name })
      .from(merchants)
      .where(eq(merchants.id, sql.placeholder('id')))
      .prepare('find_merchant_name'),
  );
  const [row] = await query.execute({ id });
  return row?.name;
}

/**
 * Locks the merchant row for the rest of the transaction, so status changes and balance moves
 * serialise. FOR NO KEY UPDATE, as an UPDATE of the row itself takes: it waits for other lockers and
 * writers of the row, but not for the foreign-key checks of rows that name the merchant (a checkout
 * session being opened), which FOR UPDATE would hold up for as long as a settlement run plans its
 * payouts.
 */
export async function lockMerchant(db: DatabaseOrTransaction, id: string): Promise<MerchantRow | undefined> {
  const [row] = await db.select().from(merchants).where(eq(merchants.id, id)).for('no key update');
  return row;
}

export async function setMerchantStatus(db: DatabaseOrTransaction, id: string, status: MerchantStatus): Promise<MerchantRow> {
  const [row] = await db
    .update(merchants)
    .set({
      status,
      updatedAt: sql`now()`,
      ...(status === 'approved' ? { approvedAt: sql`coalesce(${merchants.approvedAt}, now())` } : {}),
    })
    .where(eq(merchants.id, id))
    .returning();
  return row!;
}

export async function setSecurityCodeHash(db: DatabaseOrTransaction, id: string, hash: string): Promise<void> {
  await db
    .update(merchants)
    .set({ securityCodeHash: hash, securityCodeRotatedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(merchants.id, id));
}

export async function listWallets(db: DatabaseOrTransaction, merchantId: string): Promise<WalletRow[]> {
  return db.select().from(merchantWallets).where(eq(merchantWallets.merchantId, merchantId));
}

export async function upsertWallet(
  db: DatabaseOrTransaction,
  input: { merchantId: string; asset: string; network: string; address: string },
): Promise<WalletRow> {
  const [row] = await db
    .insert(merchantWallets)
    .values(input)
    .onConflictDoUpdate({
      target: [merchantWallets.merchantId, merchantWallets.asset, merchantWallets.network],
      set: { address: input.address, updatedAt: sql`now()` },
    })
    .returning();
  return row!;
}

export async function listMerchants(db: DatabaseOrTransaction, limit: number): Promise<MerchantRow[]> {
  return db.select().from(merchants).orderBy(desc(merchants.createdAt)).limit(limit);
}

/** A merchant's payout schedule, minimum and reserve target (batched settlement), and a payout asked for now. */
export async function updatePayoutSettings(
  db: DatabaseOrTransaction,
  id: string,
  changes: Partial<Pick<MerchantRow, 'payoutSchedule' | 'payoutMinimumMicro' | 'payoutRequestedAt' | 'reserveTargetMicro'>>,
): Promise<MerchantRow | undefined> {
  const [row] = await db
    .update(merchants)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(merchants.id, id))
    .returning();
  return row;
}
