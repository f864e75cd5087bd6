import { and, eq, gte, isNull, ne, sql } from 'drizzle-orm';
import { violatedUniqueConstraint } from '../../domain/sql-errors';
import type { DatabaseOrTransaction } from '../client';
import { payouts } from '../schema';
import { placeholderValue, preparedFor } from './prepared';
import type { NewPayout, PayoutRow } from './payouts';

// A payout's signature and broadcast: the sender's next free nonce, the signed transaction stored with
// it in one statement, and the row marked sent once its bytes went out.

/** A signed payout's bytes were sent: three times a payment, built once per process (prepared.ts). */
export async function markPayoutBroadcast(db: DatabaseOrTransaction, id: string, at: Date): Promise<void> {
  const query = preparedFor(db, 'mark_payout_broadcast', () =>
    db
      .update(payouts)
      .set({ status: 'broadcast', broadcastAt: placeholderValue('at') })
      .where(eq(payouts.id, sql.placeholder('id')))
      .prepare('mark_payout_broadcast'),
  );
  await query.execute({ id, at });
}

/**
 * The sender's next free nonce. `chainNext` is the chain's pending count: a nonce the
 * chain has already used (another wallet sending from the same key) is never handed out. Above it, a
 * nonce is held only by a signed payout of ours (mined nowhere yet, to be sent or re-sent with its
 * bytes; after a reorg deeper than the confirmations, mined payouts come back to
 * this), and one past the highest such nonce is free: never one in between, which would be taken
 * twice, nor one further, which would wait behind a gap forever.
 *
 * Read without a lock: two signers may read the same nonce, and the payouts' unique (network,
 * sender, nonce) lets only one of them store it (storeSignedPayout); the other reads again.
 * a signature is two statements, where a transaction holding an allocator row's lock while the worker
 * signed was four.
 */
export async function nextFreeNonce(
  db: DatabaseOrTransaction,
  input: { network: string; sender: string; chainNext: number },
): Promise<number> {
  const query = preparedFor(db, 'next_free_nonce', () =>
    db
      .select({ highest: sql<number | null>`max(${payouts.nonce})` })
      .from(payouts)
      .where(
        and(
          eq(payouts.network, sql.placeholder('network')),
          eq(payouts.fromAddress, sql.placeholder('sender')),
          gte(payouts.nonce, sql.placeholder('chainNext')),
        ),
      )
      .prepare('next_free_nonce'),
  );
  const [held] = await query.execute({ network: input.network, sender: input.sender, chainNext: input.chainNext });
  return held?.highest === null || held?.highest === undefined ? input.chainNext : Number(held.highest) + 1;
}

/** Another payout of the sender stored this nonce first (storeSignedPayout): sign again with the next free one. */
export class NonceTaken extends Error {
  constructor(readonly nonce: number) {
    super(`nonce ${nonce} was taken by another payout of its sender`);
  }
}

/** What a signature stores on its payout (storeSignedPayout). */
const SIGNED_FIELDS = ['signedTx', 'txHash', 'gasLimit', 'maxFeePerGas', 'maxPriorityFeePerGas', 'signedAt'] as const;

/**
 * A signed payout stored with its nonce, in one statement, only if the row still needs this signature
 * (not failed; unsigned, or still carrying the transaction it replaces): otherwise nothing is returned.
 * Throws NonceTaken when another payout of the sender stored the nonce first (nextFreeNonce).
 */
export async function storeSignedPayout(
  db: DatabaseOrTransaction,
  input: {
    id: string;
    replacing: string | null;
    nonce: number;
    changes: Pick<NewPayout, (typeof SIGNED_FIELDS)[number]>;
  },
): Promise<PayoutRow | undefined> {
  // Once per signature: built once per process for a first signature and once for a replacement (prepared.ts).
  const replacing = input.replacing !== null;
  const name = replacing ? 'store_signed_payout_replacing' : 'store_signed_payout';
  const query = preparedFor(db, name, () => {
    const changes = Object.fromEntries(SIGNED_FIELDS.map((f) => [f, placeholderValue(f)]));
    return db
      .update(payouts)
      .set({
        ...changes,
        nonce: placeholderValue('nonce'),
        status: 'signed',
        ...(replacing ? { replacedHashes: sql`array_append(${payouts.replacedHashes}, ${sql.placeholder('replacing')}::text)` } : {}),
      })
      .where(
        and(
          eq(payouts.id, sql.placeholder('id')),
          ne(payouts.status, 'failed'),
          replacing ? sql`(${payouts.signedTx} is null or ${payouts.txHash} = ${sql.placeholder('replacing')})` : isNull(payouts.signedTx),
        ),
      )
      .returning()
      .prepare(name);
  });
  try {
    const [row] = await query.execute({
      ...input.changes,
      nonce: input.nonce,
      id: input.id,
      ...(replacing ? { replacing: input.replacing } : {}),
    });
    return row;
  } catch (err) {
    if (violatedUniqueConstraint(err) === 'payouts_sender_nonce_unique') throw new NonceTaken(input.nonce);
    throw err;
  }
}
