import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../src/config';
import { prepareDatabase } from '../src/db/migrate';
import { ensureDashboardBuild } from '../tools/dev/dashboard-build';
import { startMailSink, type MailSink } from '../tools/dev/mail-sink';
import { generateAdminToken, generateSecretsKey, readOrCreateSecret } from '../tools/dev/local-secrets';
import { startLocalChain, type LocalChain } from '../tools/dev/local-chain';
import { settlementKeys } from '../src/chains/derivation';
import { DEV_SETTLEMENT_MNEMONIC } from '../src/domain/mnemonic';
import { portVariable, secretFileHints, withoutPassword } from '../tools/dev/start-env';
import { localUrl, portInUse, spawnEntryPoint, waitForHttpOk, type ChildHandle } from '../tools/dev/supervise';
import { ensureTemporalBinary, PROJECT_ROOT } from '../tools/temporal/cli-binary';
import { startDevServer, type DevServer } from '../tools/temporal/dev-server';

// `npm start`: the whole service on one machine with no setup. Being an entry point
// it reads the environment itself, fills in the local defaults, checks the result with the service's
// own config parser, and hands it to the child processes, which parse it again.

const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/svc';

const ENTRY_POINTS = [
  { name: 'server', entry: 'server.ts' },
  { name: 'worker', entry: 'worker.ts' },
  { name: 'sandbox', entry: 'sandbox.ts' },
];

const children: ChildHandle[] = [];
let devServer: Promise<DevServer> | undefined;
let localChain: Promise<LocalChain> | undefined;
let mailSink: MailSink | undefined;
let stopping = false;

async function main(): Promise<void> {
  // Empty counts as unset, as in src/config.ts.
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => !!e[1]));
  const dataDir = path.resolve(env.SVC_DATA_DIR ?? path.join(PROJECT_ROOT, '.data'));
  mkdirSync(dataDir, { recursive: true });
  const adminToken = env.ADMIN_TOKEN ? null : readOrCreateSecret(path.join(dataDir, 'admin-token'), generateAdminToken);
  const secretsKey = env.SECRETS_KEY ? null : readOrCreateSecret(path.join(dataDir, 'secrets.key'), generateSecretsKey);
  for (const s of [adminToken, secretsKey]) {
    if (s?.created) console.log(`Generated ${s.file} (mode 0600).`);
    if (s?.warning) console.warn(`warning: ${s.warning}`);
  }

  let config: Config;
  let devPorts: { grpc: number; ui: number } | null = null;
  let chainPort: number | null = null;
  let mailPort: number | null = null;
  try {
    // Without an SMTP server of the user's own, mail goes to a local sink whose
    // messages the development mailbox page (/dashboard/dev/mail) shows.
    if (!env.SMTP_URL) mailPort = portVariable(env, 'MAIL_SINK_PORT', 2525);
    // Any network pointed at a node of the user's own means no local chain, as TEMPORAL_ADDRESS does.
    if (!Object.keys(env).some((k) => /^CHAIN_[A-Z]+_RPC_URL$/.test(k))) chainPort = portVariable(env, 'CHAIN_DEV_PORT', 8545);
    if (!env.TEMPORAL_ADDRESS) {
      devPorts = { grpc: portVariable(env, 'TEMPORAL_DEV_PORT', 7233), ui: portVariable(env, 'TEMPORAL_UI_PORT', 8233) };
    }
    Object.assign(env, {
      NODE_ENV: 'development',
      ALLOW_PRIVATE_URLS: 'true',
      ALLOW_UNVERIFIED_NETWORKS: 'true',
      // The local stack pays through the sandbox provider (only when asked for).
      SANDBOX_ENABLED: 'true',
      DATABASE_URL: DEFAULT_DATABASE_URL,
      SETTLEMENT_MNEMONIC: DEV_SETTLEMENT_MNEMONIC,
      // A person reads these lines: pino-pretty here, JSON lines everywhere else.
      LOG_FORMAT: 'pretty',
      ...env,
      ...(adminToken ? { ADMIN_TOKEN: adminToken.value } : {}),
      ...(secretsKey ? { SECRETS_KEY: secretsKey.value } : {}),
      // Where the dev server will listen, so that the whole config is checked before anything starts.
      ...(devPorts ? { TEMPORAL_ADDRESS: `127.0.0.1:${devPorts.grpc}` } : {}),
      ...(mailPort ? { SMTP_URL: `smtp://127.0.0.1:${mailPort}`, DEV_MAILBOX_DIR: path.join(dataDir, 'mail') } : {}),
    });
    config = loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message + secretFileHints(err, { ADMIN_TOKEN: adminToken, SECRETS_KEY: secretsKey }));
    process.exit(1);
  }

  // A Temporal server already on the dev port would be connected to silently, and a taken API port
  // would only show up later as a server crash.
  const wanted: [number, string, string][] = [[config.http.port, config.http.host, 'PORT']];
  if (chainPort) wanted.push([chainPort, '127.0.0.1', 'CHAIN_DEV_PORT']);
  if (mailPort) wanted.push([mailPort, '127.0.0.1', 'MAIL_SINK_PORT']);
  if (devPorts) wanted.push([devPorts.grpc, '127.0.0.1', 'TEMPORAL_DEV_PORT'], [devPorts.ui, '127.0.0.1', 'TEMPORAL_UI_PORT']);
  for (const [port, host, variable] of wanted) {
    if (!(await portInUse(port, host))) continue;
    const hint = variable === 'TEMPORAL_DEV_PORT' ? ` To use the Temporal server there, set TEMPORAL_ADDRESS=127.0.0.1:${port}.` : '';
    throw new Error(`Port ${port} (${variable}) is already in use; is another \`npm start\` running?${hint}`);
  }

  let temporalUi: string | null = null;
  if (devPorts) {
    const dbFilename = path.join(dataDir, 'temporal.sqlite');
    const binary = ensureTemporalBinary();
    console.log(`Starting a Temporal dev server on 127.0.0.1:${devPorts.grpc} (state in ${dbFilename})…`);
    devServer = startDevServer({ binary, namespace: config.temporal.namespace, port: devPorts.grpc, uiPort: devPorts.ui, dbFilename });
    const started = await devServer;
    env.TEMPORAL_ADDRESS = started.address;
    temporalUi = started.uiUrl;
  } else {
    console.log(`Using the Temporal server at ${config.temporal.address}; no dev server started.`);
  }

  if (chainPort) {
    // The sweepers belong to the treasury of the mnemonic the service runs with (the dev one unless set).
    const treasury = settlementKeys(config.chains.settlementMnemonic!).treasury.address;
    localChain = startLocalChain({ dataDir, port: chainPort, treasury, log: (line) => console.log(line) });
    const started = await localChain;
    Object.assign(env, started.variables);
    config = loadConfig(env);
  } else {
    console.log(`Using the chain RPC endpoints of CHAIN_<NETWORK>_RPC_URL; no local chain started.`);
  }

  if (mailPort) {
    mailSink = await startMailSink({ dir: config.mail.devMailboxDir!, port: mailPort });
    console.log(`Mail goes to a local SMTP sink at ${mailSink.url} (messages in ${mailSink.dir}).`);
  }

  console.log(`Preparing the database ${withoutPassword(config.databaseUrl)} (created if missing, then migrated)…`);
  await prepareDatabase(config.databaseUrl);
  // The merchant dashboard's files (rebuilt only when dashboard/ or the lockfile changed).
  await ensureDashboardBuild((line) => console.log(line));

  if (stopping) return;
  for (const { name, entry } of ENTRY_POINTS) {
    const child = spawnEntryPoint(name, entry, { cwd: PROJECT_ROOT, env });
    children.push(child);
    void child.exited.then((status) => {
      if (stopping) return;
      console.error(`${name} exited unexpectedly (${status}); stopping everything.`);
      void shutdown(1);
    });
  }
  const readyz = `${localUrl(config.http.host, config.http.port)}/readyz`;
  if (!(await waitForHttpOk(readyz, READY_TIMEOUT_MS))) {
    throw new Error(`${readyz} did not answer 200 within ${READY_TIMEOUT_MS / 1000} s.`);
  }
  if (stopping) return;
  printBanner(config, temporalUi, adminToken?.file ?? null, chainPort ? (await localChain)!.chain.rpcUrl : null);
}

