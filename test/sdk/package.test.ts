import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/verify-webhook';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';

// The SDK as an integrator gets it: `npm pack` of packages/sdk, installed from the tarball into an
// empty project outside the repository (from npm's cache where it can), then a typed script, checked
// by the TypeScript compiler against the installed declarations and run by node as an ES module and as
// CommonJS, against the running service: it creates a session, pages through the sessions and
// verifies a real delivery. Then the package's bin, `svc-checkout-sdk listen`, forwards the
// merchant's events to a local receiver with its one stable secret, resuming when a stream reaches its
// lifetime (4 s here).
const ctx = useTestApp({}, { listen: true, worker: true, eventStream: { intervalMs: 200, heartbeatMs: 1000, maxLifetimeMs: 4000 } });
const ROOT = path.resolve(__dirname, '..', '..');
const SDK_DIR = path.join(ROOT, 'packages', 'sdk');
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'svc-sdk-consumer-'));
const consumer = path.join(work, 'app');
const home = path.join(work, 'home');
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  rmSync(work, { recursive: true, force: true });
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
async function openSession(apiKey: string): Promise<string> {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: bearer(apiKey),
    body: { amount: 25, currency: 'USD', countryCode: 'US' },
  });
  expect(res.status).toBe(201);
  return res.json.checkoutSession.id as string;
}
async function expire(apiKey: string, id: string): Promise<void> {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/expire`, { headers: bearer(apiKey) });
  expect(res.status).toBe(200);
}

// The same program twice: once an ES module, once CommonJS (no top-level await there).
const PROGRAM = `
import { readFileSync } from 'node:fs';
import { CheckoutApiError, createSvcClient, parseWebhook, type WebhookEvent } from 'svc-checkout-sdk';

function about(event: WebhookEvent): string {
  switch (event.event) {
    case 'payment.expired':
      return \`expired \${event.sessionId} \${event.amount}\`;
    case 'payment.refunded':
      return \`refunded \${event.refund.transactionHash}\`;
    case 'webhook.test':
      return \`test \${event.endpointId}\`;
    default:
      return event.event;
  }
}

async function main(): Promise<void> {
  const svc = createSvcClient({ baseUrl: process.env.SVC_URL!, apiKey: process.env.SVC_API_KEY!, maxRetries: 1 });
  const created = await svc.POST('/api/v1/checkout/sessions', { body: { amount: 12.5, currency: 'USD', countryCode: 'US' } });
  // @ts-expect-error: the body is typed from the OpenAPI document, so a string amount does not compile.
  const wrong = () => svc.POST('/api/v1/checkout/sessions', { body: { amount: 'lots', currency: 'USD', countryCode: 'US' } });
  void wrong;
  const listed: string[] = [];
  for await (const session of svc.list('/api/v1/checkout/sessions', { limit: 2 })) listed.push(session.id);
  let settlements = 0;
  for await (const settlement of svc.list('/api/v1/settlements', { limit: 10 })) settlements += settlement.id ? 1 : 0;
  let error = '';
  try {
    await svc.GET('/api/v1/payment-sessions/{id}', { params: { path: { id: 'SV_000000000000000000000000' } } });
  } catch (e) {
    if (e instanceof CheckoutApiError) error = \`\${e.status} \${e.code} \${e.requestId ? 'with' : 'without'} request id\`;
  }
  const d = JSON.parse(readFileSync(process.env.DELIVERY_FILE!, 'utf8')) as { body: string; signature: string; secret: string };
  const parsed = parseWebhook(d.body, d.signature, d.secret);
  const tampered = parseWebhook(d.body.replace('"25.00"', '"2500.00"'), d.signature, d.secret);
  console.log(
    JSON.stringify({
      created: created.data.checkoutSession.id,
      status: created.response.status,
      listed,
      settlements,
      error,
      webhook: parsed.ok ? about(parsed.event) : parsed.reason,
      tampered: tampered.ok ? 'accepted' : tampered.reason,
    }),
  );
}
`;

describe('the packed SDK, installed outside the repository', () => {
  beforeAll(async () => {
    mkdirSync(consumer, { recursive: true });
    mkdirSync(home, { recursive: true });
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: SDK_DIR });
    const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    // The tarball carries the built package and nothing that reaches back into the repository.
    expect(files.map((f) => f.path)).toEqual(
      expect.arrayContaining(['lib/esm/index.js', 'lib/cjs/index.js', 'lib/cjs/bin.js', 'package.json']),
    );
    writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'integrator-app', private: true, version: '1.0.0' }));
    const typesNode = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', '@types', 'node', 'package.json'), 'utf8')).version as string;
    // From npm's cache where it has them (the repository's own install put them there); the registry otherwise.
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(work, filename), `@types/node@${typesNode}`],
      { cwd: consumer, env: { ...process.env, npm_config_update_notifier: 'false' } },
    );
    writeFileSync(path.join(consumer, 'esm.mts'), `${PROGRAM}\nawait main();\n`);
    writeFileSync(
      path.join(consumer, 'cjs.cts'),
      `${PROGRAM}\nvoid main().catch((e: unknown) => {\n  console.error(e);\n  process.exitCode = 1;\n});\n`,
    );
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          types: ['node'],
          outDir: 'out',
        },
        files: ['esm.mts', 'cjs.cts'],
      }),
    );
  }, 180_000);

  it('declares its own dependencies and brings no code from the repository', () => {
    const installed = JSON.parse(readFileSync(path.join(consumer, 'node_modules', 'svc-checkout-sdk', 'package.json'), 'utf8'));
    expect(Object.keys(installed.dependencies).sort()).toEqual(['eventsource-parser', 'openapi-fetch']);
    expect(existsSync(path.join(consumer, 'node_modules', 'openapi-fetch'))).toBe(true);
    const lib = readFileSync(path.join(consumer, 'node_modules', 'svc-checkout-sdk', 'lib', 'cjs', 'index.js'), 'utf8');
    expect(lib).not.toContain('../verify-webhook');
  });

  it('type-checks a program against its declarations, then runs it as ESM and as CommonJS against the service', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const added = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${receiver.url}/hooks` },
    });
    const secret = added.json().secret as string;
    const first = await openSession(m.apiKey);
    await openSession(m.apiKey);
    await expire(m.apiKey, first);
    const [delivery] = await eventually(
      async () => receiver.received,
      (r) => r.length === 1,
      20_000,
      'the payment.expired delivery',
    );
    const deliveryFile = path.join(work, 'delivery.json');
    writeFileSync(deliveryFile, JSON.stringify({ body: delivery!.rawBody, signature: delivery!.headers['svc-signature'], secret }));

    await run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', consumer], { cwd: consumer });
    const env = { PATH: process.env.PATH ?? '', SVC_URL: ctx.baseUrl, SVC_API_KEY: m.apiKey, DELIVERY_FILE: deliveryFile };
    const outputs = [];
    for (const file of ['esm.mjs', 'cjs.cjs']) {
      const { stdout } = await run(process.execPath, [path.join(consumer, 'out', file)], { cwd: consumer, env });
      outputs.push(
        JSON.parse(stdout) as {
          created: string;
          status: number;
          listed: string[];
          settlements: number;
          error: string;
          webhook: string;
          tampered: string;
        },
      );
    }
    const [esm, cjs] = outputs as [(typeof outputs)[0], (typeof outputs)[0]];
    for (const [out, sessionsBefore] of [
      [esm, 2],
      [cjs, 3],
    ] as const) {
      expect(out.created).toMatch(/^SV_\w{24}$/);
      expect(out.status).toBe(201);
      // Newest first, every session of the merchant once, across pages of two.
      expect(out.listed).toHaveLength(sessionsBefore + 1);
      expect(out.listed[0]).toBe(out.created);
      expect(new Set(out.listed).size).toBe(out.listed.length);
      // Nothing paid yet, so no settlement: the list answers, empty.
      expect(out.settlements).toBe(0);
      expect(out.error).toBe('404 NotFound with request id');
      expect(out.webhook).toBe(`expired ${first} 25.00`);
      expect(out.tampered).toBe('bad_signature');
    }
    expect(cjs.listed).toContain(esm.created);
  }, 150_000);

  it('listens through its bin: the scope checked before any secret, one stable secret per forwarder, only the chosen events, resumed after a stream’s lifetime', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const narrow = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['checkout_sessions:create'] },
    });
    const narrowKey = narrow.json().apiKey as string;
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const forwardTo = `${receiver.url}/hooks`;
    const env = { PATH: process.env.PATH ?? '', HOME: home, SVC_URL: ctx.baseUrl, SVC_LISTEN_BACKOFF_MS: '100' };
    const configFile = path.join(home, '.config', 'svc-checkout', 'listen.json');
    const npx = (args: string[], apiKey: string) =>
      run('npx', ['--offline', 'svc-checkout-sdk', ...args], { cwd: consumer, env: { ...env, SVC_API_KEY: apiKey } }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );

    // A key without transactions:read gets no secret, and none is made for it.
    const refused = await npx(['listen', '--forward-to', forwardTo, '--print-secret'], narrowKey);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403 InsufficientScope');
    expect(`${refused.stdout}${refused.stderr}`).not.toContain('whsec_');
    expect(existsSync(configFile)).toBe(false);
    const refusedListen = await npx(['listen', '--forward-to', forwardTo], narrowKey);
    expect(refusedListen.code).toBe(1);
    expect(`${refusedListen.stdout}${refusedListen.stderr}`).not.toContain('whsec_');
    expect(await npx(['listen', '--forward-to', forwardTo, '--events', 'payment.paid'], m.apiKey)).toMatchObject({ code: 2 });

    // The right key: the secret is made once, kept in the owner-only config file, printed the same every time.
    const printed = await npx(['listen', '--forward-to', forwardTo, '--print-secret'], m.apiKey);
    expect(printed.code).toBe(0);
    const secret = printed.stdout.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect((await npx(['listen', '--forward-to', forwardTo, '--print-secret'], m.apiKey)).stdout.trim()).toBe(secret);
    expect(readFileSync(configFile, 'utf8')).toContain(secret);
    expect(readFileSync(configFile, 'utf8')).not.toContain(m.apiKey);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    // Another forwarder (another local URL) has a secret of its own.
    const other = await npx(['listen', '--forward-to', `${receiver.url}/other`, '--print-secret'], m.apiKey);
    expect(other.stdout.trim()).toMatch(/^whsec_/);
    expect(other.stdout.trim()).not.toBe(secret);

    // Listening, for payment.expired only: a canceled session's event is skipped, the expired one forwarded.
    const lines: string[] = [];
    const child = spawn(
      path.join(consumer, 'node_modules', '.bin', 'svc-checkout-sdk'),
      ['listen', '--forward-to', forwardTo, '--events', 'payment.expired'],
      {
        cwd: consumer,
        env: { ...env, SVC_API_KEY: m.apiKey },
      },
    );
    child.stdout.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean)));
    child.stderr.on('data', (c: Buffer) => lines.push(`stderr: ${c.toString('utf8')}`));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    closers.push(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    await eventually(
      async () => lines,
      (l) => l.some((x) => x.startsWith('Connected')),
      15_000,
      'the forwarder to connect',
    );
    expect(lines.filter((l) => l.includes(secret))).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(m.apiKey);

    const canceled = await openSession(m.apiKey);
    expect((await ctx.app.inject({ method: 'POST', url: `/pay/${canceled}/cancel` })).statusCode).toBe(303);
    const expired = await openSession(m.apiKey);
    await expire(m.apiKey, expired);
    const [forwarded] = await eventually(
      async () => receiver.received.filter((d) => d.path === '/hooks'),
      (r) => r.length >= 1,
      20_000,
      'the payment.expired forward',
    );
    expect(forwarded!.body).toMatchObject({ event: 'payment.expired', sessionId: expired, merchantId: m.id });
    expect(verifyWebhook(forwarded!.rawBody, forwarded!.headers['svc-signature'], secret)).toEqual({ ok: true });
    expect(() => new Webhook(secret).verify(forwarded!.rawBody, forwarded!.headers)).not.toThrow();
    // The canceled session's event came first in the stream and was not forwarded.
    const stored = (await ctx.db.sql`select type from events where merchant_id = ${m.id} order by seq`) as unknown as { type: string }[];
    expect(stored.map((e) => e.type)).toEqual(['payment.canceled', 'payment.expired']);
    expect(receiver.received.filter((d) => d.path === '/hooks').map((d) => d.body.event)).toEqual(['payment.expired']);

    // The stream reaches its lifetime; the forwarder resumes after the last event, missing none and repeating none.
    await eventually(
      async () => lines,
      (l) => l.some((x) => /^Connected; resuming after event \d+\.$/.test(x)),
      15_000,
      'the forwarder to resume after the stream’s lifetime',
    );
    const later = await openSession(m.apiKey);
    await expire(m.apiKey, later);
    await eventually(
      async () => receiver.received.filter((d) => d.path === '/hooks').map((d) => d.body.sessionId as string),
      (ids) => ids.includes(later),
      20_000,
      'the event after the resume',
    );
    expect(receiver.received.filter((d) => d.path === '/hooks').map((d) => d.body.sessionId)).toEqual([expired, later]);
    expect(lines.filter((l) => l.includes(secret))).toHaveLength(1);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 150_000);
});
