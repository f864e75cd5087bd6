import { describe, expect, it } from 'vitest';
import { sharedChain } from '../support/chain';
import { useTestApp } from '../support/harness';
import { eventually } from '../support/http';
import { postCallback, sandboxEvent } from '../support/sandbox-callbacks';
import { chooseRail, exceptionRows, openOrder, orderRow, waitForOrder } from './order-support';
import { payFromWallet } from './support';

// Money that does not prove a simple order, recorded as for sessions with
// payment_kind 'simple_order', never settled. Short timers bring the deadlines within the test.
const ctx = useTestApp(
  { SESSION_TTL_SECONDS: '10', PROVIDER_PROOF_TIMEOUT_SECONDS: '3', PROCESSING_TIMEOUT_SECONDS: '8' },
  { listen: true, sandbox: true, worker: true },
);
const chain = sharedChain();

describe('shortfalls on chain-verified simple orders', () => {
  it('records a provider success with no transfer as unverified, then fails the order when processing runs out', async () => {
    const code = await openOrder(ctx);
    await chooseRail(ctx, code, 'card');
    const { depositAddress } = await orderRow(ctx, code);
    const forged = sandboxEvent(
      { id: code, amount: '25.00', currency: 'USD', destinationAsset: 'USDC', network: 'polygon', walletAddress: depositAddress },
      'payment.succeeded',
      { destinationAmount: '25.000000' },
    );
    expect((await postCallback(ctx.app, forged, { secret: ctx.config.providers.sandbox.callbackSecret })).statusCode).toBe(200);
    await waitForOrder(ctx, code, 'processing');
    const [unverified] = await eventually(
      () => exceptionRows(ctx, code),
      (rows) => rows.length > 0,
      10_000,
      'the unverified record',
    );
    expect(unverified).toMatchObject({ paymentKind: 'simple_order', kind: 'unverified', amount: 25_000_000n });
    expect(unverified!.references).toMatchObject({ eventId: forged.id, depositAddress });
    expect((await orderRow(ctx, code)).status).toBe('processing');

    await waitForOrder(ctx, code, 'failed', 20_000);
    expect(await orderRow(ctx, code)).toMatchObject({ failureReason: 'unverified', received: null, payoutDispatched: false });
    expect((await exceptionRows(ctx, code)).map((e) => e.kind)).toEqual(['unverified']);
  });

  it('records credits short of G at expiry as underpaid, and expires rather than settles', async () => {
    const code = await openOrder(ctx);
    await chooseRail(ctx, code, 'card');
    const { depositAddress, expectedGross } = await orderRow(ctx, code);
    await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, expectedGross! / 2n);
    await waitForOrder(ctx, code, 'expired', 25_000);
    expect(await exceptionRows(ctx, code)).toMatchObject([{ paymentKind: 'simple_order', kind: 'underpaid', amount: expectedGross! / 2n }]);
    expect((await orderRow(ctx, code)).received).toBeNull();
  });
});
