import { EXPLORERS } from './assets';

// Networks whose transaction pages are not the public explorer's (config `explorerTxBase`): on the
// local dev chain, the sandbox's own page. Registered by each process from its config when it builds
// its app or its activities, so every link it writes or renders (payouts included) agrees.
const explorerBases = new Map<string, string | null>();

export function registerExplorers(networks: readonly { network: string; explorerTxBase?: string | null | undefined }[]): void {
  for (const n of networks) if (n.explorerTxBase !== undefined) explorerBases.set(n.network, n.explorerTxBase);
}

/** `https://<explorer>/tx/<hash>`; in sandbox mode the sandbox's own transaction page. */
export const explorerUrlFor = (network: string, hash: string): string | null => {
  if (explorerBases.has(network)) {
    const base = explorerBases.get(network);
    return base ? `${base}/${hash}` : null;
  }
  const explorer = (EXPLORERS as Readonly<Record<string, string>>)[network];
  return explorer ? `https://${explorer}/tx/${hash}` : null;
};
