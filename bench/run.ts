import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lookupFigures } from './figures/lookups';
import { parseOptions, type BenchOptions } from './options';
import { renderTable, type Figure } from './support/figures';
import { ROOT } from './support/processes';
import { createMerchant, startBareLookup, startOurServer, type Service } from './support/services';
import { startStack, type Stack } from './support/stack';

// `npm run bench`: issue 14's figures, each against a baseline measured in the same run.

const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function runLookups(options: BenchOptions, stack: Stack, stops: (() => Promise<void>)[]): Promise<Figure[]> {
  const ours = await startOurServer(stack, { taskQueue: 'bench-lookups', logLevel: options.logLevel });
  stops.push(ours.stop);
  const bare: Service = await startBareLookup(stack);
  stops.push(bare.stop);
  const merchant = await createMerchant(ours.baseUrl);
  return lookupFigures({ options, databaseUrl: stack.databaseUrl, ours, bare, merchantId: merchant.id, apiKey: merchant.apiKey, log });
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const started = Date.now();
  const needsTemporal = options.groups.some((g) => g !== 'lookups' && g !== 'chain-watch');
  const stack = await startStack(log, { temporal: needsTemporal });
  const stops: (() => Promise<void>)[] = [];
  const figures: Figure[] = [];
  try {
    if (options.groups.includes('lookups')) figures.push(...(await runLookups(options, stack, stops)));
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await stack.stop();
  }
  const report = {
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    quick: options.quick,
    machine: { cpus: os.cpus().length, loadAverage: os.loadavg(), node: process.version },
    options,
    figures,
  };
  const out = options.out ?? path.join(ROOT, '.data', 'bench', `${report.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(renderTable(figures));
  console.log(`\n${figures.length} figures in ${report.seconds} s (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}); JSON: ${out}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
