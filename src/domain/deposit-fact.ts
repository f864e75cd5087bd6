// What a chain watcher tells a payment's workflow about its deposit address (decisions §11): a
// confirmed Transfer to credit, or one whose block left the canonical chain. JSON-safe (amounts and
// block numbers as decimal strings) because it travels as a Temporal signal.

export interface DepositFact {
  kind: 'credited' | 'removed';
  network: string;
  transactionHash: string;
  logIndex: number;
  asset: string;
  token: string;
  from: string;
  to: string;
  /** Micro units of the 6-decimal stablecoin, as a decimal string. */
  amountMicro: string;
  blockNumber: string;
  blockHash: string;
}

/** (network, tx hash, log index): the identity of a log, which credits one payment only. */
export const depositLogKey = (f: Pick<DepositFact, 'network' | 'transactionHash' | 'logIndex'>) =>
  `${f.network}:${f.transactionHash.toLowerCase()}:${f.logIndex}`;

const EXPLORERS: Readonly<Record<string, string>> = {
  polygon: 'polygonscan.com',
  ethereum: 'etherscan.io',
  base: 'basescan.org',
  arbitrum: 'arbiscan.io',
  solana: 'solscan.io',
  tron: 'tronscan.org',
};

/** Decisions §4: `https://<explorer>/tx/<hash>`. */
export const explorerUrlFor = (network: string, hash: string): string | null => (EXPLORERS[network] ? `https://${EXPLORERS[network]}/tx/${hash}` : null);
