import { findSimpleOrder, lockSimpleOrder, transitionSimpleOrder, type SimpleOrderRow } from '../db/queries/simple-orders';
import { writePosting } from '../db/queries/ledger';
import { orderCredited } from '../domain/ledger';
import type { ProvenKind } from './chain-proof-rules';

// A simple order's completion on chain: how its row is read and locked, what the rules see of it,
// and what its settlement writes. The rules themselves are chain-proof-rules.ts, shared with
// checkout sessions (session-chain-proof.ts).

export const orderProof: ProvenKind<SimpleOrderRow, { settled: true }> = {
  kind: 'simple_order',
  find: findSimpleOrder,
  lock: lockSimpleOrder,
  view: (o) => ({
    expectedMicro: o.expectedGrossMicro,
    depositAddress: o.chainDepositAddress,
    network: o.walletNetwork,
    asset: o.walletCurrency,
    phase: o.status === 'settled' ? 'paid' : o.status === 'pending' || o.status === 'processing' ? 'open' : 'ended',
    provider: o.provider,
    providerPaymentId: o.providerPaymentId,
  }),
  async complete(tx, order, proof) {
    const hash = proof.last.transactionHash;
    // Settled = the money is ours, proven; the payout to the customer's wallet is a step of its own
    // (docs/settlement.md), so nothing is dispatched yet. What a payout needs stays on the row: the
    // gross received and the deposit transaction.
    await transitionSimpleOrder(tx, order.transactionCode, 'settled', {
      ...(proof.providerPaymentId ? { providerPaymentId: proof.providerPaymentId } : {}),
      receivedMicro: proof.grossMicro,
      depositTransactionHash: hash,
      // The inbound transfer's until the payout to the customer is broadcast, then the payout's.
      transactionHash: hash,
      explorerUrl: proof.explorerUrl,
      payoutDispatched: false,
      settledAt: proof.completedAt,
    });
    // The deposit address holds G, all of it owed to the customer (the simple API takes no commission).
    const depositAddress = order.chainDepositAddress ?? proof.last.toAddress;
    await writePosting(
      tx,
      orderCredited({
        transactionCode: order.transactionCode,
        depositAddress,
        asset: order.walletCurrency,
        network: order.walletNetwork,
        txHash: hash,
        grossMicro: proof.grossMicro,
      }),
    );
    return { completed: true, result: { settled: true } };
  },
};
