import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { deliverySignatureHeaders } from '../src/domain/signatures';
import { exampleBlock } from './support/guides';
import { freePort } from './support/free-port';
import { ADMIN_TOKEN, adminHeaders, createApprovedMerchant, useTestApp } from './support/harness';
import { eventually, http } from './support/http';
import { ownTreasury } from './payouts/support';
import { balanceOf } from './support/chain';
import type { Address } from 'viem';

// The guides' code examples run as written. Blocks marked `<!-- example: name -->` are taken as
// they stand from whichever guide holds them (README.md or a file under docs/): the Express webhook
// receiver (docs/webhooks.md) runs as its own process (with the verifier file copied beside it, as
// the guide says) and verifies the service's real deliveries; the first payment's curl lines (the
// README) run in bash against the whole stack, with only the placeholders (ids, the key, ports)
// filled in.
vi.setConfig({ testTimeout: 120_000 });
const own = ownTreasury();
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const ROOT = path.resolve(__dirname, '..');
const TSX_CLI = require.resolve('tsx/cli');
const run = promisify(execFile);
const children: ChildProcess[] = [];
// Inside the project, so that `import express from 'express'` resolves from its node_modules.
mkdirSync(path.join(ROOT, 'test', '.artifacts'), { recursive: true });
const workDir = mkdtempSync(path.join(ROOT, 'test', '.artifacts', 'readme-examples-'));
afterAll(() => {
  for (const child of children) child.kill();
  rmSync(workDir, { recursive: true, force: true });
});

/** The curl commands of a shell block, continuation lines joined. */
function curlCommands(code: string): string[] {
  return code
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('curl '));
}

