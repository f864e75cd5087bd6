import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { adminHeaders, useTestApp } from '../support/harness';
import { killHard } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { startRpcTrapProxy } from '../support/rpc-trap-proxy';
import { ownTreasury, startWorkerVia } from '../payouts/support';

/**
 * The stack the refund tests share: the app on a treasury of the file's own (its nonces are nobody
 * else's), short sessions and retries, a webhook receiver, and worker processes (worker.ts) that reach
 * the chain through a JSON-RPC proxy able to act at an exact call; workers are killed after each test.
 */
export function useRefundStack() {
  const own = ownTreasury();
  const ctx = useTestApp({ ...own.overrides, SESSION_TTL_SECONDS: '6', WEBHOOK_RETRY_BASE_SECONDS: '0.5' }, { listen: true, sandbox: true });
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
    refund: (id: string, address: unknown) => ctx.app.inject({ method: 'POST', url: `/admin/v1/exceptions/${id}/refund`, headers: adminHeaders, payload: { address } }),
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
