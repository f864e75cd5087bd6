import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { topologyFigures } from './figures/topology';
import { FIGURE_GROUPS, parseOptions } from './options';
import { stackGroups } from './stack-groups';
import { renderTable, spreadOf } from './support/figures';
import { groupRunner, reasonOf, renderGroups } from './support/groups';
import { killStrays, ROOT } from './support/processes';
import { startReceiver } from './support/receiver';
import { startStack } from './support/stack';
import { ensureTemporalBinary } from '../tools/temporal/cli-binary';
import { ensureServerBinaries } from '../tools/temporal/server/binaries';

// `npm run bench`: its figures, each against a baseline measured in the same run.

const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** The groups that run on the run's own stack (the topology group starts a stack of its own). */
const STACK_GROUPS = ['lookups', 'creation', 'payments', 'deliveries', 'backlog', 'chain-watch', 'payment-list'] as const;

/**
 * What a run needs built before any group starts its timers and children: the Temporal CLI (the dev
 * server, and the production server's namespace set-up) and the production server's binaries. A
 * first build takes minutes of both cores, and done while a group starts its stack it starved it (an
 * anvil that did not listen within its 30 s). Answers why each could not be had, or null.
 */
function prerequisites(needs: { cli: boolean; production: boolean }): { cli: string | null; production: string | null } {
  const attempt = (what: string, build: () => unknown) => {
    try {
      log(`prerequisite: ${what}`);
      build();
      return null;
    } catch (err) {
      return `${what} could not be built: ${reasonOf(err)}`;
    }
  };
  const cli = needs.cli ? attempt('the Temporal CLI', () => ensureTemporalBinary(log)) : null;
  const production = needs.production
    ? (cli ?? attempt('the production Temporal server (temporal-server, temporal-sql-tool)', () => ensureServerBinaries(log)))
    : null;
  return { cli, production };
}

async function main() {
  // Whatever ends this process, nothing it started outlives it (a clean run has stopped everything already).
  process.on('exit', killStrays);
  const options = parseOptions(process.argv.slice(2));
  const runner = groupRunner(log, options.groups);
  const { has } = runner;
  if (has('deliveries') && !has('payments'))
    throw new Error("the deliveries figure resends the payment figures' deliveries: add payments to --only");
  const started = Date.now();
  const loadAverageAtStart = os.loadavg();
  const needsTemporal = has('creation') || has('payments') || has('backlog');
  const ready = prerequisites({
    cli: needsTemporal || has('topology'),
    production: has('topology') || (needsTemporal && options.temporal === 'production'),
  });
  if (ready.cli) runner.fail(['creation', 'payments', 'deliveries', 'backlog', 'topology'], ready.cli);
  if (ready.production)
    runner.fail(
      options.temporal === 'production' ? ['creation', 'payments', 'deliveries', 'backlog', 'topology'] : ['topology'],
      ready.production,
    );
  const temporalUsable = needsTemporal && !ready.cli && !(options.temporal === 'production' && ready.production);

  if (STACK_GROUPS.some((g) => has(g) && !runner.failed(g))) {
    await stackGroups(options, runner, temporalUsable, log).catch((err: unknown) =>
      runner.fail(STACK_GROUPS, `the run's stack: ${reasonOf(err)}`),
    );
  }

  await runner.run('topology', async () => {
    // A stack of its own on the production Temporal server, whichever server the figures above used.
    // Pools sized to Postgres's 100 connections (topology.ts counts ours): the server's default of
    // 4 services × (20 + 5) is all of them alone, and a full run's Pay once answered 500 "too many
    // clients". The smoke run shares Postgres with a test run: smaller still.
    const production = await startStack(log, {
      temporal: 'production',
      temporalConnections: options.quick ? { main: 4, visibility: 2 } : { main: 8, visibility: 2 },
    });
    try {
      const receiver = await startReceiver();
      try {
        return await topologyFigures({ options, stack: production, receiver, log });
      } finally {
        await receiver.close();
      }
    } finally {
      await production.stop();
    }
  });

  const { figures } = runner;
  // In the groups' own order, whenever each was reported (one whose prerequisite failed, before any ran).
  const reports = [...runner.reports].sort((a, b) => FIGURE_GROUPS.indexOf(a.group) - FIGURE_GROUPS.indexOf(b.group));
  const failed = reports.filter((r) => r.status === 'failed');
  const report = {
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    quick: options.quick,
    ok: failed.length === 0,
    machine: { cpus: os.cpus().length, loadAverageAtStart, loadAverage: os.loadavg(), node: process.version },
    temporalServer: options.temporal,
    options,
    groups: reports,
    // Each figure's median (ours, baseline) with every round's value and their min, median and max.
    figures: figures.map((f) => ({ ...f, spread: spreadOf(f) })),
  };
  const out = options.out ?? path.join(ROOT, '.data', 'bench', `${report.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(renderTable(figures));
  console.log(`\n${renderGroups(reports)}`);
  console.log(
    `\n${figures.length} figures in ${report.seconds} s on the ${options.temporal} Temporal server (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})${failed.length ? `; FAILED: ${failed.map((r) => r.group).join(', ')}` : ''}; JSON: ${out}`,
  );
  if (failed.length) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
