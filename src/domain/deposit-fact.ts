import { EXPLORERS } from './assets';

// What a chain watcher tells a payment's workflow about its deposit address (decisions §11): a
// confirmed Transfer to credit, or one whose block left the canonical chain. JSON-safe (amounts and
// block numbers as decimal strings) because it travels as a Temporal signal.

export interface DepositFact {
  kind: 'credited' | 'removed';
  network: string;
  transactionHash: string;
  logIndex: number;
  /** The configured asset of the token contract, null for one this deployment does not configure. */
  asset: string | null;
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

// Networks whose transaction pages are not the public explorer's (config `explorerTxBase`): on the
// local dev chain, the sandbox's own page. Registered by each process from its config when it builds
// its app or its activities, so every link it writes or renders (payouts included) agrees.
const explorerBases = new Map<string, string | null>();

export function registerExplorers(networks: readonly { network: string; explorerTxBase?: string | null | undefined }[]): void {
  for (const n of networks) if (n.explorerTxBase !== undefined) explorerBases.set(n.network, n.explorerTxBase);
}

/** Decisions §4: `https://<explorer>/tx/<hash>`; in sandbox mode the sandbox's own transaction page. */
export const explorerUrlFor = (network: string, hash: string): string | null => {
  if (explorerBases.has(network)) {
    const base = explorerBases.get(network);
    return base ? `${base}/${hash}` : null;
  }
  const explorer = (EXPLORERS as Readonly<Record<string, string>>)[network];
  return explorer ? `https://${explorer}/tx/${hash}` : null;
};
