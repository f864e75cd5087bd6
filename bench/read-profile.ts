import { existsSync, readFileSync } from 'node:fs';
import { cpuProfileShares, topFunctions } from './support/cpu-profile';

// `npx tsx bench/read-profile.ts <file.cpuprofile> [top]`: a creation profile kept with
// BENCH_KEEP_PROFILE=<file> (and its round's window), by part of the stack and by function.
const [file, top = '40'] = process.argv.slice(2);
if (!file) throw new Error('usage: npx tsx bench/read-profile.ts <file.cpuprofile> [top]');
const windowFile = `${file}.window.json`;
const window = existsSync(windowFile) ? (JSON.parse(readFileSync(windowFile, 'utf8')) as { fromUs: number; toUs: number }) : undefined;
const { shares, totalMs, samples } = cpuProfileShares(file, window);
console.log(`${samples} samples, ${totalMs.toFixed(0)} ms busy`);
for (const s of shares) console.log(`${(s.share * 100).toFixed(1).padStart(5)} %  ${s.where}`);
console.log('');
for (const f of topFunctions(file, Number(top), window)) console.log(`${f.ms.toFixed(1).padStart(8)} ms  ${f.fn}`);
