import { ApplicationFailure } from '@temporalio/activity';
import type { Address, Hash, Hex, LocalAccount } from 'viem';
import { broadcastSigned, gasTermsFor, minedNonce, pendingNonce, receiptOf, signTransfer, type GasTerms } from '../chains/payouts';
import type { ChainSettings } from '../config';
import type { Database } from '../db/client';
import { silentBusinessLog, type BusinessEventName, type BusinessLog } from '../logging';
import { formatCrypto } from '../domain/money';
import { findSession } from '../db/queries/checkout-sessions';
import { updateSimpleOrder } from '../db/queries/simple-orders';
import { markPayoutBroadcast, nextFreeNonce, NonceTaken, storeSignedPayout } from '../db/queries/payout-signing';
import { findPayout, type PayoutRow } from '../db/queries/payouts';
import { explorerUrlFor } from '../domain/explorers';
import { isSettlementPayout } from '../domain/ledger';
import { payoutChains } from './payout-chains';
import { missingPayout, payoutConfirmation } from './payout-confirmation';
import { givenUp } from './payout-failures';
import { listPayoutItems } from '../db/queries/settlement-payouts';

/** Nonces a signature may lose to other payouts of its sender before the attempt is retried. */
const NONCE_ATTEMPTS = 20;

const termsOf = (p: PayoutRow): GasTerms | null =>
  p.gasLimit && p.maxFeePerGas && p.maxPriorityFeePerGas
    ? { gasLimit: BigInt(p.gasLimit), maxFeePerGas: BigInt(p.maxFeePerGas), maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas) }
    : null;

/**
 * What a batch's payouts share, looked up once per batch: the merchant their postings name (none
 * for a simple order's or a settlement run's), and the signer of their sender (the treasury).
 */
export interface BatchLookups {
  merchantOf(paymentId: string): Promise<string>;
  signerOf(payout: PayoutRow): Promise<LocalAccount>;
  /** The payments a settlement row carries (payout_items), with their merchants: read once per row. */
  itemsOf(payout: PayoutRow): ReturnType<typeof listPayoutItems>;
}

/** A payout's business event (payoutSteps' logPayout), with the extra fields of its step. */
export type PayoutLogger = (
  event: BusinessEventName,
  row: PayoutRow,
  lookups: BatchLookups,
  extra?: Record<string, unknown>,
) => Promise<void>;

/**
 * The steps of a payout (sign, broadcast, confirm, mark reverted), each deciding from the stored row:
 * the activities of payouts.ts run them for a workflow, and the watcher's reorg re-check
 * (watchers/reorg-watch.ts) runs the same broadcast for a payout whose block left the chain.
 */
