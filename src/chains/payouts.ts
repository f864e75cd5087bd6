import {
  encodeFunctionData,
  erc20Abi,
  keccak256,
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
} from 'viem';
import type { ChainClient } from './clients';

// Payouts, the chain side (no database): a transfer is signed locally with fixed
// nonce, gas and fees, so the exact bytes can be stored before they are sent and sent again after a
// crash; the node's answer to a resend ("already known", "nonce too low") is settled by the hash's
// receipt, never by sending something new.

export interface TransferOrder {
  /** The token contract, or null for the network's native coin. */
  token: Address | null;
  to: Address;
  /** Token units, or wei for the native coin. */
  amount: bigint;
  /**
   * A contract call instead of a transfer: `to` is the contract (the network's sweeper) and this its
   * calldata, which moves `amount` of `token` itself (a sweep).
   */
  data?: Hex | null;
}

export interface GasTerms {
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface SignedTransfer {
  nonce: number;
  signedTx: Hex;
  /** Lowercase 0x hash of signedTx. */
  txHash: Hash;
}

const NATIVE_TRANSFER_GAS = 21_000n;
/** Headroom over the node's estimate: a token's transfer may cost a little more when it is mined. */
const GAS_MARGIN_PERCENT = 125n;

const callOf = (order: TransferOrder) =>
  order.data
    ? { to: order.to, data: order.data, value: 0n }
    : order.token
      ? {
          to: order.token,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [order.to, order.amount] }),
          value: 0n,
        }
      : { to: order.to, data: undefined, value: order.amount };

/** The chain's fees at one moment, shared by every transfer a plan signs. */
export interface FeeQuote {
  baseFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The latest base fee and the node's priority fee: concurrent calls, so one batched HTTP request. */
export async function feeQuote(client: ChainClient): Promise<FeeQuote> {
  const [block, maxPriorityFeePerGas] = await Promise.all([
    client.publicClient.getBlock({ blockTag: 'latest' }),
    client.publicClient.estimateMaxPriorityFeePerGas(),
  ]);
  // A chain without EIP-1559 has no base fee: its gas price stands in.
  return { baseFeePerGas: block.baseFeePerGas ?? (await client.publicClient.getGasPrice()), maxPriorityFeePerGas };
}

/** Fees that survive a base fee doubling: a stored transaction may be sent again minutes later. */
export const termsUnder = (quote: FeeQuote, gasLimit: bigint): GasTerms => ({
  gasLimit,
  maxFeePerGas: quote.baseFeePerGas * 2n + quote.maxPriorityFeePerGas,
  maxPriorityFeePerGas: quote.maxPriorityFeePerGas,
});

/** The node's gas estimate for a token transfer, with a margin; a native transfer's fixed gas. */
export async function gasLimitFor(client: ChainClient, from: Address, order: TransferOrder): Promise<bigint> {
  if (!order.token && !order.data) return NATIVE_TRANSFER_GAS;
  const call = callOf(order);
  const estimate = await client.publicClient.estimateGas({ account: from, to: call.to, data: call.data, value: call.value });
  return (estimate * GAS_MARGIN_PERCENT) / 100n;
}

/** Gas and fees for one transfer on its own (a plan with several takes one quote for all). */
export async function gasTermsFor(client: ChainClient, from: Address, order: TransferOrder): Promise<GasTerms> {
  const [gasLimit, quote] = await Promise.all([gasLimitFor(client, from, order), feeQuote(client)]);
  return termsUnder(quote, gasLimit);
}

/** The count of the sender's transactions the node knows, mined or pending: the next free nonce. */
export const pendingNonce = (client: ChainClient, sender: Address) =>
  client.publicClient.getTransactionCount({ address: sender, blockTag: 'pending' });

/** The count of the sender's mined transactions: every nonce below it is used for good. */
export const minedNonce = (client: ChainClient, sender: Address) =>
  client.publicClient.getTransactionCount({ address: sender, blockTag: 'latest' });

/** Signs locally; nothing is sent. */
export async function signTransfer(
  client: ChainClient,
  account: LocalAccount,
  order: TransferOrder,
  terms: GasTerms,
  nonce: number,
): Promise<SignedTransfer> {
  const call = callOf(order);
  const signedTx = await account.signTransaction({
    type: 'eip1559',
    chainId: client.chainId,
    nonce,
    to: call.to,
    value: call.value,
    ...(call.data ? { data: call.data } : {}),
    gas: terms.gasLimit,
    maxFeePerGas: terms.maxFeePerGas,
    maxPriorityFeePerGas: terms.maxPriorityFeePerGas,
  });
  return { nonce, signedTx, txHash: keccak256(signedTx) };
}

export type BroadcastOutcome = 'sent' | 'known' | 'nonce-used';

const ALREADY_KNOWN = /already known|already imported|known transaction|already exists|transaction already in/i;
const NONCE_USED =
  /nonce too low|nonce has already been used|lower than the current nonce|replacement transaction underpriced|already used/i;

/**
 * Sends stored bytes. "Already known" is success (an earlier send got there); a used nonce is
 * reported for the caller to settle from the receipt (ours was mined, or another transaction took
 * the nonce). Anything else throws, to be retried.
 */
export async function broadcastSigned(client: ChainClient, signedTx: Hex): Promise<BroadcastOutcome> {
  try {
    await client.publicClient.sendRawTransaction({ serializedTransaction: signedTx });
    return 'sent';
  } catch (err) {
    const text = errorText(err);
    if (ALREADY_KNOWN.test(text)) return 'known';
    if (NONCE_USED.test(text)) return 'nonce-used';
    throw err;
  }
}

export interface PayoutReceipt {
  status: 'success' | 'reverted';
  blockNumber: bigint;
  blockHash: Hash;
  confirmations: bigint;
  feeWei: bigint;
}

/** The receipt of a hash with its confirmations (1 = in the latest block), or null while none exists. */
export async function receiptOf(client: ChainClient, hash: Hash): Promise<PayoutReceipt | null> {
  try {
    // Asked together, so one batched HTTP request.
    const [receipt, head] = await Promise.all([
      client.publicClient.getTransactionReceipt({ hash }),
      client.publicClient.getBlockNumber({ cacheTime: 0 }),
    ]);
    return {
      status: receipt.status,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      confirmations: head - receipt.blockNumber + 1n,
      feeWei: receipt.gasUsed * receipt.effectiveGasPrice,
    };
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

function errorText(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: string; details?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    parts.push(String(e.message ?? ''), String(e.details ?? ''));
  }
  return parts.join(' ');
}
