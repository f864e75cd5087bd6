import { bundleWorkflowCode } from '@temporalio/worker';

// Run by bundleWorkflowsInChild (workflow-bundle.ts), never imported: bundles argv[2] and sends the code to the parent.
async function main() {
  const workflowsPath = process.argv[2];
  if (!workflowsPath || !process.send) throw new Error('usage: forked by bundleWorkflowsInChild with the workflows path');
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: quietLogger });
  await new Promise<void>((resolve, reject) => process.send!(code, (err: Error | null) => (err ? reject(err) : resolve())));
}

// The bundler reports every module at debug/info; only its warnings and errors matter here.
const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: unknown) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: unknown) => console.error(message, meta ?? ''),
};

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
