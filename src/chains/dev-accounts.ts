import { createWalletClient, http, type Account, type Address, type Chain, type Transport, type WalletClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DEV_SETTLEMENT_MNEMONIC } from '../domain/mnemonic';
import { DEV_CHAIN_ID } from './dev-chain';

/**
 * The dev chain's token deployer and only minter: anvil's funded account 9 of its public mnemonic
 * (accounts 0.. are the dev treasury and friends). Anvil holds the keys of its own accounts, so this
 * account sends through `eth_sendTransaction` and the node assigns its nonces: the test files and the
 * sandbox that mint at the same time cannot race each other for the same nonce.
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

/** A wallet client for an account the node itself holds (anvil's dev accounts). */
export function nodeAccountWallet(rpcUrl: string, address: Address, chainId = DEV_CHAIN_ID): WalletClient<Transport, Chain, Account> {
  return createWalletClient({ account: address, chain: devChain(rpcUrl, chainId), transport: http(rpcUrl) });
}
