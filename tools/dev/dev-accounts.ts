import {
  createWalletClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  http,
  toHex,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem';
import { getTransaction, getTransactionReceipt } from 'viem/actions';
import { mnemonicToAccount } from 'viem/accounts';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { DEV_CHAIN_ID } from './dev-chain';

/**
 * The dev chain's token deployer and only minter: anvil's funded account 9 of its public mnemonic
 * (accounts 0.. are the dev treasury and friends). Anvil holds the keys of its own accounts, so this
 * account sends through `eth_sendTransaction` (nodeAccountSender) and no key is ever handled here.
 */
export const DEV_MINTER_ADDRESS: Address = mnemonicToAccount(DEV_SETTLEMENT_MNEMONIC, { addressIndex: 9 }).address;

export function devChain(rpcUrl: string, chainId = DEV_CHAIN_ID): Chain {
  return {
    id: chainId,
    name: 'dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  };
}

export interface NodeAccountSender {
  address: Address;
  /**
   * Runs a token call (mint, transfer) from the account, nonce chosen by the node, and resolves with
   * the call's own receipt once mined (anvil mines at once); sent again when another sender's
   * transaction took its nonce.
   */
  execute: (tx: { to: Address; data: Hex }) => Promise<TransactionReceipt>;
}

// Each is anvil refusing a transaction that took a nonce another process's pending one holds: "too
// low" once that one is mined, "replacement underpriced" while it is pending, "already imported" when
// both are the same mint (same sender, data and nonce: the other process's, which it waits for).
const NONCE_RACE = /nonce too low|lower than the current nonce|replacement transaction underpriced|transaction already imported/i;
const MAX_ATTEMPTS = 10;
// A fixed gas limit, not the node's estimate: the estimate is taken against the state before
// another process's pending transfer empties the minter's balance, and a mint that then writes a
// zero slot costs more than estimated and reverts out of gas. A token call needs well under this.
const TOKEN_CALL_GAS = toHex(150_000n);
/** How long a sent transaction may be neither pending nor mined before it counts as replaced. */
const GONE_AFTER_MS = 1_000;
const RECEIPT_TIMEOUT_MS = 60_000;

/**
 * Sends as an account the node holds (`eth_sendTransaction`). Several processes mint as the one dev
 * minter at once (test files, the sandboxes of two test files), and even anvil then hands two of them
 * the same nonce; the loser is rejected before it enters the pool, so sending it again is safe and
 * cannot pay twice. A sent transaction can also lose its nonce after it entered the pool: another
 * sender's transaction with the same nonce and a higher fee replaces it, and it is never mined. Its
 * hash then has no receipt, and a wait that takes whatever the nonce mined for its own (viem's
 * waitForTransactionReceipt resolves with the replacement's) would report a transfer that never
 * happened: a provider saying it paid when it did not. So `execute` waits for the call's own receipt
 * and sends it again once the transaction has left the pool unmined. Sends from one sender are
 * queued, so a process does not race itself; the waits are not, so concurrent calls stay concurrent.
 */
export function nodeAccountSender(rpcUrl: string, address: Address, chainId = DEV_CHAIN_ID): NodeAccountSender {
  const client = createWalletClient({ chain: devChain(rpcUrl, chainId), transport: http(rpcUrl) });
  let queue: Promise<unknown> = Promise.resolve();
  const sendNow = async (tx: { to: Address; data: Hex }): Promise<Hash> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.request({ method: 'eth_sendTransaction', params: [{ from: address, gas: TOKEN_CALL_GAS, ...tx }] });
      } catch (err) {
        if (attempt >= MAX_ATTEMPTS || !NONCE_RACE.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 10 * attempt + Math.floor(Math.random() * 20)));
      }
    }
  };
  const send = (tx: { to: Address; data: Hex }) => {
    const sent = queue.then(() => sendNow(tx));
    queue = sent.catch(() => undefined);
    return sent;
  };
  return {
    address,
    async execute(tx) {
      for (let attempt = 1; ; attempt++) {
        const hash = await send(tx);
        const receipt = await ownReceipt(client, hash);
        if (receipt) return receipt;
        if (attempt >= MAX_ATTEMPTS) throw new Error(`a call to ${tx.to} from ${address} was replaced ${attempt} times`);
      }
    },
  };
}

/** The transaction's own receipt once mined; null once it has left the pool unmined (replaced). */
async function ownReceipt(client: WalletClient, hash: Hash): Promise<TransactionReceipt | null> {
  // Only the node's "no such transaction" counts as an answer: a failed call (the node busy or away)
  // says nothing, and taking it for "gone" would send the call again while it may still be mined.
  const receiptOf = () => getTransactionReceipt(client, { hash }).catch(unless(TransactionReceiptNotFoundError, null));
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  let goneSince: number | null = null;
  for (;;) {
    const receipt = await receiptOf();
    if (receipt) return receipt;
    if (receipt === null) {
      // Pending or mined, the node knows the transaction; a moment of neither (a block being stored)
      // is not yet a replacement, so it must last.
      const known = await getTransaction(client, { hash }).then(() => true, unless(TransactionNotFoundError, false));
      if (known === true) goneSince = null;
      else if (known === false && goneSince === null) goneSince = Date.now();
      else if (known === false && Date.now() - goneSince! >= GONE_AFTER_MS) {
        const last = await receiptOf();
        if (last !== undefined) return last;
      }
    }
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} after ${RECEIPT_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A catch handler: `answer` for an error of `kind`, undefined (no answer) for any other. */
const unless =
  <T>(kind: new (...args: never[]) => Error, answer: T) =>
  (err: unknown): T | undefined =>
    err instanceof kind ? answer : undefined;

/** A wallet client for an account the node itself holds (anvil's dev accounts), for one sender at a time. */
export function nodeAccountWallet(rpcUrl: string, address: Address, chainId = DEV_CHAIN_ID): WalletClient<Transport, Chain, Account> {
  return createWalletClient({ account: address, chain: devChain(rpcUrl, chainId), transport: http(rpcUrl) });
}
