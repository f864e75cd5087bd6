import { sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';
import { balanceAccount, merchantBalance, outgoingPlanned, refundDraw, type MerchantBalance } from '../../domain/balances';
import { AppError } from '../../domain/errors';
import { writePostings } from './ledger';

// A merchant's balances as the ledger holds them (domain/balances.ts), and a refund's draw on them.

/** The ledger balance (debit positive) of `account` in one network and asset. */
export async function accountBalance(tx: DatabaseOrTransaction, account: string, network: string, asset: string): Promise<bigint> {
  const [row] = await tx.execute<{ total: string | null }>(
    sql`select sum(amount) as total from ledger_entries where account = ${account} and network = ${network} and asset = ${asset}`,
  );
  return BigInt(row?.total ?? 0);
}

/** A merchant's balance in one network and asset (domain/balances.ts), from the ledger. */
export async function merchantBalanceOf(
  tx: DatabaseOrTransaction,
  merchantId: string,
  network: string,
  asset: string,
): Promise<MerchantBalance> {
  return balanceFromTotals(merchantId, await tx.execute<AccountTotal>(merchantBalanceSql(merchantId, network, asset)));
}

/** One row per account of the merchant's that has lines in `network` and `asset`: its total. */
export function merchantBalanceSql(merchantId: string, network: string, asset: string) {
  // Exact account names: a LIKE pattern's underscore would match any character of the id.
  const accounts = Object.values(balanceAccount)
    .filter((account) => typeof account === 'function')
    .map((account) => account(merchantId));
  return sql`
    select account, sum(amount)::text as total from ledger_entries
     where account in (${sql.join(
       accounts.map((a) => sql`${a}`),
       sql`, `,
     )})
       and network = ${network} and asset = ${asset}
     group by account`;
}

export interface AccountTotal extends Record<string, unknown> {
  account: string | null;
  total: string | null;
}

/** The balance from merchantBalanceSql's rows (an account without lines holds 0). */
export function balanceFromTotals(merchantId: string, rows: readonly AccountTotal[]): MerchantBalance {
  const totals = new Map(rows.flatMap((r) => (r.account && r.total !== null ? [[r.account, BigInt(r.total)] as const] : [])));
  return merchantBalance(merchantId, (account) => totals.get(account) ?? 0n);
}

/** What a refund's live draw took (its latest `outgoing:` posting not failed back), and that draw's id. */
export async function refundDrawOf(
  tx: DatabaseOrTransaction,
  refundId: string,
): Promise<{ outgoingId: string; fromAvailable: bigint; fromReserved: bigint } | null> {
  const rows = await tx.execute<{ posting_id: string; account: string; amount: string }>(sql`
    select posting_id, account, amount::text from ledger_entries
     where posting_id like ${`outgoing:${refundId}%`} order by id`);
  const planned = [...new Set(rows.map((r) => r.posting_id))].filter((id) => !id.endsWith(':failed') && !id.endsWith(':confirmed'));
  const live = planned.find((id) => !rows.some((r) => r.posting_id === `${id}:failed`));
  if (!live) return null;
  const line = (suffix: string) => rows.find((r) => r.posting_id === live && r.account.endsWith(suffix));
  return {
    outgoingId: live.slice('outgoing:'.length),
    fromAvailable: BigInt(line(':available')?.amount ?? 0),
    fromReserved: BigInt(line(':reserved')?.amount ?? 0),
  };
}

/** The id of a refund's next draw: its own id first, then `#2`, `#3`… after each one failed back. */
export async function nextRefundDrawId(tx: DatabaseOrTransaction, refundId: string): Promise<string> {
  const [row] = await tx.execute<{ n: number }>(
    sql`select count(distinct posting_id)::int as n from ledger_entries where posting_id like ${`outgoing:${refundId}%:failed`}`,
  );
  const failed = row?.n ?? 0;
  return failed === 0 ? refundId : `${refundId}#${failed + 1}`;
}

/**
 * A refund drawn on the merchant's balance: `available` first, then `reserved`, into `outgoing`
 * (domain/balances.ts refundDraw). More than both hold is 409 InsufficientBalance, naming what they
 * hold: the platform's own money never pays a merchant's refund. The caller holds the merchant's lock.
 */
export async function drawForRefund(
  tx: DatabaseOrTransaction,
  input: { merchantId: string; network: string; asset: string; refundId: string; paymentId: string; requestedMicro: bigint },
): Promise<void> {
  const balance = await merchantBalanceOf(tx, input.merchantId, input.network, input.asset);
  const draw = refundDraw({
    asset: input.asset,
    availableMicro: balance.available,
    reservedMicro: balance.reserved,
    requestedMicro: input.requestedMicro,
  });
  if (!draw.ok) throw new AppError('InsufficientBalance', draw.message);
  const outgoingId = await nextRefundDrawId(tx, input.refundId);
  await writePostings(tx, [outgoingPlanned({ ...input, outgoingId, fromAvailable: draw.fromAvailable, fromReserved: draw.fromReserved })]);
}
