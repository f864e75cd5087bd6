import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/verify-webhook';
import { run } from '../../src/cli/ops';
import { exampleBlock } from '../support/guides';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { openEventStream } from '../support/event-stream';
import { eventually, http } from '../support/http';
import { payDirect } from '../support/proof';
import { startReceiver } from '../support/receiver';
import { startFreezableProxy } from '../support/tcp-proxy';

// The merchant's events as server-sent events, and the local
// forwarder (`npm run ops -- listen`) that re-signs and POSTs them. Everything over real sockets: the
// API listens on a port, the forwarder reaches it through a TCP proxy the test can cut, and the
// forwarded events land on a receiver on another port. Streams poll every 200 ms here.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true, eventStream: { intervalMs: 200, heartbeatMs: 300 } });
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const openSession = async (apiKey: string) => {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: bearer(apiKey),
    body: { amount: 25, currency: 'USD', countryCode: 'US' },
  });
  expect(res.status).toBe(201);
  return res.json.checkoutSession.id as string;
};
const expire = async (apiKey: string, id: string) => {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/expire`, { headers: bearer(apiKey) });
  expect(res.status).toBe(200);
};
const eventsOf = async (merchantId: string) =>
  (await ctx.db.sql`select id, seq, type, body from events where merchant_id = ${merchantId} order by seq`) as unknown as {
    id: string;
    seq: string;
    type: string;
    body: string;
  }[];

describe('GET /api/v1/events/stream', () => {
  it('refuses, in the envelope and before any stream, a missing key, a key without transactions:read and a bad Last-Event-ID', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const none = await http('GET', `${ctx.baseUrl}/api/v1/events/stream`);
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ ok: false, error: 'Unauthorized' });

    const issued = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['checkout_sessions:create'] },
    });
    expect(issued.statusCode).toBe(201);
    const narrow = await http('GET', `${ctx.baseUrl}/api/v1/events/stream`, { headers: bearer(issued.json().apiKey) });
    expect(narrow.status).toBe(403);
    expect(narrow.headers.get('content-type')).toMatch(/application\/json/);
    expect(narrow.json).toMatchObject({ ok: false, error: 'InsufficientScope', message: expect.stringContaining('transactions:read') });

    const bad = await http('GET', `${ctx.baseUrl}/api/v1/events/stream`, { headers: { ...bearer(m.apiKey), 'last-event-id': 'evt_x' } });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ ok: false, error: 'ValidationError' });
  });

  it("sends only the merchant's own events, in order with their seq as id, resumes after Last-Event-ID, and keeps quiet streams alive", async () => {
    const a = await createApprovedMerchant(ctx.app);
    const b = await createApprovedMerchant(ctx.app);
    const live = await openEventStream(`${ctx.baseUrl}/api/v1/events/stream`, bearer(a.apiKey));
    closers.push(live.close);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await live.commentsReach(2);

    const [a1, a2, b1] = [await openSession(a.apiKey), await openSession(a.apiKey), await openSession(b.apiKey)];
    await expire(b.apiKey, b1);
    await expire(a.apiKey, a1);
    await expire(a.apiKey, a2);
    expect(await live.next<any>((e) => e.sessionId === a1)).toMatchObject({ event: 'payment.expired', merchantId: a.id });
    expect(await live.next<any>(() => true)).toMatchObject({ event: 'payment.expired', sessionId: a2 });

    // From the start (Last-Event-ID 0): A's two events, byte for byte the stored webhook bodies, ids 1 and 2.
    const stored = await eventsOf(a.id);
    expect(stored.map((e) => Number(e.seq))).toEqual([1, 2]);
    const replay = await fetch(`${ctx.baseUrl}/api/v1/events/stream`, { headers: { ...bearer(a.apiKey), 'last-event-id': '0' } });
    const reader = replay.body!.getReader();
    let text = '';
    while (!text.includes(`id: 2\n`) || !text.endsWith('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toContain(`id: 1\nevent: payment.expired\ndata: ${stored[0]!.body}\n\n`);
    expect(text).toContain(`id: 2\nevent: payment.expired\ndata: ${stored[1]!.body}\n\n`);
    expect(text).not.toContain(b1);

    // Resuming after 1 gives 2 only; B's stream from the start has B's one event.
    const resumed = await openEventStream(`${ctx.baseUrl}/api/v1/events/stream`, { ...bearer(a.apiKey), 'last-event-id': '1' });
    closers.push(resumed.close);
    expect(await resumed.next<any>(() => true)).toMatchObject({ sessionId: a2 });
    const ofB = await openEventStream(`${ctx.baseUrl}/api/v1/events/stream`, { ...bearer(b.apiKey), 'last-event-id': '0' });
    closers.push(ofB.close);
    expect(await ofB.next<any>(() => true)).toMatchObject({ sessionId: b1, merchantId: b.id });
    live.close();
    resumed.close();
    ofB.close();
  });
});

describe('npm run ops -- listen', () => {
  it('forwards a paid session’s events signed with the printed secret, resumes after a dropped connection with each event exactly once, and never another merchant’s', async () => {
    const a = await createApprovedMerchant(ctx.app);
    const b = await createApprovedMerchant(ctx.app);
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const proxy = await startFreezableProxy({ host: '127.0.0.1', port: ctx.config.http.port });
    closers.push(proxy.close);

    const printed: string[] = [];
    const errors: string[] = [];
    const stop = new AbortController();
    const listening = run(['listen', '--forward-to', `${receiver.url}/hooks`, '--api-url', `http://127.0.0.1:${proxy.port}`], {
      env: { SVC_API_KEY: a.apiKey },
      stdout: (t) => printed.push(...t.split('\n').filter(Boolean)),
      stderr: (t) => errors.push(t),
      signal: stop.signal,
      listenBackoffMs: 100,
    });
    closers.push(async () => {
      stop.abort();
      await listening;
    });
    await eventually(
      async () => printed,
      (p) => p.some((l) => l.startsWith('Connected')),
      10_000,
      'the forwarder to connect',
    );
    const secret = /secret is (whsec_\S+)/.exec(printed.join('\n'))![1]!;
    // Printed once; the API key never.
    expect(printed.filter((l) => l.includes(secret))).toHaveLength(1);
    expect([...printed, ...errors].join('\n')).not.toContain(a.apiKey);

    // A paid session: processing, then completed once the transfer is confirmed on chain.
    const paid = await openSession(a.apiKey);
    await openSession(b.apiKey).then((id) => expire(b.apiKey, id));
    await payDirect(ctx, paid);
    await eventually(
      async () => receiver.received.map((d) => d.body.event as string),
      (types) => types.includes('payment.completed'),
      60_000,
      'payment.completed forwarded',
    );
    for (const d of receiver.received) {
      expect(verifyWebhook(d.rawBody, d.headers['svc-signature'], secret)).toEqual({ ok: true });
      expect(d.headers['svc-event-id']).toBe(d.body.eventId);
      expect(d.headers['webhook-id']).toBe(d.body.eventId);
      expect(d.body.merchantId).toBe(a.id);
      expect(d.path).toBe('/hooks');
    }

    // The connection drops and stays down while an event happens; the forwarder reconnects after it.
    const before = receiver.received.length;
    proxy.cut();
    const missed = await openSession(a.apiKey);
    await expire(a.apiKey, missed);
    await eventually(
      async () => printed,
      (p) => p.some((l) => l.startsWith('The stream ended')),
      10_000,
      'the drop to be seen',
    );
    proxy.restore();
    await eventually(
      async () => receiver.received.map((d) => d.body.sessionId as string),
      (ids) => ids.includes(missed),
      20_000,
      'the missed event after the reconnect',
    );
    expect(printed.some((l) => /^Connected; resuming after event \d+\.$/.test(l))).toBe(true);
    expect(receiver.received.length).toBeGreaterThan(before);

    // Exactly the merchant's events, each once, in the order stored (payment.settled may still be on its way).
    const { stored } = await eventually(
      async () => ({ got: receiver.received.map((d) => d.body.eventId as string), stored: await eventsOf(a.id) }),
      (v) => JSON.stringify(v.got) === JSON.stringify(v.stored.map((e) => e.id)),
      20_000,
      'every event of the merchant, once each',
    );
    expect(receiver.received.map((d) => d.rawBody)).toEqual(stored.map((e) => e.body));
    expect(errors.join('')).toBe('');
  });
});

