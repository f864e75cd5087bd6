import { ensureAnvilBinary } from '../tools/dev/anvil-binary';
import { ensureChromium, ensurePhp } from '../tools/dev/debian-packages';
import { ensureDashboardBuild } from '../tools/dev/dashboard-build';
import { ensurePromtool } from '../tools/dev/promtool';
import { ensureTemporalBinary, MissingToolError } from '../tools/temporal/cli-binary';
import { ensureServerBinaries } from '../tools/temporal/server/binaries';

// Runs before `npm test` (pretest): a bare machine gets the pinned Temporal CLI, the production
// Temporal server (built once, ~9 min of CPU here; cached after), Chromium, PHP's command line (the
// PHP webhook check of docs/webhooks.md) and promtool (the metrics
// and alert rules' checks); anvil comes with
// `npm install` and is only checked. The merchant dashboard is built when its sources changed.
async function main() {
  console.log(`temporal CLI: ${ensureTemporalBinary()}`);
  console.log(`temporal-server: ${ensureServerBinaries().server}`);
  console.log(`anvil: ${ensureAnvilBinary()}`);
  console.log(`chromium: ${ensureChromium()}`);
  console.log(`php: ${ensurePhp()}`);
  console.log(`promtool: ${ensurePromtool()}`);
  const dashboard = await ensureDashboardBuild(console.log);
  console.log(`dashboard: ${dashboard.dir}${dashboard.built ? '' : ' (already built)'}`);
}

main().catch((err) => {
  console.error(err instanceof MissingToolError || err instanceof Error ? err.message : err);
  process.exit(1);
});