async function bash(command: string, env: Record<string, string> = {}, cwd = workDir): Promise<string> {
  const { stdout } = await run('bash', ['-c', command], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
  return stdout;
}

const values: Record<string, string> = {};
function fill(command: string): string {
  const chainUrl = ctx.config.chains.networks.find((n) => n.network === 'polygon')!.rpcUrl;
  const filled = command
    .replaceAll('http://127.0.0.1:3000', ctx.baseUrl)
    .replaceAll('http://127.0.0.1:3100', ctx.config.providers.sandbox.url)
    .replaceAll('http://127.0.0.1:8545', chainUrl)
    .replaceAll('svc_live_…', values.liveKey ?? 'svc_live_…')
    .replaceAll('SV_…', values.paymentId ?? 'SV_…')
    .replaceAll('<transactionHash>', values.transactionHash ?? '<transactionHash>')
    .replaceAll('<topUpAddress>', values.topUpAddress ?? '<topUpAddress>');
  expect(filled, 'a placeholder no earlier step filled').not.toMatch(/…|<transactionHash>|<topUpAddress>/);
  return filled;
}

describe('the guides’ examples, run as written', () => {
  const firstPayment = curlCommands(exampleBlock('first-payment').code);
  let webhookUrl = '';
  let secret = '';

  it('the Express webhook receiver starts as written', async () => {
    const express = exampleBlock('express-webhook');
    expect(express.lang).toBe('ts');
    const merchant = await createApprovedMerchant(ctx.app);
    values.liveKey = merchant.apiKey;
    const port = await freePort();
    webhookUrl = `http://127.0.0.1:${port}/webhooks/svc`;
    const added = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${merchant.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: webhookUrl },
    });
    expect(added.statusCode).toBe(201);
    secret = added.json().secret as string;
    copyFileSync(path.join(ROOT, 'packages', 'verify-webhook', 'verify.ts'), path.join(workDir, 'verify.ts'));
    writeFileSync(path.join(workDir, 'server.ts'), express.code);
    const child = spawn(process.execPath, [TSX_CLI, 'server.ts'], {
      cwd: workDir,
      env: { PATH: process.env.PATH ?? '', PORT: String(port), SVC_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const unsigned = await eventually(
      () => fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(() => null),
      (res) => res !== null || child.exitCode !== null,
      30_000,
      'the Express app listening',
    );
    expect(child.exitCode, stderr).toBeNull();
    expect(unsigned!.status).toBe(400);
    expect(await unsigned!.text()).toBe('missing_signature');
  });

  it('the first payment’s curl lines: create, pay, read the transaction, the admin view, the receipt, a top-up and a refund', async () => {
    expect(firstPayment).toHaveLength(8);
    const [create, pay, transaction, admin, receipt, balance, faucet, refund] = firstPayment as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];

    const created = JSON.parse(await bash(fill(create)));
    expect(created).toMatchObject({ ok: true, checkoutSession: { id: expect.stringMatching(/^SV_/), orderId: '1001' } });
    values.paymentId = created.checkoutSession.id as string;

    const paid = JSON.parse(await bash(fill(pay)));
    expect(paid).toMatchObject({ ok: true });
    // `npm run ops -- payments wait` in the first payment (test/cli/readme.test.ts runs it); here the admin view, polled.
    const adminView = () => ctx.app.inject({ method: 'GET', url: `/admin/v1/payments/${values.paymentId}`, headers: adminHeaders });
    await eventually(
      async () => (await adminView()).json(),
      (b) => b.payment?.status === 'completed' || b.status === 'completed',
      60_000,
      'the payment completed',
    );

    const tx = JSON.parse(await bash(fill(transaction)));
    expect(tx).toMatchObject({ ok: true, transaction: { status: 'completed' } });
    expect(JSON.stringify(tx)).toContain(values.paymentId);

    // The payout's transaction, once confirmed, is what the first payment reads from the node.
    const settled = await eventually(
      async () =>
        (
          await http('GET', `${ctx.baseUrl}/api/v1/transactions/${values.paymentId}`, {
            headers: { authorization: `Bearer ${values.liveKey}` },
          })
        ).json,
      (b) => typeof b.transaction?.transactionHash === 'string',
      60_000,
      'the payout confirmed',
    );
    values.transactionHash = settled.transaction.transactionHash as string;

    // The admin step with ADMIN_TOKEN set (no token file here), and with only the file `npm start` writes.
    // Read once every payout is confirmed (the sweep of its deposit, then the merchant’s payout),
    // so the second read below has nothing left to change.
    const byEnv = await eventually(
      async () => JSON.parse(await bash(fill(admin), { ADMIN_TOKEN })) as { ok: boolean; payouts?: { status: string }[] },
      (b) => (b.payouts ?? []).length > 0 && b.payouts!.every((p) => p.status === 'confirmed'),
      60_000,
      'every payout confirmed in the admin view',
    );
    expect(byEnv).toMatchObject({ ok: true });
    expect(JSON.stringify(byEnv)).toContain(values.paymentId);
    mkdirSync(path.join(workDir, '.data'), { recursive: true });
    writeFileSync(path.join(workDir, '.data', 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    expect(JSON.parse(await bash(fill(admin)))).toEqual(byEnv);

    const onChain = JSON.parse(await bash(fill(receipt)));
    expect(onChain.result).toMatchObject({ transactionHash: values.transactionHash, status: '0x1' });

    // Paid out to zero, the merchant tops up its own address and the refund draws on that.
    const paidOut = JSON.parse(await bash(fill(balance)));
    expect(paidOut.balances).toContainEqual(expect.objectContaining({ network: 'polygon', asset: 'USDC', available: '0.000000' }));
    values.topUpAddress = paidOut.topUpAddresses.find((t: { network: string }) => t.network === 'polygon').address as string;
    expect(JSON.parse(await bash(fill(faucet)))).toMatchObject({ ok: true, address: values.topUpAddress, amount: '5.000000' });
    await eventually(
      async () => JSON.parse(await bash(fill(balance))).balances as { network: string; asset: string; available: string }[],
      (lines) => lines.some((l) => l.network === 'polygon' && l.asset === 'USDC' && l.available === '5.000000'),
      30_000,
      'the top-up available',
    );
    const customer = /"address": "(0x[0-9a-fA-F]{40})"/.exec(refund)![1] as Address;
    const usdc = own.chain.tokens.polygon.USDC;
    const before = await balanceOf(own.chain, usdc, customer);
    const refunded = JSON.parse(await bash(fill(refund)));
    expect(refunded).toMatchObject({ ok: true, refund: { amount: '1.000000', status: expect.stringMatching(/^(requested|refunded)$/) } });
    await eventually(
      () => balanceOf(own.chain, usdc, customer),
      (b) => b === before + 1_000_000n,
      60_000,
      'the refund on chain',
    );
  });

  it('the Express receiver verified the service’s real deliveries, and refuses a tampered one', async () => {
    const deliveries = await eventually(
      async () =>
        ctx.db.sql`select status, last_status_code from webhook_deliveries where payment_id = ${values.paymentId!} and url = ${webhookUrl}`,
      (rows) => rows.length >= 2 && rows.every((r) => r.status === 'succeeded'),
      30_000,
      'deliveries to the Express app',
    );
    expect(deliveries.map((d) => d.last_status_code)).toEqual(deliveries.map(() => 200));
    const [event] = await ctx.db
      .sql`select e.body from events e join webhook_deliveries d on d.event_id = e.id where d.payment_id = ${values.paymentId!} and e.type = 'payment.completed' limit 1`;
    const t = Math.floor(Date.now() / 1000);
    const headers = deliverySignatureHeaders(secret, 'evt_x', t, event!.body as string);
    const post = (body: string) => fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post(event!.body as string)).status).toBe(200);
    const tampered = await post((event!.body as string).replace('"completed"', '"failed"'));
    expect(tampered.status).toBe(400);
    expect(await tampered.text()).toBe('bad_signature');
  });
});
