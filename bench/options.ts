import { parseArgs } from 'node:util';

export const FIGURE_GROUPS = [
  'lookups',
  'creation',
  'payments',
  'deliveries',
  'backlog',
  'chain-watch',
  'payment-list',
  'topology',
] as const;
export const TEMPORAL_SERVERS = ['dev', 'production'] as const;
export type FigureGroup = (typeof FIGURE_GROUPS)[number];

export interface BenchOptions {
  quick: boolean;
  out: string | null;
  groups: FigureGroup[];
  /** Rounds of ours-then-baseline per figure; the figure is the median. */
  rounds: number;
  lookupSeconds: number;
  lookupConnections: number;
  /**
   * Sessions created per round (creation figure): 600 make a round about 3 s; at 150 (under a
   * second) a round's CPU moved by a third with whatever background work of the server fell in it.
   */
  creations: number;
  /** Payments per round (throughput figure). */
  payments: number;
  /** Payments per round at 10 % load (latency figure). */
  latencyPayments: number;
  /** Rounds of the latency figure (at 10 % load a round is slow: a payment every few seconds). */
  latencyRounds: number;
  deliveries: number;
  /** Open deposit addresses per chain-watch case. */
  watchSizes: number[];
  /** Scans measured per chain-watch case and round. */
  watchScans: number;
  logLevel: string;
  /** Which Temporal server the run starts: the CLI's dev server (in memory) or the production server on Postgres. */
  temporal: (typeof TEMPORAL_SERVERS)[number];
  /** Payments in the backlog figure, and its rounds (a round is minutes). */
  backlog: number;
  backlogRounds: number;
  /** Calls per round of each payment-list case. */
  listCalls: number;
}

const USAGE = `npm run bench -- [--quick] [--out FILE] [--only ${FIGURE_GROUPS.join(',')}] [--temporal dev|production] [--log-level warn]`;

/**
 * The default run takes tens of minutes on a 2-core machine (three rounds of every figure, the
 * backlog's each minutes long); --quick is a smoke test (a few minutes, one round each) whose
 * numbers are too short to trust, only their presence.
 */
export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      only: { type: 'string' },
      'log-level': { type: 'string', default: 'warn' },
      temporal: { type: 'string', default: 'dev' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const groups = values.only ? values.only.split(',').map((g) => g.trim()) : [...FIGURE_GROUPS];
  for (const g of groups) if (!(FIGURE_GROUPS as readonly string[]).includes(g)) throw new Error(`unknown figure group ${g}: ${USAGE}`);
  const temporal = values.temporal;
  if (!(TEMPORAL_SERVERS as readonly string[]).includes(temporal)) throw new Error(`unknown Temporal server ${temporal}: ${USAGE}`);
  const quick = values.quick;
  return {
    quick,
    out: values.out ?? null,
    groups: groups as FigureGroup[],
    rounds: quick ? 1 : 3,
    lookupSeconds: quick ? 2 : 6,
    lookupConnections: 10,
    creations: quick ? 20 : 600,
    payments: quick ? 6 : 40,
    // Three rounds of 34: a p99 over more than 100 payments a side.
    latencyPayments: quick ? 3 : 34,
    // Three rounds at least for every figure, so each reports a min, a median and a max.
    latencyRounds: quick ? 1 : 3,
    deliveries: quick ? 10 : 100,
    watchSizes: [10, 100, 1000, 10_000, 100_000],
    watchScans: quick ? 3 : 10,
    logLevel: values['log-level'],
    temporal: temporal as BenchOptions['temporal'],
    backlog: quick ? 20 : 200,
    backlogRounds: quick ? 1 : 3,
    listCalls: quick ? 20 : 200,
  };
}
