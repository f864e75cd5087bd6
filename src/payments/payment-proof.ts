import type { Address } from 'viem';
import { createChainClient, tokenBalance, type ChainClient } from '../chains/clients';
import { confirmationsOf } from '../chains/transfer-logs';
import type { ChainNetworkConfig } from '../config';
import { listCreditHistory, totalOf } from '../db/queries/chain-credits';
import { findSession } from '../db/queries/checkout-sessions';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { AppError, notFound } from '../domain/errors';
import { isCanonicalPaymentId, isTransactionCode } from '../domain/ids';
import { formatCrypto } from '../domain/money';
import type { PaymentContext } from './context';
import { verifierFor } from './deposits';

// An operator's look at what proves a payment: its deposit address, the token's
// balance there on chain now, and every log credited to it with its confirmations at today's head.
// Read from Postgres and the chain, never from a workflow, so it answers whatever the workers do.

export interface PaymentProof {
  paymentId: string;
  kind: 'checkout_session' | 'simple_order';
  status: string;
  verification: 'chain' | 'provider';
  network: string;
  asset: string;
  depositAddress: string | null;
  /** G, 6 decimals, once fixed. */
  expectedGross: string | null;
  /** Sum of the logs credited now. */
  credited: string;
  chain: { chainId: number; token: string; head: string; confirmationsRequired: number; balance: string } | null;
  /** Why `chain` is null for a chain-verified payment (the RPC did not answer). */
  chainError: string | null;
  /** Every log recorded at the address; `state` says whether it counts (`credited`) or is a wrong asset, dust or removed. `token` is the contract that sent it. */
  credits: {
    transactionHash: string;
    logIndex: number;
    token: string;
    asset: string | null;
    amount: string;
    blockNumber: string;
    confirmations: string | null;
    state: string;
  }[];
}

const clients = new Map<string, ChainClient>();
function clientFor(endpoint: ChainNetworkConfig): ChainClient {
  const key = `${endpoint.network}:${endpoint.rpcUrl}`;
  let client = clients.get(key);
  if (!client) clients.set(key, (client = createChainClient(endpoint)));
  return client;
}

async function findProvable(ctx: PaymentContext, id: string) {
  if (isTransactionCode(id)) {
    const o = await findSimpleOrder(ctx.db, id.toLowerCase());
    return (
      o && {
        kind: 'simple_order' as const,
        id: o.transactionCode,
        status: o.status,
        verification: o.verification,
        network: o.walletNetwork,
        asset: o.walletCurrency,
        depositAddress: o.chainDepositAddress,
        expected: o.expectedGrossMicro,
      }
    );
  }
  if (!isCanonicalPaymentId(id))
    throw new AppError('InvalidId', "The id must be a checkout session id (SV_…) or a simple order's transaction code.");
  const s = await findSession(ctx.db, id);
  return (
    s && {
      kind: 'checkout_session' as const,
      id: s.id,
      status: s.status,
      verification: s.verification,
      network: s.network,
      asset: s.destinationAsset,
      depositAddress: s.depositAddress,
      expected: s.expectedGrossMicro,
    }
  );
}

export async function paymentProof(ctx: PaymentContext, id: string): Promise<PaymentProof> {
  const payment = await findProvable(ctx, id);
  if (!payment) throw notFound('Payment');
  const history = await listCreditHistory(ctx.db, payment.id);
  const endpoint = verifierFor(ctx.config, payment.network, payment.asset);
  const token = endpoint?.tokens[payment.asset as keyof ChainNetworkConfig['tokens']] ?? null;
  let chain: PaymentProof['chain'] = null;
  let chainError: string | null = null;
  if (endpoint && token && payment.depositAddress) {
    try {
      const client = clientFor(endpoint);
      const [head, balance] = await Promise.all([
        client.publicClient.getBlockNumber({ cacheTime: 0 }),
        tokenBalance(client, token, payment.depositAddress as Address),
      ]);
      chain = {
        chainId: endpoint.chainId,
        token,
        head: head.toString(),
        confirmationsRequired: endpoint.confirmations,
        balance: formatCrypto(balance),
      };
    } catch (err) {
      chainError = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    }
  }
  return {
    paymentId: payment.id,
    kind: payment.kind,
    status: payment.status,
    verification: payment.verification,
    network: payment.network,
    asset: payment.asset,
    depositAddress: payment.depositAddress,
    expectedGross: payment.expected === null ? null : formatCrypto(payment.expected),
    credited: formatCrypto(totalOf(history.filter((c) => c.state === 'credited'))),
    chain,
    chainError,
    credits: history.map((c) => ({
      transactionHash: c.transactionHash,
      logIndex: c.logIndex,
      token: c.token,
      asset: c.asset,
      amount: formatCrypto(c.amountMicro),
      blockNumber: c.blockNumber.toString(),
      confirmations: chain ? confirmationsOf(BigInt(chain.head), c.blockNumber).toString() : null,
      state: c.state,
    })),
  };
}
