import { z } from 'zod';
import type { difference as serverDifference } from '../../api/routes/admin/reconciliation';
import { arg, defineCommand, type OpsCommand } from '../command';
import type { Holds, ReadsServer } from '../render';

// `npm run ops -- reconcile`, the ledger against the chain and the transactions table through
// GET /admin/v1/reconciliation; each difference printed, exit 1 when there is any. `treasury fund`
// records money an operator put into a treasury, so that it is not a difference (docs/settlement.md).

const differenceView = z.object({ account: z.string(), expected: z.string(), actual: z.string(), note: z.string() });
type _ServerView = Holds<ReadsServer<typeof differenceView, typeof serverDifference>>;
const reconciliationView = z.object({ differences: z.array(differenceView) });

export const RECONCILE_COMMANDS: readonly OpsCommand[] = [
  defineCommand({
    name: 'reconcile',
    summary: 'Compare the ledger with on-chain balances and the transactions table; exit 1 on any difference.',
    request: () => ({ method: 'GET', path: '/reconciliation' }),
    response: reconciliationView,
    render: ({ differences }) => [
      ...differences.map((d) => `${d.account}: expected ${d.expected}, actual ${d.actual} (${d.note})`),
      `${differences.length} difference${differences.length === 1 ? '' : 's'}`,
    ],
    exitCode: ({ differences }) => (differences.length > 0 ? 1 : 0),
  }),
  defineCommand({
    name: 'treasury fund',
    args: [
      { name: 'network', description: 'the network the transaction is on (polygon, base, …)' },
      { name: 'transactionHash', description: 'the transaction that sent stablecoin or native coin to the treasury' },
    ],
    summary: 'Record money put into a treasury from outside (stablecoin, or native coin for gas), read from its transaction.',
    request: (input) => ({
      method: 'POST',
      path: '/treasury/fundings',
      body: { network: arg(input, 'network'), transactionHash: arg(input, 'transactionHash') },
    }),
    response: z.object({
      fundings: z.array(z.object({ asset: z.string(), amount: z.string(), from: z.string(), recordedNow: z.boolean() })),
    }),
    render: ({ fundings }) =>
      fundings.map(
        (f) =>
          `${f.recordedNow ? 'recorded' : 'already recorded'}: ${f.amount} ${f.asset === 'native' ? 'wei' : `micro ${f.asset}`} from ${f.from}`,
      ),
  }),
];
