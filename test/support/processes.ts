import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import type { Config } from '../../src/config';
import { entryCommandArgs } from '../../tools/dev/entry-command';
import { compiledTestEntry } from './compiled-entries';

const ROOT = path.resolve(__dirname, '../..');

/** The environment that makes an entry point (worker.ts, server.ts) use this test file's config. */
export function envFor(config: Config): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    DATABASE_URL: config.databaseUrl,
    TEMPORAL_ADDRESS: config.temporal.address,
    TEMPORAL_NAMESPACE: config.temporal.namespace,
    TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
    ADMIN_TOKEN: config.adminToken,
    SECRETS_KEY: config.secretsKey.toString('hex'),
    PORT: String(config.http.port),
    PUBLIC_BASE_URL: config.http.publicBaseUrl,
    SANDBOX_ENABLED: String(config.providers.sandbox.enabled),
    SANDBOX_PORT: String(config.providers.sandbox.port),
    SANDBOX_URL: config.providers.sandbox.url,
    SANDBOX_API_KEY: config.providers.sandbox.apiKey,
    SANDBOX_CALLBACK_SECRET: config.providers.sandbox.callbackSecret,
    ALLOW_PRIVATE_URLS: String(config.allowPrivateUrls),
    SESSION_TTL_SECONDS: String(config.checkout.sessionTtlSeconds),
    WEBHOOK_RETRY_BASE_SECONDS: String(config.webhooks.retryBaseSeconds),
    WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: String(config.webhooks.retryMaxIntervalSeconds),
    WEBHOOK_RETRY_WINDOW_HOURS: String(config.webhooks.retryWindowHours),
    WEBHOOK_TIMEOUT_MS: String(config.webhooks.timeoutMs),
    LOG_LEVEL: 'warn',
    // The run's dev chain, so a worker process runs the same chain watchers as the test's config.
    ...Object.fromEntries(
      config.chains.networks.flatMap((n) => {
        const p = `CHAIN_${n.network.toUpperCase()}_`;
        return [
          [`${p}RPC_URL`, n.rpcUrl],
          [`${p}CHAIN_ID`, String(n.chainId)],
          [`${p}CONFIRMATIONS`, String(n.confirmations)],
          ...(n.tokens.USDC ? [[`${p}USDC`, n.tokens.USDC]] : []),
          ...(n.tokens.USDT ? [[`${p}USDT`, n.tokens.USDT]] : []),
          [`${p}SWEEPER`, n.sweeper],
        ];
      }),
    ),
    ...(config.chains.settlementMnemonic ? { SETTLEMENT_MNEMONIC: config.chains.settlementMnemonic } : {}),
    PAYOUT_INTERVAL_SECONDS: String(config.chains.settlement.intervalSeconds),
    SWEEP_BATCH_SIZE: String(config.chains.settlement.sweepBatchSize),
    PAYOUT_HOLD_SECONDS: String(config.chains.settlement.holdSeconds),
  };
}

/**
 * Runs an entry point as a real process and resolves once it printed `ready`. A root TypeScript one
 * (`worker.ts`) runs compiled, as the run's global setup left it (compiled-entries.ts); a `.js` one as it is.
 */
export async function startEntryPoint(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<{ child: ChildProcess; output: () => string }> {
  // Its own process group: whatever the entry starts (a workflow bundler) goes with it on a kill.
  const command = entryCommandArgs(entry.endsWith('.ts') ? compiledTestEntry(entry) : entry);
  const child = spawn(process.execPath, command, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} not ready after ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = () => {
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return { child, output: () => output };
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });
}

/**
 * `npm run build` into `.data/<name>` (inside the project, as `dist/` is, so the compiled code finds
 * the project's files); returns the folder. About 40 s of CPU.
 */
export async function buildInto(name: string): Promise<string> {
  const dir = path.join(ROOT, '.data', name);
  await promisify(execFile)(process.execPath, [require.resolve('tsx/cli'), 'scripts/build.ts', '--out-dir', dir], { cwd: ROOT });
  return dir;
}
