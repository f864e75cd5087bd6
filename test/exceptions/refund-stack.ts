import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { adminHeaders, useTestApp } from '../support/harness';
import { killHard } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { startRpcTrapProxy } from '../support/rpc-trap-proxy';
import { exceptionsOf, pressPay, sessionRow, waitForStatus } from '../proof/support';
import { payFromWallet } from '../support/chain';
import { eventually } from '../support/http';
import { merchantWithFreshWallet, openSession, ownTreasury, startWorkerVia } from '../payouts/support';

/**
 * The stack the refund tests share: the app on a treasury of the file's own (its nonces are nobody
 * else's), short sessions and retries, a webhook receiver, and worker processes (worker.ts) that reach
 * the chain through a JSON-RPC proxy able to act at an exact call; workers are killed after each test.
 */
export function useRefundStack() {
  const own = ownTreasury({ SESSION_TTL_SECONDS: '6', WEBHOOK_RETRY_BASE_SECONDS: '0.5' });
  const ctx = useTestApp(own.overrides, { listen: true, sandbox: true });
  const stack = {
    ctx,
    /** The file's own treasury. */
    treasury: own.treasury,
    chain: own.chain,
    token: own.chain.tokens.polygon.USDC,
    proxy: undefined as unknown as Awaited<ReturnType<typeof startRpcTrapProxy>>,
    receiver: undefined as unknown as Awaited<ReturnType<typeof startReceiver>>,
    startWorker: async (): Promise<ChildProcess> => {
      const child = await startWorkerVia(ctx, stack.proxy.url);
      children.push(child);
      return child;
    },
    refund: (id: string, address: unknown) =>
      ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${id}/refund`, headers: adminHeaders, payload: { address } }),
    /** A session that expired unpaid, then a customer's transfer to its deposit address: an open late exception, its run started. */
    lateException: async () => {
      const m = await merchantWithFreshWallet(ctx);
      const id = await openSession(ctx, m.apiKey, { webhookUrl: `${stack.receiver.url}/hooks` });
      const g = await pressPay(ctx, id);
      await waitForStatus(ctx, id, 'expired', 30_000);
      const { depositAddress } = await sessionRow(ctx, id);
      await payFromWallet(own.chain, own.chain.tokens.polygon.USDC, depositAddress, g);
      await eventually(
        () => exceptionsOf(ctx, id),
        (rows) => rows.length === 1,
        30_000,
        'the late exception',
      );
      const [row] = await ctx.db.sql`select id from payment_exceptions where payment_id = ${id}`;
      const exceptionId = row!.id as string;
      // The row is written first, its run started right after (by the session's run or the watcher).
      await eventually(
        () =>
          ctx.temporal.workflow
            .getHandle(exceptionId)
            .describe()
            .then(
              () => true,
              () => false,
            ),
        (started) => started,
        20_000,
        'the exception’s run',
      );
      return { m, id, g, depositAddress, exceptionId };
    },
  };
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    stack.proxy = await startRpcTrapProxy(own.chain.rpcUrl);
    stack.receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const c of children.splice(0)) await killHard(c);
  });
  afterAll(async () => {
    await stack.proxy.close();
    await stack.receiver.close();
  });
  return stack;
}
