import { afterAll, describe, expect, it } from 'vitest';
import { listen, StreamRefused } from '../../src/cli/listen';
import { insertEventOnce } from '../../src/db/queries/events';
import { randomBase62 } from '../../src/domain/ids';
import { adminHeaders, createApprovedMerchant, useTestApp } from '../support/harness';
import { openEventStream } from '../support/event-stream';
import { eventually } from '../support/http';
import { startReceiver } from '../support/receiver';

// An event stream outlives the request that opened it: it authenticates its key again once every
// key cache window (1 s here), and ends after its maximum lifetime (3 s here) whatever happens, each
// ending with a comment that says why. Revocations are written straight to Postgres, as another API
// process would, so only the stream's own re-check can see them.
const CACHE_MS = 1000;
const LIFETIME_MS = 3000;
const ctx = useTestApp(
  { API_KEY_CACHE_SECONDS: String(CACHE_MS / 1000) },
  { listen: true, eventStream: { intervalMs: 100, heartbeatMs: 60_000, maxLifetimeMs: LIFETIME_MS } },
);
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const streamUrl = () => `${ctx.baseUrl}/api/v1/events/stream`;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A stored event of the merchant, as the worker writes them: the stream reads it from the table. */
async function storeEvent(merchantId: string): Promise<string> {
  const id = `evt_${randomBase62(24)}`;
  const paymentId = `SV_${randomBase62(24)}`;
  const body = JSON.stringify({ event: 'payment.expired', eventId: id, merchantId, sessionId: paymentId, status: 'expired' });
  await insertEventOnce(ctx.db.db, { id, paymentId, merchantId, type: 'payment.expired', body });
  return id;
}

describe('an open event stream', () => {
  it('is refused to a key without transactions:read, and `listen` then stops without printing a secret', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const issued = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.id}/api-keys`,
      headers: adminHeaders,
      payload: { scopes: ['checkout_sessions:create'] },
    });
    const printed: string[] = [];
    const refused = await listen({
      apiUrl: ctx.baseUrl,
      apiKey: issued.json().apiKey as string,
      forwardTo: 'http://127.0.0.1:9/unused',
      print: (line) => printed.push(line),
      signal: new AbortController().signal,
      backoffMs: 100,
    }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StreamRefused);
    expect(String(refused)).toContain('403 InsufficientScope');
    expect(printed.join('\n')).not.toContain('whsec_');
  });

  it("ends within the key cache window once its key is revoked, and `listen` then stops on the key's refusal", async () => {
    const m = await createApprovedMerchant(ctx.app);
    const stream = await openEventStream(streamUrl(), bearer(m.apiKey));
    closers.push(stream.close);
    expect(stream.status).toBe(200);
    const printed: string[] = [];
    const stop = new AbortController();
    closers.push(() => stop.abort());
    const listening = listen({
      apiUrl: ctx.baseUrl,
      apiKey: m.apiKey,
      forwardTo: 'http://127.0.0.1:9/unused',
      print: (line) => printed.push(line),
      signal: stop.signal,
      backoffMs: 100,
    }).then(
      () => null,
      (err: unknown) => err,
    );
    await eventually(
      async () => printed,
      (p) => p.some((l) => l.startsWith('Connected')),
      10_000,
      'the forwarder to connect',
    );

    await ctx.db.sql`update api_keys set revoked_at = now() where merchant_id = ${m.id}`;
    // The re-check comes at most one window after the revocation; the margin is for a busy machine,
    // and stays under the lifetime, which would end the stream for another reason.
    const took = await stream.untilEnded(CACHE_MS + 1500);
    expect(stream.commentLines().at(-1)).toBe('the API key is no longer valid, or the account is not approved');
    expect(took).toBeLessThan(LIFETIME_MS);
    const refused = await listening;
    expect(refused).toBeInstanceOf(StreamRefused);
    expect(String(refused)).toContain('401 Unauthorized');
    expect(printed).toContain('The stream ended; reconnecting.');
  });

  it('ends within the key cache window once its merchant is suspended', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const other = await createApprovedMerchant(ctx.app);
    const stream = await openEventStream(streamUrl(), bearer(m.apiKey));
    const untouched = await openEventStream(streamUrl(), bearer(other.apiKey));
    closers.push(stream.close, untouched.close);
    expect([stream.status, untouched.status]).toEqual([200, 200]);

    const suspended = await ctx.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.id}/suspend`, headers: adminHeaders });
    expect(suspended.statusCode).toBe(200);
    const took = await stream.untilEnded(CACHE_MS + 1500);
    expect(took).toBeLessThan(LIFETIME_MS);
    expect(stream.commentLines().at(-1)).toBe('the API key is no longer valid, or the account is not approved');
    // Another merchant's stream goes on: it still receives its events.
    await storeEvent(other.id);
    expect(await untouched.next<any>(() => true)).toMatchObject({ merchantId: other.id });
    untouched.close();
  });

  it('ends at its maximum lifetime, and `listen` resumes after the last event with each event forwarded once', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const printed: string[] = [];
    const stop = new AbortController();
    const listening = listen({
      apiUrl: ctx.baseUrl,
      apiKey: m.apiKey,
      forwardTo: `${receiver.url}/hooks`,
      print: (line) => printed.push(line),
      signal: stop.signal,
      backoffMs: 100,
    });
    closers.push(async () => {
      stop.abort();
      await listening;
    });
    await eventually(
      async () => printed,
      (p) => p.includes('Connected; waiting for events.'),
      10_000,
      'the forwarder to connect',
    );
    const first = await storeEvent(m.id);
    await eventually(
      async () => receiver.received.length,
      (n) => n === 1,
      10_000,
      'the first event forwarded',
    );

    // Nothing ends the stream but its lifetime; the forwarder reconnects with Last-Event-ID.
    await eventually(
      async () => printed,
      (p) => p.includes('Connected; resuming after event 1.'),
      LIFETIME_MS + 5000,
      'the forwarder to resume after the lifetime',
    );
    expect(printed).toContain('The stream ended; reconnecting.');
    const second = await storeEvent(m.id);
    await eventually(
      async () => receiver.received.map((d) => d.body.eventId as string),
      (ids) => ids.includes(second),
      10_000,
      'the second event forwarded',
    );
    expect(receiver.received.map((d) => d.body.eventId)).toEqual([first, second]);

    // A raw stream says why it ended.
    const stream = await openEventStream(streamUrl(), bearer(m.apiKey));
    closers.push(stream.close);
    const took = await stream.untilEnded(LIFETIME_MS + 2000);
    expect(took).toBeGreaterThanOrEqual(LIFETIME_MS - 100);
    expect(stream.commentLines().at(-1)).toBe('the stream reached its maximum lifetime; reconnect with Last-Event-ID');
  });
});
