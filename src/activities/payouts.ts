import { ApplicationFailure } from '@temporalio/activity';
import type { Address, Hash, Hex } from 'viem';
import { broadcastSigned, gasTermsFor, minedNonce, pendingNonce, receiptOf, signTransfer, type GasTerms } from '../chains/payouts';
import type { ChainSettings } from '../config';
import type { Database } from '../db/client';
import { findSession } from '../db/queries/checkout-sessions';
import { writePosting } from '../db/queries/ledger';
import { resolvePaymentException } from '../db/queries/payment-exceptions';
import { updateSimpleOrder } from '../db/queries/simple-orders';
import { allocateNonce, findPayout, lockPayout, updatePayout, type PayoutRow } from '../db/queries/payouts';
import { setPayoutReference } from '../db/queries/transactions';
import { explorerUrlFor } from '../domain/deposit-fact';
import { payoutConfirmed } from '../domain/ledger';
import { parseEvmAddress } from '../chains/addresses';
import { payoutChains, payoutImpossible } from './payout-chains';
import { planOrderPayouts, planSessionPayouts } from './payout-plan';
import { planExceptionRefund, type RefundPlan } from './refund-plan';

// Decisions §11 "Payout": each step one idempotent activity, its outcome in Postgres before the next.
// plan (rows) -> sign (nonce + raw tx stored in one database transaction) -> broadcast (the stored
// bytes, again on every retry) -> confirm (the receipt decides; ledger and lookup in one transaction).

/** How long one confirm attempt watches for the receipt before it lets Temporal retry it. */
const CONFIRM_WATCH_MS = 8_000;
const POLL_MS = 250;

export interface PayoutResult {
  kind: PayoutRow['kind'];
  status: 'confirmed';
  txHash: string;
}

const missing = (id: string) => payoutImpossible(`no payout ${id}`);
const termsOf = (p: PayoutRow): GasTerms | null =>
  p.gasLimit && p.maxFeePerGas && p.maxPriorityFeePerGas
    ? { gasLimit: BigInt(p.gasLimit), maxFeePerGas: BigInt(p.maxFeePerGas), maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas) }
    : null;

