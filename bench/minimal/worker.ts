import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import postgres from 'postgres';
import type { Address } from 'viem';
import { createChainClient } from '../../src/chains/clients';
import { transferKey } from '../../src/chains/transfer-logs';
import { TransferWatcher } from '../../src/chains/watcher';
import { createMinimalActivities, createMinimalTables } from './activities';
import { depositCredit } from './messages';

// The minimal implementation's worker process: its workflows and activities, and one chain watcher
// (the same watcher core as ours, on the one network the bench pays on, at ours' default 1 s poll)
// that signals each confirmed credit to the payment owning the deposit address.
async function main() {
  const env = process.env as Record<string, string>;
  const sql = postgres(env.DATABASE_URL!, { max: 10, onnotice: () => {} });
  // The worker of the payments paid out (PAY_OUT=1) watches only theirs, and the other only the rest:
  // each payment is signalled once, by its own side's worker.
  const payOut = env.PAY_OUT === '1';
  const cursorId = payOut ? 2 : 1;
  await createMinimalTables(sql);
  const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: env.TASK_QUEUE!,
    workflowsPath: path.join(__dirname, 'workflows.ts'),
    activities: createMinimalActivities(sql, env.WEBHOOK_SECRET!, { rpcUrl: env.RPC_URL!, usdc: env.USDC as Address }),
  });
  const client = new Client({ connection: await Connection.connect({ address: env.TEMPORAL_ADDRESS! }), namespace: 'default' });
  const chain = createChainClient({
    network: 'polygon',
    rpcUrl: env.RPC_URL!,
    chainId: 31337,
    confirmations: 1,
    tokens: { USDC: env.USDC as Address, USDT: null },
  });
  const watcher = new TransferWatcher({
    client: chain,
    addresses: async () =>
      (
        await sql<{ a: string }[]>`select deposit_address as a from bench_min_payments
          where status in ('pending', 'processing') and (deposit_key is not null) = ${payOut}`
      ).map((r) => r.a as Address),
  });
  let stopped = false;
  const watch = (async () => {
    const [saved] = await sql<{ n: string }[]>`select confirmed_through::text as n from bench_min_cursor where id = ${cursorId}`;
    let cursor = await watcher.startCursor(saved ? BigInt(saved.n) + 1n : undefined);
    while (!stopped) {
      try {
        const scan = await watcher.scan(cursor);
        if (scan.confirmed.length) {
          const owners = await sql<
            { id: string; a: string }[]
          >`select id, lower(deposit_address) as a from bench_min_payments where lower(deposit_address) in ${sql(scan.confirmed.map((t) => t.to.toLowerCase()))}`;
          const byAddress = new Map(owners.map((o) => [o.a, o.id]));
          for (const t of scan.confirmed) {
            const id = byAddress.get(t.to.toLowerCase());
            if (id) await client.workflow.getHandle(id).signal(depositCredit, { key: transferKey(t), amountMicro: t.amount.toString() });
          }
        }
        if (scan.cursor.confirmedThrough !== cursor.confirmedThrough) {
          await sql`insert into bench_min_cursor (id, confirmed_through) values (${cursorId}, ${scan.cursor.confirmedThrough.toString()}) on conflict (id) do update set confirmed_through = excluded.confirmed_through`;
        }
        cursor = scan.cursor;
      } catch (err) {
        console.error(`minimal watcher: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  const stop = () => {
    stopped = true;
    worker.shutdown();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(`minimal worker: polling task queue "${env.TASK_QUEUE}"`);
  await worker.run();
  await watch;
  await sql.end({ timeout: 2 });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
