import {
  createWalletClient,
  http,
  toHex,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type Transport,
  type WalletClient,
} from 'viem';
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
  /** Sends a token call (mint, transfer) from the account, nonce chosen by the node; resolves with the hash (anvil mines at once). */
  send: (tx: { to: Address; data: Hex }) => Promise<Hash>;
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

/**
 * Sends as an account the node holds (`eth_sendTransaction`). Several processes mint as the one dev
 * minter at once (test files, the sandboxes of two test files), and even anvil then hands two of them
 * the same nonce; the loser is rejected before it enters the pool, so sending it again is safe and
 * cannot pay twice. Sends from one sender are also queued, so a process does not race itself.
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
  return {
    address,
    send(tx) {
      const sent = queue.then(() => sendNow(tx));
      queue = sent.catch(() => undefined);
      return sent;
    },
  };
}

/** A wallet client for an account the node itself holds (anvil's dev accounts), for one sender at a time. */
export function nodeAccountWallet(rpcUrl: string, address: Address, chainId = DEV_CHAIN_ID): WalletClient<Transport, Chain, Account> {
  return createWalletClient({ account: address, chain: devChain(rpcUrl, chainId), transport: http(rpcUrl) });
}
