import { describe, expect, it } from 'vitest';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { openSession } from '../payouts/support';

// Pay cut short: the provider created its payment, then the API process died before it wrote
// anything after the provider's answer. The customer's browser saw an error, but the provider's
// payment exists, and the customer may still pay it (here the sandbox pays the payment it finds
// for the reference). Its transfer must complete the session: G, which the transfer proves, was
// stored before the provider was asked.
const ctx = useTestApp({}, { listen: true, sandbox: true, worker: true });

describe('a Pay whose process dies once the provider answered', () => {
  it('leaves a session its transfer completes', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const id = await openSession(ctx, m.apiKey);
    const [before] = await ctx.db.sql`select verification, expected_gross_micro from checkout_sessions where id = ${id}`;
    expect(before).toEqual({ verification: 'chain', expected_gross_micro: null });

    // The provider answers; the process never returns from the call (as if killed right then).
    const adapter = ctx.providers.get('sandbox')!;
    const createPayment = adapter.createPayment.bind(adapter);
    let providerPayments = 0;
    adapter.createPayment = async (request) => {
      await createPayment(request);
      providerPayments++;
      throw new Error('the process died here');
    };
    try {
      const start = await http('POST', `${ctx.baseUrl}/pay/${id}/start`);
      expect(start.status).toBeGreaterThanOrEqual(500);
    } finally {
      adapter.createPayment = createPayment;
    }
    expect(providerPayments).toBe(1);
    const [cut] = await ctx.db.sql`select provider_payment_id, expected_gross_micro from checkout_sessions where id = ${id}`;
    expect(cut!.provider_payment_id).toBeNull();
    expect(cut!.expected_gross_micro).toBe('25000000');

    // The customer pays the provider's payment all the same: the sandbox finds it by the reference.
    const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
      body: { reference: id, outcome: 'succeeded' },
    });
    expect(paid.status, JSON.stringify(paid.json)).toBe(200);
    await eventually(
      () => ctx.db.sql`select status from checkout_sessions where id = ${id}`.then((r) => r[0]!.status as string),
      (s) => s === 'completed',
      60_000,
      'the session completed by its transfer',
    );
    const [tx] = await ctx.db.sql`select count(*)::int as n, max(gross_micro)::text as gross from transactions where payment_id = ${id}`;
    expect(tx).toEqual({ n: 1, gross: '25000000' });
  }, 90_000);
});
