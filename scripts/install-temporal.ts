import { ensureTemporalBinary, MissingToolError } from '../tools/temporal/cli-binary';

// Runs before `npm test` and `npm start`: a bare machine gets the pinned Temporal CLI.
try {
  const binary = ensureTemporalBinary();
  console.log(`temporal CLI: ${binary}`);
} catch (err) {
  if (err instanceof MissingToolError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
