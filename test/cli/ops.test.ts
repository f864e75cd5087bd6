import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands';
import { freePort } from '../support/free-port';
import { ADMIN_TOKEN, adminHeaders, useTestApp } from '../support/harness';

// The ops CLI as operators run it: a real process speaking HTTP to a real listening service.

const ROOT = path.resolve(__dirname, '../..');
const TSX_CLI = require.resolve('tsx/cli');
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const TRON = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const LIVE_KEY = /svc_live_[A-Za-z0-9]{32}/;
const SECURITY_CODE = /[A-HJ-NP-Z2-9]{6}(-[A-HJ-NP-Z2-9]{6}){3}/;
const SHOWN_ONCE = 'shown once, store it now';

const ctx = useTestApp();
let serviceUrl: string;
// An empty data dir, so that no developer's .data/admin-token can leak into a run.
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-cli-'));

beforeAll(async () => {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  serviceUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Asynchronous on purpose: a synchronous spawn would block the very event loop that serves the CLI.
function ops(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const fullEnv = { PATH: process.env.PATH ?? '', SVC_URL: serviceUrl, ADMIN_TOKEN, SVC_DATA_DIR: dataDir, ...env };
  const definedEnv = Object.fromEntries(Object.entries(fullEnv).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX_CLI, 'src/cli/ops.ts', ...args], { cwd: ROOT, env: definedEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const admin = async (method: 'GET' | 'PUT', url: string) => (await ctx.app.inject({ method, url, headers: adminHeaders })).json();
const getMerchant = async (id: string) => (await admin('GET', `/admin/v1/merchants/${id}`)).merchant;

function expectOk(run: Run): Run {
  expect(run.stderr, run.stdout).toBe('');
  expect(run.code).toBe(0);
  return run;
}

describe('ops CLI: an operator story against the admin API', () => {
  let merchantId = '';
  let firstSecurityCode = '';
  let liveKey = '';

  it('creates a merchant with a wallet (--json prints the raw answer)', async () => {
    const run = expectOk(await ops(['merchants', 'create', '--name', 'Corner Shop', '--commission-bps', '150', '--wallet', `usdc:polygon:${EVM}`, '--json']));
    const body = JSON.parse(run.stdout);
    expect(body).toMatchObject({ ok: true, merchant: { name: 'Corner Shop', status: 'pending_review', commissionBps: 150, apiKeys: [] } });
    expect(body.merchant.wallets).toEqual([expect.objectContaining({ asset: 'USDC', network: 'polygon', address: EVM })]);
    expect(body.securityCode).toMatch(SECURITY_CODE);
    merchantId = body.merchant.id;
    firstSecurityCode = body.securityCode;
    expect((await getMerchant(merchantId)).status).toBe('pending_review');
  });

  it('approves it: the live key is printed once, with the warning', async () => {
    const run = expectOk(await ops(['merchants', 'approve', merchantId]));
    expect(run.stdout).toMatch(/status\s+approved/);
    const key = new RegExp(`live key: (${LIVE_KEY.source})`).exec(run.stdout)?.[1];
    expect(key).toBeDefined();
    expect(run.stdout).toContain(SHOWN_ONCE);
    liveKey = key!;

    const merchant = await getMerchant(merchantId);
    expect(merchant.status).toBe('approved');
    expect(merchant.apiKeys).toEqual([expect.objectContaining({ kind: 'live', prefix: liveKey.slice(0, 12), last4: liveKey.slice(-4) })]);
  });

  it('gets it, showing keys by display prefix only and no secret', async () => {
    const [human, json] = await Promise.all([ops(['merchants', 'get', merchantId]), ops(['merchants', 'get', merchantId, '--json'])]);
    expectOk(human);
    expectOk(json);
    expect(human.stdout).toContain(`merchant ${merchantId} "Corner Shop"`);
    expect(human.stdout).toContain(`USDC/polygon ${EVM}`);
    expect(human.stdout).toContain(`${liveKey.slice(0, 12)}…${liveKey.slice(-4)}`);
    expect(JSON.parse(json.stdout).merchant.id).toBe(merchantId);
    for (const out of [human.stdout, json.stdout]) {
      expect(out).not.toContain(liveKey);
      expect(out).not.toContain(firstSecurityCode);
      expect(out).not.toMatch(LIVE_KEY);
      expect(out).not.toMatch(/hash/i);
      expect(out).not.toContain(SHOWN_ONCE);
    }
  });

  it('issues a restricted key', async () => {
    const run = expectOk(await ops(['keys', 'create', merchantId, '--scopes', 'transactions:read, checkout_sessions:create']));
    const key = LIVE_KEY.exec(run.stdout)?.[0];
    expect(key).toBeDefined();
    expect(key).not.toBe(liveKey);
    expect(run.stdout).toContain(SHOWN_ONCE);
    expect(run.stdout).toContain('[transactions:read, checkout_sessions:create]');

    const restricted = (await getMerchant(merchantId)).apiKeys.filter((k: { kind: string }) => k.kind === 'restricted');
    expect(restricted).toEqual([expect.objectContaining({ prefix: key!.slice(0, 12), scopes: ['transactions:read', 'checkout_sessions:create'] })]);
  });

  it('rotates the live key, printing when the previous one expires', async () => {
    const before = Date.now();
    const run = expectOk(await ops(['keys', 'rotate', merchantId]));
    const key = new RegExp(`new live key: (${LIVE_KEY.source})`).exec(run.stdout)?.[1];
    expect(key).toBeDefined();
    expect(key).not.toBe(liveKey);
    expect(run.stdout).toContain(SHOWN_ONCE);
    const expiresAt = /previous key expires at (\S+)/.exec(run.stdout)?.[1];
    expect(expiresAt).toBeDefined();
    expect(Date.parse(expiresAt!) - before).toBeGreaterThan(23.9 * 3600_000);

    const keys = (await getMerchant(merchantId)).apiKeys;
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ prefix: liveKey.slice(0, 12), last4: liveKey.slice(-4), expiresAt }),
        expect.objectContaining({ kind: 'live', prefix: key!.slice(0, 12), expiresAt: null }),
      ]),
    );
  });

  it('rotates the security code', async () => {
    const before = (await getMerchant(merchantId)).securityCodeRotatedAt;
    const run = expectOk(await ops(['security-code', 'rotate', merchantId]));
    const code = new RegExp(`new security code: (${SECURITY_CODE.source})`).exec(run.stdout)?.[1];
    expect(code).toBeDefined();
    expect(code).not.toBe(firstSecurityCode);
    expect(run.stdout).toContain(SHOWN_ONCE);
    expect(Date.parse((await getMerchant(merchantId)).securityCodeRotatedAt)).toBeGreaterThan(Date.parse(before));
  });

  it('sets a wallet for another pair', async () => {
    const run = expectOk(await ops(['wallets', 'set', merchantId, '--asset', 'USDT', '--network', 'tron', '--address', TRON]));
    expect(run.stdout).toContain(`wallet set: USDT/tron ${TRON}`);
    expect((await getMerchant(merchantId)).wallets).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ asset: 'USDC', network: 'polygon', address: EVM }),
        expect.objectContaining({ asset: 'USDT', network: 'tron', address: TRON }),
      ]),
    );
  });

  it('disables payments, reads the switch, and enables them again', async () => {
    const off = expectOk(await ops(['payments', 'disable']));
    expect(off.stdout).toContain('payments: DISABLED');
    expect(await admin('GET', '/admin/v1/settings/payments')).toMatchObject({ enabled: false });
    expect(expectOk(await ops(['payments', 'status'])).stdout).toContain('payments: DISABLED');

    const on = expectOk(await ops(['payments', 'enable']));
    expect(on.stdout).toMatch(/^payments: enabled/);
    expect(await admin('GET', '/admin/v1/settings/payments')).toMatchObject({ enabled: true });
    expect(JSON.parse(expectOk(await ops(['payments', 'status', '--json'])).stdout)).toMatchObject({ ok: true, enabled: true });
  });

  it('suspends the merchant, and re-approving issues no new key', async () => {
    expect(expectOk(await ops(['merchants', 'suspend', merchantId])).stdout).toMatch(/status\s+suspended/);
    expect((await getMerchant(merchantId)).status).toBe('suspended');
    const again = expectOk(await ops(['merchants', 'approve', merchantId]));
    expect(again.stdout).toContain('no new key');
    expect(again.stdout).not.toMatch(LIVE_KEY);
  });

  it('prints the security code of a merchant created without --json once, with the warning', async () => {
    const run = expectOk(await ops(['merchants', 'create', '--name', 'Kiosk']));
    expect(run.stdout).toMatch(/status\s+pending_review/);
    expect(run.stdout).toMatch(/commission\s+100 bps/);
    expect(run.stdout).toMatch(new RegExp(`security code: ${SECURITY_CODE.source}\\n\\s+${SHOWN_ONCE}`));
  });
});

