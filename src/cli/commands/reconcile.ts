import { z } from 'zod';
import { defineCommand, type OpsCommand } from '../command';

// Decisions §11: `npm run ops -- reconcile`, the ledger against the chain and the transactions table
// through GET /admin/v1/reconciliation; each difference printed, exit 1 when there is any.

const reconciliationView = z.object({
  differences: z.array(z.object({ account: z.string(), expected: z.string(), actual: z.string(), note: z.string() })),
});

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
];
