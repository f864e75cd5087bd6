import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, adminHeaders, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { seedPayment } from '../support/seed-payment';
import { expectOk, runOpsHere, spawnOps, type Env } from './run-ops';

// The first command starts its own tsx process (a second or two, more on a loaded 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

// The ops CLI as operators run it, speaking HTTP to a real listening service. The first command is
// a real process, as `npm run ops` starts it (its environment, output and exit status); the others
// run the same program in this process with an environment of their own (runOpsHere).

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const TRON = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const LIVE_KEY = /svc_live_[A-Za-z0-9]{32}/;
const SECURITY_CODE = /[A-HJ-NP-Z2-9]{6}(-[A-HJ-NP-Z2-9]{6}){3}/;
const SHOWN_ONCE = 'shown once, store it now';

// What the API has answered (method and path), so a test can wait for the CLI's own request.
const answered: string[] = [];
const ctx = useTestApp(
  {},
  {
    listen: true,
    extend: (app) => app.addHook('onResponse', async (req, reply) => void answered.push(`${req.method} ${req.url} ${reply.statusCode}`)),
  },
);
// An empty data dir, so that no developer's .data/admin-token can leak into a run.
let dataDir = '';
beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-cli-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const envOf = (env: Env): Env => ({ SVC_URL: ctx.baseUrl, ADMIN_TOKEN, SVC_DATA_DIR: dataDir, ...env });
const spawned = (args: string[], env: Env = {}) => spawnOps(args, envOf(env));
const ops = (args: string[], env: Env = {}) => runOpsHere(args, envOf(env));

const admin = async (method: 'GET' | 'PUT', url: string) => (await ctx.app.inject({ method, url, headers: adminHeaders })).json();
const getMerchant = async (id: string) => (await admin('GET', `/admin/v1/merchants/${id}`)).merchant;

describe('ops CLI: an operator story against the admin API', () => {
  let merchantId = '';
  let firstSecurityCode = '';
  let liveKey = '';

  it('creates a merchant with a wallet (--json prints the raw answer)', async () => {
    const run = expectOk(
      await spawned([
        'merchants',
        'create',
        '--name',
        'Corner Shop',
        '--commission-bps',
        '150',
        '--wallet',
        `usdc:polygon:${EVM}`,
        '--json',
      ]),
    );
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
    expect(restricted).toEqual([
      expect.objectContaining({ prefix: key!.slice(0, 12), scopes: ['transactions:read', 'checkout_sessions:create'] }),
    ]);
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

describe('ops CLI: webhook endpoints', () => {
  it('adds an endpoint with --url (the service address is --api-url), lists, disables, enables and deletes it', async () => {
    const merchantId = (
      await ctx.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: adminHeaders, payload: { name: 'Hooks' } })
    ).json().merchant.id as string;
    // --api-url given explicitly, with SVC_URL pointing nowhere: the flag wins, and --url is the endpoint's.
    const added = expectOk(
      await ops(['webhooks', 'add', merchantId, '--url', 'http://127.0.0.1:9/hook', '--api-url', ctx.baseUrl], {
        SVC_URL: 'http://127.0.0.1:1',
      }),
    );
    const [, endpointId, secret] =
      /^endpoint (we_\w+) http:\/\/127\.0\.0\.1:9\/hook \(enabled\)\nsigning secret: (whsec_\w+)\n/.exec(added.stdout) ?? [];
    expect(endpointId).toBeDefined();
    expect(added.stdout).toContain(SHOWN_ONCE);
    const second = JSON.parse(expectOk(await ops(['webhooks', 'add', merchantId, '--url', 'http://127.0.0.1:9/other', '--json'])).stdout);

    const list = expectOk(await ops(['webhooks', 'list', merchantId]));
    expect(list.stdout).toBe(`${endpointId} http://127.0.0.1:9/hook (enabled)\n${second.endpoint.id} http://127.0.0.1:9/other (enabled)\n`);
    expect(list.stdout).not.toContain(secret);

    expect(expectOk(await ops(['webhooks', 'disable', merchantId, endpointId!])).stdout).toBe(
      `disabled ${endpointId} http://127.0.0.1:9/hook (disabled)\n`,
    );
    expect(await ctx.db.sql`select enabled from webhook_endpoints where id = ${endpointId!}`).toEqual([{ enabled: false }]);
    expect(expectOk(await ops(['webhooks', 'list', merchantId])).stdout).toContain(`${endpointId} http://127.0.0.1:9/hook (disabled)`);
    expect(expectOk(await ops(['webhooks', 'enable', merchantId, endpointId!])).stdout).toContain('(enabled)');

    expect(expectOk(await ops(['webhooks', 'delete', merchantId, endpointId!])).stdout).toBe(
      `deleted endpoint ${endpointId} http://127.0.0.1:9/hook\n`,
    );
    expect(expectOk(await ops(['webhooks', 'list', merchantId, '--json'])).stdout).not.toContain(endpointId);
    const again = await ops(['webhooks', 'delete', merchantId, endpointId!]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error 404 NotFound: Webhook endpoint not found\./);
  });

  it('a merchant without endpoints lists none', async () => {
    const merchantId = (
      await ctx.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: adminHeaders, payload: { name: 'Quiet' } })
    ).json().merchant.id as string;
    expect(expectOk(await ops(['webhooks', 'list', merchantId])).stdout).toBe('no webhook endpoints\n');
  });
});

