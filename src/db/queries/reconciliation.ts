import { sql } from 'drizzle-orm';
import type { DatabaseOrTransaction } from '../client';

export interface TransactionLedgerRow {
  paymentId: string;
  grossMicro: string | null;
  /** The deposit line of the payment's completion posting, null when none was written. */
  postedMicro: string | null;
  transactionHash: string | null;
  /** The confirmed merchant payout's hash (its own, or the batch's that pays it), null while there is none. */
  payoutHash: string | null;
}

/** Every completed chain-verified transaction beside what the ledger and the payouts say of it. */
export async function transactionsBesideLedger(db: DatabaseOrTransaction): Promise<TransactionLedgerRow[]> {
  const rows = await db.execute<{
    payment_id: string;
    gross_micro: string | null;
    posted: string | null;
    transaction_hash: string | null;
    payout_hash: string | null;
  }>(sql`
    select t.payment_id, t.gross_micro::text,
      (select sum(l.amount)::text from ledger_entries l where l.posting_id = 'completion:' || t.payment_id and l.account like 'deposit:%') as posted,
      t.transaction_hash,
      coalesce(
        (select p.tx_hash from payouts p where p.payment_id = t.payment_id and p.kind = 'merchant' and p.status = 'confirmed'),
        -- Batched settlement: the merchant payout that names the payment among its items.
        (select p.tx_hash from payout_items i join payouts p on p.id = i.payout_id
          where i.payment_id = t.payment_id and p.kind = 'merchant' and p.status = 'confirmed')
      ) as payout_hash
    from transactions t join checkout_sessions s on s.id = t.payment_id
    where t.status = 'completed' and s.verification = 'chain'
    order by t.payment_id`);
  return rows.map((r) => ({
    paymentId: r.payment_id,
    grossMicro: r.gross_micro,
    postedMicro: r.posted,
    transactionHash: r.transaction_hash,
    payoutHash: r.payout_hash,
  }));
}
