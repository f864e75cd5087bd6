import type { Stack } from './stack';
import { BENCH_ADMIN_TOKEN } from './stack';
import { answers, freePort, startEntry, type Child } from './processes';
import { BENCH_MERCHANT_WALLET } from '../minimal/messages';
import { countingFlags } from './sql-count';

export interface Service extends Child {
  baseUrl: string;
}

/** With a directory, the process counts the SQL statements it sends there (bench/support/sql-count.ts). */
const counting = (sqlCountDir: string | undefined): { env: Record<string, string>; flags: string[] } =>
  sqlCountDir ? { env: { BENCH_SQL_COUNT_DIR: sqlCountDir }, flags: countingFlags() } : { env: {}, flags: [] };

/**
 * A V8 CPU profile written into `dir` when the process stops, a sample every 250 µs (V8's default is
 * 1 ms: a round of creations gives a few thousand). Sampling costs CPU itself, so with
 * BENCH_SERVER_CPU_PROF the bare peers are profiled too and the ratios stay like for like.
 */
const serverProfileFlags = (dir: string | undefined): string[] =>
  dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=250'] : [];

/** Our HTTP service (server.ts) as deployed: its own process, its own pool, LOG_LEVEL of the run. */
export async function startOurServer(
  stack: Stack,
  input: { taskQueue: string; sandboxUrl?: string; logLevel: string; cpuProfileDir?: string; sqlCountDir?: string },
): Promise<Service> {
  const count = counting(input.sqlCountDir);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...stack.env,
    PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    TEMPORAL_TASK_QUEUE: input.taskQueue,
    LOG_LEVEL: input.logLevel,
    ...(input.sandboxUrl ? { SANDBOX_URL: input.sandboxUrl, SANDBOX_PORT: new URL(input.sandboxUrl).port } : {}),
    ...count.env,
  };
  // cpuProfileDir, or BENCH_SERVER_CPU_PROF=<dir> for every server of the run: the server writes a V8
  // CPU profile there when it stops (the creation figure's breakdown).
  const flags = [...serverProfileFlags(input.cpuProfileDir ?? process.env.BENCH_SERVER_CPU_PROF), ...count.flags];
  return { ...(await startEntry('server', 'server.ts', env, answers(`${baseUrl}/healthz`), undefined, flags)), baseUrl };
}

export async function startBareLookup(stack: Stack): Promise<Service> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    ...(await startEntry(
      'bare-lookup',
      'bench/baseline/bare-lookup.ts',
      { DATABASE_URL: stack.databaseUrl, PORT: String(port), PUBLIC_BASE_URL: baseUrl },
      answers(`${baseUrl}/healthz`),
      undefined,
      serverProfileFlags(process.env.BENCH_SERVER_CPU_PROF),
    )),
    baseUrl,
  };
}

/**
 * The creation baseline (bench/baseline/bare-create.ts): the stack's variables as our server gets
 * them, its workflows started on `taskQueue` (an idle one: no worker polls it).
 */
export async function startBareCreate(stack: Stack, taskQueue: string): Promise<Service> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { ...stack.env, PORT: String(port), PUBLIC_BASE_URL: baseUrl, BENCH_TASK_QUEUE: taskQueue };
  const flags = serverProfileFlags(process.env.BENCH_SERVER_CPU_PROF);
  return {
    ...(await startEntry('bare-create', 'bench/baseline/bare-create.ts', env, answers(`${baseUrl}/healthz`), undefined, flags)),
    baseUrl,
  };
}

/** The sandbox provider (sandbox.ts); `serviceUrl` is where it posts callbacks and presses Pay. */
export async function startSandbox(stack: Stack, serviceUrl: string, port: number): Promise<Service> {
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { ...stack.env, SANDBOX_PORT: String(port), SANDBOX_URL: baseUrl, PUBLIC_BASE_URL: serviceUrl };
  return { ...(await startEntry('sandbox', 'sandbox.ts', env, answers(baseUrl))), baseUrl };
}

/** Our worker (worker.ts): workflows, activities and the chain watchers, on `taskQueue`. */
export async function startOurWorker(
  stack: Stack,
  input: { taskQueue: string; publicBaseUrl: string; sandboxUrl: string; sqlCountDir?: string },
): Promise<Child> {
  const count = counting(input.sqlCountDir);
  const env = {
    ...stack.env,
    TEMPORAL_TASK_QUEUE: input.taskQueue,
    PUBLIC_BASE_URL: input.publicBaseUrl,
    SANDBOX_URL: input.sandboxUrl,
    SANDBOX_PORT: new URL(input.sandboxUrl).port,
    ...count.env,
  };
  // BENCH_WORKER_CPU_PROF=<dir>: the same for the worker (where a payment's worker CPU goes).
  const profile = process.env.BENCH_WORKER_CPU_PROF;
  const flags = [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), ...count.flags];
  return startEntry('worker', 'worker.ts', env, /polling task queue/, undefined, flags);
}

export const adminHeaders = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' };

async function call(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** An approved merchant with a USDC/polygon wallet and its live key, made through the admin API; with `webhookUrl`, an endpoint there. */
export async function createMerchant(baseUrl: string, webhookUrl?: string): Promise<{ id: string; apiKey: string }> {
  const created = await call(`${baseUrl}/admin/v1/merchants`, {
    method: 'POST',
    headers: adminHeaders,
    body: JSON.stringify({
      name: 'Bench Shop',
      wallets: [{ asset: 'USDC', network: 'polygon', address: BENCH_MERCHANT_WALLET }],
    }),
  });
  const id = (created.merchant as { id: string }).id;
  const approved = await call(`${baseUrl}/admin/v1/merchants/${id}/approve`, {
    method: 'POST',
    headers: { authorization: adminHeaders.authorization },
  });
  if (webhookUrl) {
    await call(`${baseUrl}/admin/v1/merchants/${id}/webhook-endpoints`, {
      method: 'POST',
      headers: adminHeaders,
      body: JSON.stringify({ url: webhookUrl }),
    });
  }
  return { id, apiKey: approved.apiKey as string };
}

/** The minimal implementation's worker (bench/minimal/worker.ts). */
export async function startMinimalWorker(
  stack: Stack,
  input: { taskQueue: string; webhookSecret: string; payOut?: boolean; sqlCountDir?: string },
): Promise<Child> {
  const count = counting(input.sqlCountDir);
  const env = {
    PAY_OUT: input.payOut ? '1' : '0',
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TASK_QUEUE: input.taskQueue,
    WEBHOOK_SECRET: input.webhookSecret,
    RPC_URL: stack.rpcUrl,
    USDC: stack.tokens.polygon.USDC,
    ...count.env,
  };
  return startEntry('minimal-worker', 'bench/minimal/worker.ts', env, /polling task queue/, undefined, count.flags);
}