describe('ops CLI: failures', () => {
  it('a wrong token is refused: the error envelope on stderr, exit 1', async () => {
    const run = await ops(['merchants', 'get', 'MER_0000000000000000', '--token', 'wrong-token-0123456789abcdef']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error 401 Unauthorized: The admin token is invalid or missing\. \(request req_[A-Za-z0-9]+\)\n$/);
  });

  it('a refused request prints the validation details, exit 1', async () => {
    const run = await ops(['merchants', 'create', '--name', 'Bad Wallet', '--wallet', 'USDC:polygon:not-an-address']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error 422 ValidationError: .+ \(request req_\w+\)\n {2}wallets\.0\.address: Not a polygon address\.\n$/);
  });

  it('an unknown merchant is a 404', async () => {
    const run = await ops(['merchants', 'get', 'MER_0000000000000000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error 404 NotFound: Merchant not found\./);
  });

  it('no service at the URL: a message naming it, exit 1', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await ops(['payments', 'status'], { SVC_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach the admin API at ${url} (ECONNREFUSED)`);
  });

  it('reads the token from SVC_DATA_DIR/admin-token when neither flag nor env gives one', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ops-cli-token-'));
    try {
      const missing = await ops(['payments', 'status'], { ADMIN_TOKEN: undefined, SVC_DATA_DIR: dir });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(`no admin token: pass --token, set ADMIN_TOKEN, or run \`npm start\` once so that it writes ${path.join(dir, 'admin-token')}`);

      writeFileSync(path.join(dir, 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
      const run = expectOk(await ops(['payments', 'status'], { ADMIN_TOKEN: undefined, SVC_DATA_DIR: dir }));
      expect(run.stdout).toContain('payments: enabled');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [['merchants', 'frobnicate'], /unknown command: merchants frobnicate/],
    [['merchants', 'get'], /merchants get: missing <merchantId>/],
    [['merchants', 'get', 'MER_1', 'extra'], /unexpected argument: extra/],
    [['merchants', 'get', 'MER_1', '--bogus'], /Unknown option '--bogus'/],
    [['merchants', 'create'], /--name is required/],
    [['merchants', 'create', '--name', 'X', '--commission-bps', '1.5'], /--commission-bps must be a whole number/],
    [['merchants', 'create', '--name', 'X', '--wallet', 'USDC-polygon'], /--wallet must be ASSET:NETWORK:ADDRESS/],
    [['keys', 'create', 'MER_1', '--scopes', ' , '], /--scopes needs at least one scope/],
    [['payments', 'status', '--url', 'ftp://example.com'], /--url\/SVC_URL must be an http\(s\) URL/],
    [[], /no command given/],
  ])('usage error %j: exit 2', async (args, message) => {
    const run = await ops(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('an unknown command prints the usage', async () => {
    const run = await ops(['refunds', 'create']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command: refunds create');
    expect(run.stderr).toContain('Usage: npm run ops -- <command> [options]');
  });
});

describe('ops CLI: help', () => {
  it('--help and help list every command, exit 0', async () => {
    const runs = await Promise.all([ops(['--help']), ops(['help']), ops(['merchants', 'create', '-h'])]);
    for (const run of runs) {
      expectOk(run);
      for (const c of COMMANDS) expect(run.stdout).toContain(`  ${c.name}`);
      expect(run.stdout).toContain(path.join(dataDir, 'admin-token'));
    }
    expect(runs[0].stdout).toContain('merchants create --name NAME [--commission-bps BPS] [--wallet ASSET:NETWORK:ADDRESS ...]');
  });

  it('the command table is well formed: unique names, each option one type across commands', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    // The first parsing pass merges every command's options to find the command words.
    const types = new Map<string, string>();
    for (const c of COMMANDS) {
      for (const [name, spec] of Object.entries(c.options)) {
        const key = `${spec.type}${spec.multiple ? '[]' : ''}`;
        expect(types.get(name) ?? key, `--${name} in ${c.name}`).toBe(key);
        types.set(name, key);
      }
    }
  });
});
