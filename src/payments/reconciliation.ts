import type { Address } from 'viem';
import { onChainBalance } from '../chains/balances';
import { createChainClient, type ChainClient } from '../chains/clients';
import type { ChainSettings } from '../config';
import type { DatabaseOrTransaction } from '../db/client';
import { ledgerBalances, type AccountBalance } from '../db/queries/ledger';
import { transactionsBesideLedger } from '../db/queries/reconciliation';
import { ledgerAccount, NATIVE_ASSET } from '../domain/ledger';

// The ledger compared with the chain (the balance of every deposit address and of the
// treasury the ledger has postings for) and with the transactions table. Every difference is named;
// none is the healthy answer. The treasury's native coin is left out: operators fund it from outside
// the platform, so the ledger holds only what payouts spent of it.

export interface Difference {
  account: string;
  expected: string;
  actual: string;
  note: string;
}

export async function reconcile(db: DatabaseOrTransaction, chains: ChainSettings, treasury: string | null = null): Promise<Difference[]> {
  const clients = new Map<string, ChainClient>(chains.networks.map((n) => [n.network, createChainClient(n)]));
  const differences: Difference[] = [];
  const held = [...(await ledgerBalances(db, 'deposit:')), ...withEveryTreasury(await ledgerBalances(db, 'treasury:'), chains, treasury)];
  for (const b of held) {
    if (b.account.startsWith('treasury:') && b.asset === NATIVE_ASSET) continue;
    const address = b.account.slice(b.account.indexOf(':') + 1) as Address;
    const client = clients.get(b.network);
    const actual = client ? await onChainBalance(client, address, b.asset) : null;
    if (actual === null) {
      differences.push({
        account: b.account,
        expected: b.balance.toString(),
        actual: 'unknown',
        note: `${b.asset} on ${b.network} is not configured`,
      });
    } else if (actual !== b.balance) {
      differences.push({
        account: b.account,
        expected: b.balance.toString(),
        actual: actual.toString(),
        note: `${b.asset} on ${b.network}: the ledger and the chain disagree`,
      });
    }
  }
  for (const t of await transactionsBesideLedger(db)) {
    const account = `transaction:${t.paymentId}`;
    if (t.postedMicro === null) {
      differences.push({
        account,
        expected: t.grossMicro ?? 'null',
        actual: 'none',
        note: 'a completed transaction without its completion posting',
      });
    } else if (t.postedMicro !== t.grossMicro) {
      differences.push({
        account,
        expected: t.grossMicro ?? 'null',
        actual: t.postedMicro,
        note: 'the gross differs from the completion posting',
      });
    }
    if (t.transactionHash !== t.payoutHash) {
      differences.push({
        account,
        expected: t.payoutHash ?? 'null',
        actual: t.transactionHash ?? 'null',
        note: 'transactionHash is not the confirmed merchant payout’s',
      });
    }
  }
  return differences;
}

/**
 * The treasury's balance of every configured token on every network, 0 where the ledger has no line:
 * money that reaches a treasury the ledger has never posted to (an operator's funding not recorded)
 * is a difference too.
 */
function withEveryTreasury(balances: AccountBalance[], chains: ChainSettings, treasury: string | null): AccountBalance[] {
  if (!treasury) return balances;
  const account = ledgerAccount.treasury(treasury);
  const missing = chains.networks.flatMap((n) =>
    (Object.entries(n.tokens) as [string, string | null][])
      .filter(
        ([asset, token]) => token !== null && !balances.some((b) => b.account === account && b.asset === asset && b.network === n.network),
      )
      .map(([asset]) => ({ account, asset, network: n.network, balance: 0n })),
  );
  return [...balances, ...missing];
}