function printBanner(config: Config, temporalUi: string | null, adminTokenFile: string | null, localChainUrl: string | null): void {
  const base = config.http.publicBaseUrl;
  const rows = [
    ['API', `${base}/api/v1`],
    ['API docs', `${base}/docs`],
    ['Dashboard', `${base}/dashboard/ (merchants sign up here; mail sent goes to ${base}/dashboard/dev/mail)`],
    ['OpenAPI', `${base}/api/v1/openapi.json`],
    ['Temporal UI', temporalUi ?? `none (the Temporal server at ${config.temporal.address} is not ours)`],
    [
      'Sandbox',
      `${config.providers.sandbox.url} (the simulated provider; test helpers: POST ${config.providers.sandbox.url}/test-helpers/pay, …/faucet)`,
    ],
    [
      'Chain',
      localChainUrl
        ? `${localChainUrl} (anvil, chain id 31337; networks and tokens: GET /admin/v1/chains)`
        : 'the nodes of CHAIN_<NETWORK>_RPC_URL',
    ],
    ['Admin token', adminTokenFile ?? 'from ADMIN_TOKEN'],
    ['Operators', 'npm run ops -- --help'],
  ];
  const lines = rows.map(([label, value]) => `  ${`${label}:`.padEnd(13)} ${value}`);
  console.log(['', 'svc checkout is running; Ctrl-C stops everything.', ...lines, ''].join('\n'));
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(children.map((c) => c.stop(STOP_GRACE_MS)));
  // Only after the worker has finished its in-flight tasks, which need the server.
  const server = await devServer?.catch(() => undefined);
  const chain = await localChain?.catch(() => undefined);
  await Promise.all([
    server?.stop().catch((err: unknown) => console.error(`stopping the Temporal dev server: ${String(err)}`)),
    chain?.chain.stop().catch((err: unknown) => console.error(`stopping the local chain: ${String(err)}`)),
    mailSink?.stop().catch((err: unknown) => console.error(`stopping the mail sink: ${String(err)}`)),
  ]);
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.log(stopping ? 'Still stopping…' : `\n${signal}: stopping…`);
    void shutdown(0);
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  void shutdown(1);
});
