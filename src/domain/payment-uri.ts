import { isEvmNetwork } from './assets';
import { parseCrypto } from './money';

// What a wallet app reads from a QR code to prepare the transfer itself: the
// token, the amount and the recipient, in the URI scheme of the network's wallets.

/** `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>` (EIP-681, ERC-20 transfer). */
export const eip681TransferUri = (token: string, chainId: number, to: string, units: bigint) =>
  `ethereum:${token}@${chainId}/transfer?address=${to}&uint256=${units.toString()}`;

/** Mainnet token addresses of the networks without a chain client here (Solana mints, Tron TRC-20 contracts). */
export const NON_EVM_TOKENS: Readonly<Record<'solana' | 'tron', Readonly<Record<string, string>>>> = {
  solana: { USDC: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', USDT: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },
  tron: { USDT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
};

/** "27.000000" → "27", "1.500000" → "1.5": the decimal form wallet URIs expect. */
const plainDecimal = (amount: string) => (amount.includes('.') ? amount.replace(/0+$/, '').replace(/\.$/, '') : amount);

export interface TransferRequest {
  network: string;
  asset: string;
  /** The recipient (deposit) address. */
  address: string;
  /** 6-decimal amount string. */
  amount: string;
  /** EVM networks: the token contract and chain id this deployment watches; without them no URI is made. */
  evm?: { token: string; chainId: number } | undefined;
}

/**
 * The transfer as a wallet URI: EIP-681 on EVM networks, Solana Pay (`solana:<to>?amount=&spl-token=`)
 * on Solana, `tron:<to>?amount=&token=` on Tron. Null when the token is not known here: a QR code of
 * the bare address is better than one naming the wrong token.
 */
export function transferUri(t: TransferRequest): string | null {
  const network = t.network.toLowerCase();
  const asset = t.asset.toUpperCase();
  if (isEvmNetwork(network)) return t.evm ? eip681TransferUri(t.evm.token, t.evm.chainId, t.address, parseCrypto(t.amount)) : null;
  if (network === 'solana' || network === 'tron') {
    const token = NON_EVM_TOKENS[network][asset];
    if (!token) return null;
    const amount = encodeURIComponent(plainDecimal(t.amount));
    return network === 'solana'
      ? `solana:${t.address}?amount=${amount}&spl-token=${token}`
      : `tron:${t.address}?amount=${amount}&token=${token}`;
  }
  return null;
}
