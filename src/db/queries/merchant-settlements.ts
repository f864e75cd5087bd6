import { and, desc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { balanceAccount } from '../../domain/balances';
import type { PaymentListPosition } from '../../domain/payment-list';
import type { DatabaseOrTransaction } from '../client';
import { checkoutSessions, ledgerEntries, payoutItems, payouts } from '../schema';

// What the merchant API reads of a merchant's settlement (docs/settlement.md): their balances in the
// ledger and the payouts to their wallets. Every query is bound to one merchant id, which is the
// caller's key's: no id given in a request reaches another merchant's rows.

/** One of the merchant's balance accounts in one network and asset: the ledger's sum, debit positive. */
export interface BalanceLine {
  network: string;
  asset: string;
  account: string;
  total: bigint;
}

/**
 * The sums of the merchant's balance accounts, per network, asset and account. Exact account names,
 * never a LIKE pattern: the merchant id's underscore would match any character there.
 */
export async function merchantBalanceLines(db: DatabaseOrTransaction, merchantId: string): Promise<BalanceLine[]> {
  const accounts = [
    balanceAccount.pending(merchantId),
    balanceAccount.available(merchantId),
    balanceAccount.reserved(merchantId),
    balanceAccount.outgoing(merchantId),
  ];
  const rows = await db
    .select({
      network: ledgerEntries.network,
      asset: ledgerEntries.asset,
      account: ledgerEntries.account,
      total: sql<string>`sum(${ledgerEntries.amount})::text`,
    })
    .from(ledgerEntries)
    .where(inArray(ledgerEntries.account, accounts))
    .groupBy(ledgerEntries.network, ledgerEntries.asset, ledgerEntries.account)
    .orderBy(ledgerEntries.network, ledgerEntries.asset);
  return rows.map((r) => ({ ...r, total: BigInt(r.total) }));
}

/** A merchant payout as the merchant reads it, with the payments it pays. */
export interface SettlementRow {
  id: string;
  status: 'planned' | 'signed' | 'broadcast' | 'confirmed' | 'failed';
  network: string;
  asset: string;
  toAddress: string;
  amountMicro: bigint;
  txHash: string | null;
  createdAt: Date;
  confirmedAt: Date | null;
  /** created_at to the microsecond, for the next page's cursor (domain/payment-list.ts). */
  position: string;
  payments: { paymentId: string; amountMicro: bigint }[];
}

/**
 * The merchant payouts that pay `merchantId`'s payments, in both shapes the table holds: a settlement
 * run's (payment_id is the row's own id, the payments in payout_items) and, from before settlement
 * runs, one per payment (payment_id is the session's). Read from checkout_sessions_merchant_idx, then the payouts' and items' payment indexes.
 */
export const ownedBy = (merchantId: string): SQL => sql`${payouts.id} in (
  select p.id from checkout_sessions s join payouts p on p.payment_id = s.id and p.kind = 'merchant'
   where s.merchant_id = ${merchantId}
  union
  select i.payout_id from checkout_sessions s join payout_items i on i.payment_id = s.id
   where s.merchant_id = ${merchantId})`;

const listPosition = sql<string>`to_char(${payouts.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const settlementColumns = {
  id: payouts.id,
  paymentId: payouts.paymentId,
  status: payouts.status,
  network: payouts.network,
  asset: payouts.asset,
  toAddress: payouts.toAddress,
  amount: payouts.amount,
  txHash: payouts.txHash,
  createdAt: payouts.createdAt,
  confirmedAt: payouts.confirmedAt,
  position: listPosition,
};

/** A selected payout before its payments are read: `amount` is numeric's text. */
type SelectedPayout = Omit<SettlementRow, 'amountMicro' | 'payments'> & { paymentId: string; amount: string };

/** The payments of each payout, only the merchant's: a settlement run's payout's items, or the one payment of a payout made before settlement runs. */
async function withPayments(db: DatabaseOrTransaction, merchantId: string, rows: SelectedPayout[]): Promise<SettlementRow[]> {
  const batched = rows.filter((r) => r.paymentId === r.id).map((r) => r.id);
  const items = batched.length
    ? await db
        .select({ payoutId: payoutItems.payoutId, paymentId: payoutItems.paymentId, amount: payoutItems.amount })
        .from(payoutItems)
        .innerJoin(checkoutSessions, eq(checkoutSessions.id, payoutItems.paymentId))
        .where(and(inArray(payoutItems.payoutId, batched), eq(checkoutSessions.merchantId, merchantId)))
        .orderBy(payoutItems.paymentId)
    : [];
  return rows.map(({ paymentId, amount, ...r }) => ({
    ...r,
    amountMicro: BigInt(amount),
    payments:
      paymentId === r.id
        ? items.filter((i) => i.payoutId === r.id).map((i) => ({ paymentId: i.paymentId, amountMicro: BigInt(i.amount) }))
        : [{ paymentId, amountMicro: BigInt(amount) }],
  }));
}

/**
 * The merchant's settlements, newest first, keyset-paged on (created_at, id) as the session list is:
 * rows written while the merchant pages never shift or repeat one.
 */
export async function listMerchantSettlements(
  db: DatabaseOrTransaction,
  input: { merchantId: string; after?: PaymentListPosition | undefined; limit: number },
): Promise<SettlementRow[]> {
  const where = [eq(payouts.kind, 'merchant'), ownedBy(input.merchantId)];
  if (input.after) where.push(sql`(${payouts.createdAt}, ${payouts.id}) < (${input.after.at}::timestamptz, ${input.after.id})`);
  const rows = await db
    .select(settlementColumns)
    .from(payouts)
    .where(and(...where))
    .orderBy(desc(payouts.createdAt), desc(payouts.id))
    .limit(input.limit);
  return withPayments(db, input.merchantId, rows);
}

/** Where the merchant's settlement stands in the list; undefined when it is not one of theirs. */
export async function findMerchantSettlementPosition(
  db: DatabaseOrTransaction,
  merchantId: string,
  id: string,
): Promise<string | undefined> {
  const [row] = await db
    .select({ position: listPosition })
    .from(payouts)
    .where(and(eq(payouts.id, id), eq(payouts.kind, 'merchant'), ownedBy(merchantId)));
  return row?.position;
}

/** One of the merchant's settlements by its payout id. */
export async function findMerchantSettlement(
  db: DatabaseOrTransaction,
  merchantId: string,
  id: string,
): Promise<SettlementRow | undefined> {
  const rows = await db
    .select(settlementColumns)
    .from(payouts)
    .where(and(eq(payouts.id, id), eq(payouts.kind, 'merchant'), ownedBy(merchantId)));
  return (await withPayments(db, merchantId, rows))[0];
}

/**
 * The settlement that pays one of the merchant's payments: the live (not failed) merchant payout
 * naming it, as its own payment or among its items. A payment's share is in at most one live payout;
 * should two ever be, the newer answers.
 */
export async function findPaymentSettlement(
  db: DatabaseOrTransaction,
  merchantId: string,
  paymentId: string,
): Promise<SettlementRow | undefined> {
  const rows = await db
    .select(settlementColumns)
    .from(payouts)
    .where(
      and(
        eq(payouts.kind, 'merchant'),
        ne(payouts.status, 'failed'),
        sql`(${payouts.paymentId} = ${paymentId} or ${payouts.id} in (select payout_id from payout_items where payment_id = ${paymentId}))`,
        sql`exists (select 1 from checkout_sessions s where s.id = ${paymentId} and s.merchant_id = ${merchantId})`,
      ),
    )
    .orderBy(desc(payouts.createdAt), desc(payouts.id))
    .limit(1);
  return (await withPayments(db, merchantId, rows))[0];
}
