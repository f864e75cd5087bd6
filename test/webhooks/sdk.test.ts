import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckoutApiError, createSvcClient, parseWebhook } from '../../packages/sdk/src/index';
import { committedLib, renderSdk, SDK_DIR } from '../../scripts/build-sdk';
import { findPhp } from '../../tools/dev/debian-packages';
import { readmeText } from '../cli/readme-lines';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { startReceiver, type ReceivedDelivery } from '../support/receiver';

// The Node SDK (packages/sdk) is what `npm run build:sdk` makes of the document the
// service serves, and it creates, reads and verifies against the real service; the README's Python
// and PHP checks, run as written by their interpreters, accept a real delivery and refuse a tampered one.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });
const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);
mkdirSync(path.join(ROOT, 'test', '.artifacts'), { recursive: true });
const workDir = mkdtempSync(path.join(ROOT, 'test', '.artifacts', 'sdk-'));
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  rmSync(workDir, { recursive: true, force: true });
});

function example(name: string): string {
  const text = readmeText();
  const at = text.indexOf(`<!-- example: ${name}`);
  expect(at, `README example ${name}`).toBeGreaterThanOrEqual(0);
  return /```\w+\n([\s\S]*?)```/.exec(text.slice(at))![1]!;
}

/** Runs a program with the raw body on stdin; its exit status is the verdict. */
async function verdict(command: string, args: string[], d: ReceivedDelivery, secret: string, body = d.rawBody): Promise<number> {
  const child = execFile(command, args, {
    env: { PATH: process.env.PATH ?? '', SVC_SIGNATURE: d.headers['svc-signature']!, SVC_WEBHOOK_SECRET: secret },
  });
  child.stdin!.end(body);
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
}

describe('the Node SDK', () => {
  it('is generated from the served OpenAPI document: the committed files match a fresh generation and build', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const files = await renderSdk(res.json(), ctx.config.http.publicBaseUrl);
    expect(files.get('src/schema.d.ts')).toContain('streamMerchantEvents');
    for (const [file, text] of files) expect(readFileSync(path.join(SDK_DIR, file), 'utf8'), file).toBe(text);
    // Nothing built is left over from a file since removed.
    expect([...committedLib().keys()].filter((f) => !files.has(f))).toEqual([]);
    // What the package says it ships is there (its README among them), and its entry points are built.
    const manifest = JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8')) as {
      files: string[];
      exports: Record<string, Record<string, Record<string, string>>>;
      bin: Record<string, string>;
    };
    expect(manifest.files.filter((f) => !existsSync(path.join(SDK_DIR, f)))).toEqual([]);
    const targets = [...Object.values(manifest.exports['.']!).flatMap((c) => Object.values(c)), ...Object.values(manifest.bin)];
    expect(targets.filter((t) => !files.has(path.normalize(t)))).toEqual([]);
    // Two full compilations of a 10,000-line schema: slow on a loaded machine.
  }, 180_000);

  it('creates a session, reads it and verifies its real delivery; the README’s Python and PHP checks agree', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const m = await createApprovedMerchant(ctx.app);
    const added = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/webhook-endpoints`,
      headers: adminHeaders,
      payload: { url: `${receiver.url}/hooks` },
    });
    const secret = added.json().secret as string;

    const svc = createSvcClient({ baseUrl: `${ctx.baseUrl}/`, apiKey: m.apiKey });
    const created = await svc.POST('/api/v1/checkout/sessions', { body: { amount: 25, currency: 'USD', countryCode: 'US' } });
    expect(created.response.status).toBe(201);
    const id = created.data.checkoutSession.id;
    const found = await svc.GET('/api/v1/payment-sessions/{id}', { params: { path: { id } } });
    expect(found.data.paymentSession).toMatchObject({ id, status: 'pending', amount: '25.00' });
    // Errors are thrown, one class whatever failed, with the service's code and request id.
    const missing = await svc
      .GET('/api/v1/payment-sessions/{id}', { params: { path: { id: 'SV_000000000000000000000000' } } })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CheckoutApiError);
    expect(missing).toMatchObject({ status: 404, code: 'NotFound', requestId: expect.any(String) });

    expect((await svc.POST('/api/v1/checkout/sessions/{id}/expire', { params: { path: { id } } })).response.status).toBe(200);
    const [delivery] = await eventually(
      async () => receiver.received,
      (r) => r.length === 1,
      20_000,
      'the payment.expired delivery',
    );
    const parsed = parseWebhook(delivery!.rawBody, delivery!.headers['svc-signature'], secret);
    expect(parsed).toMatchObject({ ok: true, event: { event: 'payment.expired', sessionId: id, merchantId: m.id } });
    expect(parseWebhook(delivery!.rawBody.replace('25.00', '2500.00'), delivery!.headers['svc-signature'], secret)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });

    // Python, standard library only: the README's block and a two-line driver.
    const py = `${example('python-webhook')}\nimport os, sys\nsys.exit(0 if verify_webhook(sys.stdin.buffer.read(), os.environ["SVC_SIGNATURE"], os.environ["SVC_WEBHOOK_SECRET"]) else 1)\n`;
    writeFileSync(path.join(workDir, 'verify.py'), py);
    expect(await verdict('python3', [path.join(workDir, 'verify.py')], delivery!, secret)).toBe(0);
    expect(
      await verdict('python3', [path.join(workDir, 'verify.py')], delivery!, secret, delivery!.rawBody.replace('25.00', '2500.00')),
    ).toBe(1);
    expect(await verdict('python3', [path.join(workDir, 'verify.py')], delivery!, 'whsec_another')).toBe(1);

    // PHP from Debian's php-cli (installed by `npm test`'s pretest, scripts/prepare-tests.ts).
    const php = findPhp();
    expect(php, 'php-cli: run `npm run pretest`').not.toBeNull();
    const phpCode = `${example('php-webhook')}\nexit(verify_webhook(stream_get_contents(STDIN), getenv('SVC_SIGNATURE'), getenv('SVC_WEBHOOK_SECRET')) ? 0 : 1);\n`;
    writeFileSync(path.join(workDir, 'verify.php'), phpCode);
    expect(await verdict(php!, [path.join(workDir, 'verify.php')], delivery!, secret)).toBe(0);
    expect(await verdict(php!, [path.join(workDir, 'verify.php')], delivery!, secret, delivery!.rawBody.replace('25.00', '2500.00'))).toBe(
      1,
    );
    expect(await verdict(php!, [path.join(workDir, 'verify.php')], delivery!, 'whsec_another')).toBe(1);
  });

  it('runs the README’s SDK example as written, against the service', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const code = example('sdk-session').replace(
      "from 'svc-checkout-sdk'",
      `from ${JSON.stringify(path.join(SDK_DIR, 'lib', 'esm', 'index.js'))}`,
    );
    const file = path.join(workDir, 'sdk-session.mts');
    writeFileSync(file, code);
    const { stdout } = await run(process.execPath, [require.resolve('tsx/cli'), file], {
      cwd: workDir,
      env: { PATH: process.env.PATH ?? '', SVC_URL: ctx.baseUrl, SVC_API_KEY: m.apiKey },
    });
    const [id, url, status] = stdout.trim().split(' ');
    expect(id).toMatch(/^SV_\w{24}$/);
    expect(url).toBe(`${ctx.baseUrl}/pay/${id}`);
    expect(status).toBe('pending');
  });
});