describe('the listen line of docs/webhooks.md', () => {
  it('runs as written through npm: it connects, forwards the merchant’s event signed with the secret it printed, and never prints the key', async () => {
    // The block marked `<!-- example: listen` in the guides (docs/webhooks.md).
    const lines = exampleBlock('listen').code.trim().split('\n');
    expect(lines).toHaveLength(1);
    const m = await createApprovedMerchant(ctx.app);
    const receiver = await startReceiver();
    closers.push(receiver.close);
    // Only the placeholders change: the key, the local server's port, the service's address.
    const filled = lines[0]!
      .replace('svc_live_…', m.apiKey)
      .replace('http://localhost:8000', receiver.url)
      .replace('https://checkout.example', ctx.baseUrl);
    expect(filled).not.toMatch(/…|localhost:8000|checkout\.example/);
    const child = spawn('bash', ['-c', filled], {
      cwd: path.resolve(__dirname, '../..'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: npm, tsx and the CLI stop together.
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    closers.push(async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    });
    await eventually(
      async () => stdout,
      (out) => out.includes('Connected; waiting for events.') || child.exitCode !== null,
      60_000,
      'the forwarder to connect',
    );
    expect(child.exitCode, stderr).toBeNull();
    // npm's banner shows the command line, which carries no key (it is in the environment).
    expect(stdout).toContain('> tsx src/cli/ops.ts listen --forward-to');
    const secret = /secret is (whsec_\S+)/.exec(stdout)![1]!;

    const id = await openSession(m.apiKey);
    await expire(m.apiKey, id);
    const [delivery] = await eventually(
      async () => receiver.received,
      (r) => r.length > 0,
      20_000,
      'the expired event forwarded',
    );
    expect(delivery!.path).toBe('/hooks');
    expect(delivery!.body).toMatchObject({ event: 'payment.expired', sessionId: id, merchantId: m.id });
    expect(verifyWebhook(delivery!.rawBody, delivery!.headers['svc-signature'], secret)).toEqual({ ok: true });
    expect(stdout + stderr).not.toContain(m.apiKey);
  });
});
