import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { readOrCreateSecret } from '../tools/dev/local-secrets';
import { adminDatabaseUrl, databaseUrlFor } from './support/databases';
import { freePort } from './support/free-port';
import { http } from './support/http';

// `npm start` as a user runs it: a real process with a fresh data directory and a database that
// does not exist yet, its own Temporal dev server, then Ctrl-C.

const ROOT = path.resolve(__dirname, '..');
const TSX_CLI = require.resolve('tsx/cli');
const BANNER = /svc checkout is running/;

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function runStart(env: Record<string, string>): Started {
  // Only what is given here: nothing of the developer's or vitest's environment leaks in.
  const child = spawn(process.execPath, [TSX_CLI, 'scripts/start.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

function waitForOutput(run: Started, pattern: RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} after ${timeoutMs} ms:\n${run.output()}`)), timeoutMs);
    const check = () => {
      if (!pattern.test(run.output())) return;
      clearTimeout(timer);
      resolve();
    };
    run.child.stdout!.on('data', check);
    void run.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`start exited with ${code} before ${pattern}:\n${run.output()}`));
    });
  });
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  ]);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The way a user would stop it, and then harder, so that a failed test leaves nothing running. */
async function stop(run: Started | undefined): Promise<void> {
  if (!run || run.child.exitCode !== null || run.child.signalCode !== null) return;
  run.child.kill('SIGINT');
  await within(run.exited, 25_000, 'stop').catch(() => run.child.kill('SIGKILL'));
}

describe('npm start', () => {
  const tempDirs: string[] = [];
  const databases: string[] = [];
  const runs: Started[] = [];

  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-start-'));
    tempDirs.push(dir);
    return dir;
  };

  afterAll(async () => {
    for (const run of runs) await stop(run);
    const sql = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
    try {
      for (const name of databases) await sql.unsafe(`drop database if exists "${name}" with (force)`);
    } finally {
      await sql.end();
    }
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the service, worker, sandbox and a Temporal dev server on a fresh machine, takes a payment, then stops on Ctrl-C', async () => {
    const dataDir = tempDir();
    const database = `svc_start_${randomBytes(5).toString('hex')}`;
    databases.push(database);
    const [apiPort, sandboxPort, temporalPort, uiPort, chainPort, mailPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const startedAt = Date.now();
    const run = runStart({
      PORT: String(apiPort),
      SANDBOX_PORT: String(sandboxPort),
      TEMPORAL_DEV_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      CHAIN_DEV_PORT: String(chainPort),
      MAIL_SINK_PORT: String(mailPort),
      SVC_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrlFor(database),
    });
    runs.push(run);
    await waitForOutput(run, BANNER, 90_000);
    const readyAfterMs = Date.now() - startedAt;

    const base = `http://127.0.0.1:${apiPort}`;
    const ready = await http('GET', `${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.json.checks).toEqual({ postgres: 'ok', temporal: 'ok' });
    // The merchant dashboard and the local mail sink's mailbox come with it.
    expect((await http('GET', `${base}/dashboard/`)).status).toBe(200);
    expect((await http('GET', `${base}/dashboard/dev/mail`)).status).toBe(200);

    const tokenFile = path.join(dataDir, 'admin-token');
    const keyFile = path.join(dataDir, 'secrets.key');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    const token = readFileSync(tokenFile, 'utf8').trim();
    const settings = await http('GET', `${base}/admin/v1/settings/payments`, { headers: { authorization: `Bearer ${token}` } });
    expect(settings.status).toBe(200);

    const banner = run.output();
    expect(banner).toContain(`${base}/api/v1`);
    expect(banner).toContain(`${base}/docs`);
    expect(banner).toContain(`${base}/api/v1/openapi.json`);
    expect(banner).toContain(`http://127.0.0.1:${uiPort}`);
    expect(banner).toContain(tokenFile);
    expect(banner).toContain('npm run ops -- --help');
    expect(banner).not.toContain(token);
    expect(banner).not.toContain(readFileSync(keyFile, 'utf8').trim());

    const sql = postgres(databaseUrlFor(database), { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`select to_regclass('public.merchants')::text as merchants`;
      expect(row?.merchants).toBe('merchants');
    } finally {
      await sql.end();
    }

    const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(ui.status).toBeLessThan(500);
    await ui.body?.cancel();
    expect(statSync(path.join(dataDir, 'temporal.sqlite')).isFile()).toBe(true);

    // The local chain: four EVM networks on one anvil, their tokens remembered in the data directory,
    // and the faucet minting on it.
    const chains = await http('GET', `${base}/admin/v1/chains`, { headers: { authorization: `Bearer ${token}` } });
    expect(chains.status).toBe(200);
    expect(chains.json.chains.map((c: { network: string }) => c.network)).toEqual(['ethereum', 'polygon', 'base', 'arbitrum']);
    const remembered = JSON.parse(readFileSync(path.join(dataDir, 'chain-tokens.json'), 'utf8'));
    expect(chains.json.chains[1]).toMatchObject({ rpcUrl: `http://127.0.0.1:${chainPort}`, chainId: 31337, tokens: remembered.polygon });
    const sweepers = JSON.parse(readFileSync(path.join(dataDir, 'chain-sweepers.json'), 'utf8'));
    expect(chains.json.chains[1].sweeper).toBe(sweepers.polygon);
    expect(banner).toContain(`http://127.0.0.1:${chainPort}`);
    const minted = await http('POST', `http://127.0.0.1:${sandboxPort}/test-helpers/faucet`, {
      body: { network: 'polygon', asset: 'USDC', address: '0x52908400098527886E0F7030069857D2E4169EE7', amount: 5 },
    });
    expect(minted.status).toBe(200);

    // A first payment through everything npm start runs: admin API, merchant API, the worker,
    // the sandbox provider's test helper and its signed callbacks.
    const admin = { authorization: `Bearer ${token}` };
    const merchant = await http('POST', `${base}/admin/v1/merchants`, {
      headers: admin,
      body: { name: 'Start Shop', wallets: [{ asset: 'USDC', network: 'polygon', address: '0x52908400098527886E0F7030069857D2E4169EE7' }] },
    });
    const approved = await http('POST', `${base}/admin/v1/merchants/${merchant.json.merchant.id}/approve`, { headers: admin });
    const key = { authorization: `Bearer ${approved.json.apiKey}` };
    const session = await http('POST', `${base}/api/v1/checkout/sessions`, {
      headers: key,
      body: { amount: 25, currency: 'USD', countryCode: 'US' },
    });
    expect(session.status).toBe(201);
    const id = session.json.checkoutSession.id as string;
    const paid = await http('POST', `http://127.0.0.1:${sandboxPort}/test-helpers/pay`, { body: { reference: id, outcome: 'succeeded' } });
    expect(paid.status).toBe(200);
    const deadline = Date.now() + 20_000;
    let status = '';
    while (Date.now() < deadline && status !== 'completed') {
      status = (await http('GET', `${base}/api/v1/checkout/sessions/${id}`)).json.status as string;
      if (status !== 'completed') await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe('completed');

    const stoppingAt = Date.now();
    run.child.kill('SIGINT');
    expect(await within(run.exited, 20_000, 'exit after SIGINT')).toBe(0);
    const stoppedAfterMs = Date.now() - stoppingAt;
    expect(await accepts(apiPort)).toBe(false);
    expect(await accepts(sandboxPort)).toBe(false);
    expect(await accepts(temporalPort)).toBe(false);
    expect(await accepts(chainPort)).toBe(false);
    // anvil wrote its state on the way out, so the tokens survive a restart.
    expect(statSync(path.join(dataDir, 'anvil-state.json')).size).toBeGreaterThan(1000);
    console.log(`npm start: ready after ${readyAfterMs} ms, stopped ${stoppedAfterMs} ms after SIGINT`);
  }, 150_000);

  it('refuses an invalid configuration before starting anything, naming the variable', async () => {
    const run = runStart({ PORT: 'notaport', SVC_DATA_DIR: tempDir(), TEMPORAL_DEV_PORT: String(await freePort()) });
    runs.push(run);
    const code = await within(run.exited, 30_000, 'exit on a bad PORT');
    expect(code).not.toBe(0);
    expect(run.output()).toMatch(/PORT: /);
    expect(run.output()).not.toContain('Temporal dev server');
  }, 60_000);

  it('generates a local secret once, owner-only, and keeps it across restarts', () => {
    const file = path.join(tempDir(), 'admin-token');
    const first = readOrCreateSecret(file, () => 'first-value-0123456789abcdef');
    const second = readOrCreateSecret(file, () => 'second-value-0123456789abcdef');
    expect(first).toMatchObject({ value: 'first-value-0123456789abcdef', created: true });
    expect(second).toMatchObject({ value: 'first-value-0123456789abcdef', created: false });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    chmodSync(file, 0o644);
    expect(readOrCreateSecret(file, () => 'unused').warning).toContain('chmod 600');
  });
});
