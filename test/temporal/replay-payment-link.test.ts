import { WorkflowIdReusePolicy } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { PaymentLinkInput } from '../../src/workflows/payment-link/messages';
import { createApprovedMerchant, useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { parseCrypto } from '../../src/domain/money';
import { payFromWallet, sharedChain } from '../support/chain';
import { replayRuns } from './histories';

// Runs of the paymentLink workflow: paid through one of its sessions, expired unpaid, and deactivated
// by its merchant (the dashboard's use case signals linkDeactivated; the run ends at once).
// The sandbox runs as the price source of the direct rail, through which the session is paid.
const ctx = useTestApp({}, { sandbox: true, worker: true });
const chain = sharedChain();

describe('paymentLink histories', () => {
  it('replays the current code’s own runs: paid, expired, deactivated', async () => {
    const m = await createApprovedMerchant(ctx.app);
    const create = async () => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/payment-links',
        headers: { authorization: `Bearer ${m.apiKey}` },
        payload: { amount: 30, currency: 'USD', description: 'replay' },
      });
      expect(res.statusCode).toBe(201);
      return res.json().paymentLink.id as string;
    };

    const paid = await create();
    const started = await ctx.app.inject({
      method: 'POST',
      url: `/link/${paid}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'country=US',
    });
    const sessionId = /\/pay\/(SV_\w+)$/.exec(String(started.headers.location))![1]!;
    const deposit = await ctx.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${sessionId}/deposit` });
    expect(deposit.statusCode).toBe(200);
    await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.json().deposit.address, parseCrypto(deposit.json().deposit.amount));
    expect(await ctx.temporal.workflow.getHandle(paid).result()).toEqual({ status: 'paid', paidSessionId: sessionId });

    // The API's shortest lifetime is 5 minutes: run the link's workflow again with a close expiresAt.
    const expired = await create();
    await ctx.temporal.workflow.getHandle(expired).terminate('replaced by a run that expires sooner');
    const input: PaymentLinkInput = { linkId: expired, expiresAt: new Date(Date.now() + 1000).toISOString() };
    const handle = await ctx.temporal.workflow.start('paymentLink', {
      workflowId: expired,
      taskQueue: ctx.config.temporal.taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    });
    expect(await handle.result()).toEqual({ status: 'expired', paidSessionId: null });
    await eventually(
      () => ctx.db.sql`select status from payment_links where id = ${expired}`.then((r) => r[0]!.status),
      (s) => s === 'expired',
    );

    // Deactivated by the merchant long before its expiry: the signal ends the run now, and its
    // expiry write finds the link already expired by the deactivation.
    const deactivated = await create();
    const owner = {
      userId: 'usr_replayowner00001',
      email: 'replay@example.com',
      role: 'owner' as const,
      merchantId: m.id,
      ip: '192.0.2.1',
    };
    const link = await ctx.app.payments.merchantLinks.deactivate(owner, deactivated);
    expect(link.status).toBe('expired');
    expect(await ctx.temporal.workflow.getHandle(deactivated).result()).toEqual({ status: 'expired', paidSessionId: null });

    await replayRuns(ctx.temporal, 'payment-link', { paid, expired, deactivated });
    // The session that paid the link told the link's run from workflow code.
    await replayRuns(ctx.temporal, 'checkout-session', { paidLink: sessionId });
  });
});
