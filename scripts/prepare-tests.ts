import { ensureChromium } from '../src/devtools/chromium';
import { ensureTemporalBinary, MissingToolError } from '../src/temporal/cli-binary';

// Runs before `npm test` (pretest): a bare machine gets the pinned Temporal CLI and Chromium.
try {
  console.log(`temporal CLI: ${ensureTemporalBinary()}`);
  console.log(`chromium: ${ensureChromium()}`);
} catch (err) {
  console.error(err instanceof MissingToolError || err instanceof Error ? err.message : err);
  process.exit(1);
}
