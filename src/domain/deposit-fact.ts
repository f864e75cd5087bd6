// What a chain watcher tells a payment's workflow about its deposit address: a
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

/** A watcher's word about one log in one block: the same word re-sent is the same news. */
export const depositNewsKey = (f: Pick<DepositFact, 'kind' | 'network' | 'transactionHash' | 'logIndex' | 'blockHash'>) =>
  `${f.kind}:${depositLogKey(f)}@${f.blockHash.toLowerCase()}`;