describe('ops CLI: payments wait', () => {
  const merchant = async () =>
    (await ctx.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: adminHeaders, payload: { name: 'Waits' } })).json()
      .merchant.id as string;

  it('prints a finished payment’s status and settlement at once', async () => {
    const id = await seedPayment(ctx.db.db, await merchant(), 'completed');
    const run = expectOk(await ops(['payments', 'wait', id]));
    expect(run.stdout.split('\n')[0]).toBe(`payment ${id} completed`);
    expect(run.stdout).toMatch(/amount\s+25\.00 USD/);
    expect(run.stdout).toMatch(/settled\s+25\.000000 USDC on polygon/);
    expect(run.stdout).toMatch(/commission\s+0\.375000/);
  });

  it('a failed payment is final too: exit 0, with the reason', async () => {
    const id = await seedPayment(ctx.db.db, await merchant(), 'failed');
    const run = expectOk(await ops(['payments', 'wait', id, '--json']));
    expect(JSON.parse(run.stdout)).toMatchObject({
      payment: { id, status: 'failed', terminal: true },
      transaction: { failureReason: 'declined' },
    });
  });

  it('waits while the payment is pending and returns when it completes', async () => {
    const id = await seedPayment(ctx.db.db, await merchant(), 'pending');
    const waiting = ops(['payments', 'wait', id, '--timeout', '30']);
    // The CLI has read the payment once, as pending, before it changes.
    await eventually(
      async () => answered.filter((a) => a.startsWith('GET ') && a.includes(`/payments/${id} 200`)).length,
      (n) => n > 0,
      20_000,
      'the CLI to read the payment',
    );
    await ctx.db.sql`update checkout_sessions set status = 'canceled' where id = ${id}`;
    const run = expectOk(await waiting);
    expect(run.stdout.split('\n')[0]).toBe(`payment ${id} canceled`);
  });

  it('gives up after --timeout with exit 1, naming the status', async () => {
    const id = await seedPayment(ctx.db.db, await merchant(), 'pending');
    const started = Date.now();
    const run = await ops(['payments', 'wait', id, '--timeout', '1']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`error: ${id} is still pending after 1 s\n`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('an unknown payment is a 404 at once, exit 1', async () => {
    const run = await ops(['payments', 'wait', 'SV_doesnotexist']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error 404 NotFound: Payment not found\./);
  });
});