export function createPayoutActivities({ db, chains: settings }: { db: Database; chains: ChainSettings }) {
  const chains = payoutChains(settings);

  /** Signs (or, with `replacing`, signs anew after another transaction took the nonce) and stores it. */
  async function sign(id: string, replacing: string | null): Promise<PayoutRow> {
    const before = await findPayout(db, id);
    if (!before) throw missing(id);
    if (before.signedTx && before.txHash !== replacing) return before;
    const client = chains.client(before.network);
    const account = await chains.signerOf(db, before);
    const order = { token: (before.token as Address | null) ?? null, to: before.toAddress as Address, amount: BigInt(before.amount) };
    const terms = termsOf(before) ?? (await gasTermsFor(client, account.address, order));
    const chainNext = await pendingNonce(client, account.address);
    return db.transaction(async (tx) => {
      const row = await lockPayout(tx, id);
      if (!row) throw missing(id);
      if (row.signedTx && row.txHash !== replacing) return row;
      const nonce = await allocateNonce(tx, { network: row.network, sender: row.fromAddress, chainNext });
      const signed = await signTransfer(client, account, order, terms, nonce);
      const changes = {
        nonce,
        signedTx: signed.signedTx,
        txHash: signed.txHash.toLowerCase(),
        gasLimit: terms.gasLimit.toString(),
        maxFeePerGas: terms.maxFeePerGas.toString(),
        maxPriorityFeePerGas: terms.maxPriorityFeePerGas.toString(),
        status: 'signed' as const,
        signedAt: new Date(),
        ...(replacing ? { replacedHashes: [...row.replacedHashes, replacing] } : {}),
      };
      await updatePayout(tx, id, changes);
      return { ...row, ...changes };
    });
  }

  /** Sends the stored bytes; a used nonce is ours (mined) or, once the chain has passed it without us, someone else's. */
  async function broadcast(row: PayoutRow): Promise<PayoutRow> {
    const client = chains.client(row.network);
    let current = row;
    for (;;) {
      const outcome = await broadcastSigned(client, current.signedTx as Hex);
      if (outcome !== 'nonce-used' || (await receiptOf(client, current.txHash as Hash))) break;
      // No receipt, and the mined count is past our nonce: ours can never be mined. Sign anew.
      if ((await minedNonce(client, current.fromAddress as Address)) <= current.nonce!) {
        throw ApplicationFailure.retryable(`nonce ${current.nonce} of ${current.fromAddress} is taken by a pending transaction`, 'PayoutNonceBusy');
      }
      current = await sign(current.id, current.txHash);
    }
    if (current.status === 'signed') {
      await updatePayout(db, current.id, { status: 'broadcast', broadcastAt: new Date() });
      current = { ...current, status: 'broadcast' };
    }
    // Decisions §11: a simple order's payout is dispatched once its transfer is broadcast; the order
    // then names the payout's transaction (a retry after a re-signing names the new one).
    if (current.kind === 'customer') {
      await updateSimpleOrder(db, current.paymentId, { payoutDispatched: true, transactionHash: current.txHash, explorerUrl: explorerUrlFor(current.network, current.txHash!) });
    }
    return current;
  }

  async function confirm(row: PayoutRow, receipt: { blockNumber: bigint; feeWei: bigint }): Promise<void> {
    const session = await findSession(db, row.paymentId);
    await db.transaction(async (tx) => {
      const locked = await lockPayout(tx, row.id);
      if (!locked || locked.status === 'confirmed' || locked.txHash !== row.txHash) return;
      await updatePayout(tx, row.id, { status: 'confirmed', blockNumber: receipt.blockNumber.toString(), feeWei: receipt.feeWei.toString(), confirmedAt: new Date() });
      const confirmed = { ...locked, merchantId: session?.merchantId ?? '', amount: BigInt(locked.amount), txHash: locked.txHash!, feeWei: receipt.feeWei };
      for (const posting of payoutConfirmed(confirmed, chains.treasury())) await writePosting(tx, posting);
      if (row.kind === 'merchant') await setPayoutReference(tx, row.paymentId, { transactionHash: locked.txHash!, explorerUrl: explorerUrlFor(row.network, locked.txHash!) });
      // The money is back with the customer: the exception is resolved with the transfer that did it.
      if (row.kind === 'refund' && locked.exceptionId) await resolvePaymentException(tx, locked.exceptionId, 'refunded');
    });
  }

  return {
    async planPayouts(paymentId: string): Promise<string[]> {
      return planSessionPayouts(db, chains, paymentId);
    },

    /** A settled chain-verified simple order's payout to the customer's wallet, planned once. */
    async planOrderPayouts(code: string): Promise<string[]> {
      return planOrderPayouts(db, chains, code);
    },

    /** An exception's money back to `address` (EIP-55, checked by the caller and again here), planned once. */
    async planRefund(exceptionId: string, address: string): Promise<RefundPlan> {
      const to = parseEvmAddress(address);
      if (!to) throw payoutImpossible(`${address} is not an EVM address`);
      return planExceptionRefund(db, chains, exceptionId, to);
    },

    async signPayout(id: string): Promise<void> {
      await sign(id, null);
    },

    async broadcastPayout(id: string): Promise<void> {
      const row = await findPayout(db, id);
      if (!row) throw missing(id);
      if (row.status === 'signed' || row.status === 'broadcast') await broadcast(row);
    },

    /**
     * The receipt decides: confirmed once it has the network's confirmations (ledger postings and,
     * for the merchant's payout, the transaction's hash in the same database transaction); reverted
     * is a failure surfaced to the workflow, never retried. No receipt yet: the stored bytes are sent
     * again (a node may have dropped them) and Temporal retries the watch.
     */
    async confirmPayout(id: string): Promise<PayoutResult> {
      let row = await findPayout(db, id);
      if (!row || !row.txHash) throw missing(id);
      if (row.status === 'failed') throw ApplicationFailure.nonRetryable(`payout ${id} failed: ${row.failureReason}`, 'PayoutReverted');
      const client = chains.client(row.network);
      const deadline = Date.now() + CONFIRM_WATCH_MS;
      let resent = false;
      while (row.status !== 'confirmed') {
        const receipt = await receiptOf(client, row.txHash as Hash);
        if (receipt?.status === 'reverted') {
          await updatePayout(db, id, { status: 'failed', failureReason: `reverted in block ${receipt.blockNumber}`, blockNumber: receipt.blockNumber.toString(), feeWei: receipt.feeWei.toString() });
          throw ApplicationFailure.nonRetryable(`payout ${id} (${row.txHash}) reverted`, 'PayoutReverted');
        }
        if (receipt && receipt.confirmations >= BigInt(client.confirmations)) {
          await confirm(row, receipt);
          row = (await findPayout(db, id))!;
          break;
        }
        if (!receipt && !resent) {
          row = await broadcast(row);
          resent = true;
        }
        if (Date.now() > deadline) throw ApplicationFailure.retryable(`payout ${id} not confirmed yet`, 'PayoutPending');
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      return { kind: row.kind, status: 'confirmed', txHash: row.txHash! };
    },
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