export function payoutSteps({ db, chains: settings, log = silentBusinessLog }: { db: Database; chains: ChainSettings; log?: BusinessLog }) {
  const chains = payoutChains(settings);

  /**
   * A payout's business event; a simple order's has no merchant (merchantOf answers ''). A settlement
   * run's sweep or payout tells each payment's story: a line per payment it carries, with that
   * payment's part, so that an operator following one payment finds its sweep and its payout.
   */
  async function logPayout(event: BusinessEventName, row: PayoutRow, lookups: BatchLookups, extra: Record<string, unknown> = {}) {
    const common = {
      payoutId: row.id,
      kind: row.kind,
      network: row.network,
      asset: row.asset,
      to: row.toAddress,
      transactionHash: row.txHash,
      ...extra,
    };
    const parts = isSettlementPayout(row)
      ? (await lookups.itemsOf(row)).map((i) => ({
          paymentId: i.paymentId,
          merchantId: i.merchantId,
          amount: i.amountMicro,
          payoutAmount: BigInt(row.amount),
        }))
      : [
          {
            paymentId: row.paymentId,
            merchantId: (await lookups.merchantOf(row.paymentId)) || null,
            amount: BigInt(row.amount),
            payoutAmount: null,
          },
        ];
    for (const part of parts)
      log(event, {
        paymentId: part.paymentId,
        merchantId: part.merchantId,
        amount: formatCrypto(part.amount),
        ...(part.payoutAmount === null ? {} : { payoutAmount: formatCrypto(part.payoutAmount) }),
        ...common,
      });
  }

  function batchLookups(): BatchLookups {
    const merchants = new Map<string, Promise<string>>();
    const signers = new Map<string, Promise<LocalAccount>>();
    const items = new Map<string, ReturnType<typeof listPayoutItems>>();
    const once = <T>(known: Map<string, Promise<T>>, key: string, find: () => Promise<T>) => {
      let found = known.get(key);
      if (!found) known.set(key, (found = find()));
      return found;
    };
    return {
      merchantOf: (paymentId) => once(merchants, paymentId, () => findSession(db, paymentId).then((session) => session?.merchantId ?? '')),
      signerOf: (payout) => once(signers, payout.fromAddress, async () => chains.signerOf(payout)),
      itemsOf: (payout) => once(items, payout.id, () => listPayoutItems(db, payout.id)),
    };
  }

  /**
   * Signs (or, with `replacing`, signs anew after another transaction took the nonce) and stores it.
   * `known` is the row as this attempt read it (its terms, sender and amount never change); whether
   * it still needs a signature is decided by the statement that stores it.
   */
  async function sign(id: string, replacing: string | null, lookups: BatchLookups, known?: PayoutRow): Promise<PayoutRow> {
    const before = known ?? (await findPayout(db, id));
    if (!before) throw missingPayout(id);
    if (before.signedTx && before.txHash !== replacing) return before;
    const client = chains.client(before.network);
    const account = await lookups.signerOf(before);
    const order = {
      token: (before.token as Address | null) ?? null,
      to: before.toAddress as Address,
      amount: BigInt(before.amount),
      data: before.callData as Hex | null,
    };
    const terms = termsOf(before) ?? (await gasTermsFor(client, account.address, order));
    const chainNext = await pendingNonce(client, account.address);
    // The next free nonce read, the transfer signed with it, and the row stored with it only
    // if it still needs a signature (storeSignedPayout). Another payout of the sender that stored the
    // same nonce first wins it; this one reads the next and signs again. Each loss is another
    // payout's success, so the bound is reached only under a crowd of concurrent signers, and the
    // attempt is retried.
    let stored: PayoutRow | undefined;
    for (let attempt = 1; ; attempt++) {
      const nonce = await nextFreeNonce(db, { network: before.network, sender: before.fromAddress, chainNext });
      const signed = await signTransfer(client, account, order, terms, nonce);
      try {
        stored = await storeSignedPayout(db, {
          id,
          replacing,
          nonce,
          changes: {
            signedTx: signed.signedTx,
            txHash: signed.txHash.toLowerCase(),
            gasLimit: terms.gasLimit.toString(),
            maxFeePerGas: terms.maxFeePerGas.toString(),
            maxPriorityFeePerGas: terms.maxPriorityFeePerGas.toString(),
            signedAt: new Date(),
          },
        });
        break;
      } catch (err) {
        if (!(err instanceof NonceTaken)) throw err;
        if (attempt >= NONCE_ATTEMPTS)
          throw ApplicationFailure.retryable(
            `${NONCE_ATTEMPTS} nonces of ${before.fromAddress} taken while signing ${id}`,
            'PayoutNonceBusy',
          );
      }
    }
    if (stored) return stored;
    const row = await findPayout(db, id);
    if (!row) throw missingPayout(id);
    // A failed payout is signed again only after an operator's retry reopened it (reopenFailedSettlement).
    if (row.status === 'failed') throw givenUp(`${id} is failed: ${row.failureReason}`);
    return row;
  }

  /** Sends the stored bytes; a used nonce is ours (mined) or, once the chain has passed it without us, someone else's. */
  async function broadcast(row: PayoutRow, lookups: BatchLookups): Promise<PayoutRow> {
    const client = chains.client(row.network);
    let current = row;
    for (;;) {
      const outcome = await broadcastSigned(client, current.signedTx as Hex);
      if (outcome !== 'nonce-used' || (await receiptOf(client, current.txHash as Hash))) break;
      // No receipt, and the mined count is past our nonce: ours can never be mined. Sign anew.
      if ((await minedNonce(client, current.fromAddress as Address)) <= current.nonce!) {
        throw ApplicationFailure.retryable(
          `nonce ${current.nonce} of ${current.fromAddress} is taken by a pending transaction`,
          'PayoutNonceBusy',
        );
      }
      current = await sign(current.id, current.txHash, lookups);
    }
    if (current.status === 'signed') {
      await markPayoutBroadcast(db, current.id, new Date());
      current = { ...current, status: 'broadcast' };
      await logPayout('payout.sent', current, lookups, { nonce: current.nonce });
    }
    // A simple order's payout is dispatched once its transfer is broadcast; the order
    // then names the payout's transaction (a retry after a re-signing names the new one).
    if (current.kind === 'customer') {
      await updateSimpleOrder(db, current.paymentId, {
        payoutDispatched: true,
        transactionHash: current.txHash,
        explorerUrl: explorerUrlFor(current.network, current.txHash!),
      });
    }
    return current;
  }
  const { confirm, markReverted } = payoutConfirmation({ db, chains, logPayout });

  return { chains, batchLookups, sign, broadcast, confirm, markReverted, logPayout };
}
