import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { KEY_USE_PRECISION_MS, keyUsageRecorder } from '../../src/api/plugins/key-usage';
import { apiKeys } from '../../src/db/schema';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { seedPayment } from '../support/seed-payment';

describe("recording a key's last use: no write on a read path", () => {
  it('writes at most once a minute per key, never waits for the write, and survives a failed one', async () => {
    const writes: string[] = [];
    let clock = 1_000_000;
    const failures: unknown[] = [];
    let fail = false;
    const record = keyUsageRecorder(
      async (keyId) => {
        writes.push(keyId);
        if (fail) throw new Error('database down');
      },
      (err) => failures.push(err),
      () => clock,
    );
    record('key_a');
    record('key_a');
    record('key_b');
    clock += KEY_USE_PRECISION_MS - 1;
    record('key_a');
    expect(writes).toEqual(['key_a', 'key_b']);
    clock += 1;
    fail = true;
    expect(() => record('key_a')).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(['key_a', 'key_b', 'key_a']);
    expect(failures).toHaveLength(1);
  });

  const ctx = useTestApp();

  it("sets the key's last use after an authenticated lookup, without the lookup waiting for it", async () => {
    const merchant = await createApprovedMerchant(ctx.app);
    const id = await seedPayment(ctx.db.db, merchant.id, 'pending');
    const [key] = await ctx.db.db.select().from(apiKeys).where(eq(apiKeys.merchantId, merchant.id));
    expect(key!.lastUsedAt).toBeNull();
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/payment-sessions/${id}`,
      headers: { authorization: `Bearer ${merchant.apiKey}` },
    });
    expect(res.statusCode).toBe(200);
    await expect
      .poll(async () => (await ctx.db.db.select().from(apiKeys).where(eq(apiKeys.id, key!.id)))[0]!.lastUsedAt, { timeout: 5000 })
      .toBeInstanceOf(Date);
  });
});
