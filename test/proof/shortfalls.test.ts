import { describe, expect, it } from 'vitest';
import { sharedChain } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import { exceptionsOf, merchantOnEveryNetwork, openSession, payFromWallet, pressPay, sessionRow, waitForStatus } from './support';

// Money that does not prove the payment: recorded once, never completed. Short
// timers so expiry and the provider-proof deadline come within the test.
const ctx = useTestApp({ SESSION_TTL_SECONDS: '12', PROVIDER_PROOF_TIMEOUT_SECONDS: '3' }, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();

describe('shortfalls on chain-verified sessions', () => {
  it('records a provider success with no transfer as unverified after the proof timeout, and never completes', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    const forged = sandboxEvent(
      { id, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress: depositAddress },
      'payment.succeeded',
      { destinationAmount: '25.000000' },
    );
    expect((await postCallback(ctx.app, forged, { secret: ctx.config.providers.sandbox.callbackSecret })).statusCode).toBe(200);
    const before = await waitForStatus(ctx, id, 'processing');
    expect(before).toBe('processing');
    const [unverified] = await eventually(
      () => exceptionsOf(ctx, id),
      (rows) => rows.length > 0,
      10_000,
      'the unverified exception',
    );
    expect(unverified).toMatchObject({ kind: 'unverified', amount: 25_000_000n, status: 'open' });
    expect(unverified!.references).toMatchObject({ eventId: forged.id, depositAddress });
    expect((await sessionRow(ctx, id)).status).toBe('processing');
    // It runs out as any unpaid session does, with one record.
    await waitForStatus(ctx, id, 'expired', 20_000);
    expect((await exceptionsOf(ctx, id)).map((e) => e.kind)).toEqual(['unverified']);
  });

  it('records credits short of G at expiry as underpaid, and expires rather than completes', async () => {
    const m = await merchantOnEveryNetwork(ctx);
    const id = await openSession(ctx, m.apiKey);
    const g = await pressPay(ctx, id);
    const { depositAddress } = await sessionRow(ctx, id);
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, g / 2n);
    await waitForStatus(ctx, id, 'expired', 25_000);
    const exceptions = await exceptionsOf(ctx, id);
    expect(exceptions).toMatchObject([{ kind: 'underpaid', amount: g / 2n, status: 'open' }]);
    const [tx] = await ctx.db.sql`select count(*)::int as n from transactions where payment_id = ${id}`;
    expect(tx!.n).toBe(0);
  });
});
