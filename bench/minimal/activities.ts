import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type postgres from 'postgres';
import { createPublicClient, encodeFunctionData, erc20Abi, http, keccak256, type Address, type Hash, type Hex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { newEventId } from '../../src/domain/ids';
import { DEV_SETTLEMENT_MNEMONIC } from '../../src/domain/mnemonic';
import { BENCH_MERCHANT_WALLET, type WebhookPost } from './messages';

/** The minimal implementation's own tables, in the run's database. */
export async function createMinimalTables(sql: postgres.Sql): Promise<void> {
  await sql`create table if not exists bench_min_payments (
    id text primary key, status text not null default 'pending', deposit_address text not null, expected_micro bigint not null,
    deposit_key text, created_at timestamptz not null default now(), updated_at timestamptz not null default now())`;
  await sql`create table if not exists bench_min_events (
    id text primary key, payment_id text not null references bench_min_payments(id), type text not null, body jsonb not null,
    created_at timestamptz not null default now(), unique (payment_id, type))`;
  await sql`create table if not exists bench_min_payouts (
    payment_id text not null references bench_min_payments(id), kind text not null, tx_hash text not null, amount numeric not null,
    primary key (payment_id, kind))`;
  // The watcher's cursor: a worker that comes back (the backlog figure) scans from where it stopped.
  await sql`create table if not exists bench_min_cursor (id int primary key, confirmed_through bigint not null)`;
}

/** Signs like ours (`t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) and posts; anything but a 2xx is retried. */
export async function signedPost(post: WebhookPost, secret: string): Promise<void> {
  const t = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', secret).update(`${t}.${post.body}`).digest('hex');
  const res = await fetch(post.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-event-id': post.eventId, 'svc-signature': `t=${t},v1=${signature}` },
    body: post.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  if (res.status < 200 || res.status >= 300) throw ApplicationFailure.retryable(`HTTP ${res.status}`, 'DeliveryFailed');
}

const CHAIN_ID = 31337;
const NATIVE_GAS = 21_000n;
const COMMISSION_PERCENT = 1n;

/** Anvil's funded account 8 of the dev mnemonic: not ours' treasury (0) nor the token minter (9). */
export const minimalTreasury = () => mnemonicToAccount(DEV_SETTLEMENT_MNEMONIC, { addressIndex: 8 });

/**
 * The minimal payout, for the like-for-like figures: three transfers per payment, as one payout of
 * its own needs (the deposit address's gas from a treasury, then the merchant's share and the
 * commission from the deposit address), each signed locally with the chain's fees and the node's gas estimate, sent,
 * and its receipt awaited; then the rows, the status and payment.settled in one transaction, and its
 * signed POST. The fewest steps, and none of ours' safety: nothing is stored before a transfer is
 * sent (a crash may pay twice or lose track), the treasury's nonces are counted in this process, and
 * the two token transfers go out together.
 */
function minimalPayouts(sql: postgres.Sql, secret: string, chain: { rpcUrl: string; usdc: Address }) {
  const client = createPublicClient({ transport: http(chain.rpcUrl, { batch: true }) });
  const treasury = minimalTreasury();
  let treasuryNonce: number | null = null;
  let treasuryTurn: Promise<unknown> = Promise.resolve();
  type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

  const fees = async (): Promise<Fees> => {
    const [block, priority] = await Promise.all([client.getBlock({ blockTag: 'latest' }), client.estimateMaxPriorityFeePerGas()]);
    return { maxFeePerGas: block.baseFeePerGas! * 2n + priority, maxPriorityFeePerGas: priority };
  };
  const send = async (signed: Hex): Promise<Hash> => {
    await client.sendRawTransaction({ serializedTransaction: signed });
    return keccak256(signed);
  };
  /** The treasury's transfers one at a time, so each takes the next nonce. */
  const fromTreasury = (to: Address, value: bigint, terms: Fees): Promise<Hash> => {
    const turn = treasuryTurn.then(async () => {
      treasuryNonce ??= await client.getTransactionCount({ address: treasury.address, blockTag: 'pending' });
      const signed = await treasury.signTransaction({
        type: 'eip1559',
        chainId: CHAIN_ID,
        nonce: treasuryNonce,
        to,
        value,
        gas: NATIVE_GAS,
        ...terms,
      });
      const hash = await send(signed);
      treasuryNonce++;
      return hash;
    });
    treasuryTurn = turn.catch(() => {
      treasuryNonce = null;
    });
    return turn;
  };
  const mined = (hash: Hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 250 });

  return async function payOut(input: { paymentId: string; webhookUrl: string }): Promise<void> {
    const [payment] = await sql<{ key: Hex; amount: string }[]>`
      select deposit_key as key, expected_micro::text as amount from bench_min_payments where id = ${input.paymentId}`;
    const deposit = privateKeyToAccount(payment!.key);
    const amount = BigInt(payment!.amount);
    const commission = (amount * COMMISSION_PERCENT) / 100n;
    const transfer = (to: Address, value: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, value] });
    const [terms, estimate] = await Promise.all([
      fees(),
      client.estimateGas({ account: deposit.address, to: chain.usdc, data: transfer(treasury.address, amount - commission) }),
    ]);
    const gas = (estimate * 125n) / 100n;
    const gasHash = await fromTreasury(deposit.address, 2n * gas * terms.maxFeePerGas, terms);
    await mined(gasHash);
    const signed = await Promise.all(
      [
        { to: BENCH_MERCHANT_WALLET as Address, value: amount - commission },
        { to: treasury.address, value: commission },
      ].map((t, nonce) =>
        deposit.signTransaction({
          type: 'eip1559',
          chainId: CHAIN_ID,
          nonce,
          to: chain.usdc,
          data: transfer(t.to, t.value),
          gas,
          ...terms,
        }),
      ),
    );
    const [merchantHash, commissionHash] = [await send(signed[0]!), await send(signed[1]!)];
    await Promise.all([mined(merchantHash), mined(commissionHash)]);
    const post = await sql.begin(async (tx) => {
      await tx`insert into bench_min_payouts (payment_id, kind, tx_hash, amount) values
        (${input.paymentId}, 'gas', ${gasHash}, ${(2n * gas * terms.maxFeePerGas).toString()}),
        (${input.paymentId}, 'merchant', ${merchantHash}, ${(amount - commission).toString()}),
        (${input.paymentId}, 'commission', ${commissionHash}, ${commission.toString()})`;
      await tx`update bench_min_payments set status = 'settled', updated_at = now() where id = ${input.paymentId}`;
      const body = { event: 'payment.settled', sessionId: input.paymentId, status: 'settled', transactionHash: merchantHash };
      const [event] = await tx<{ id: string; body: string }[]>`
        insert into bench_min_events (id, payment_id, type, body) values (${newEventId()}, ${input.paymentId}, 'settled', ${tx.json(body)})
        returning id, body::text as body`;
      return { url: input.webhookUrl, eventId: event!.id, body: event!.body };
    });
    await signedPost(post, secret);
  };
}

export function createMinimalActivities(sql: postgres.Sql, secret: string, chain: { rpcUrl: string; usdc: Address }) {
  return {
    payOut: minimalPayouts(sql, secret, chain),
    /** The transition and its event in one transaction; a retry finds both done and posts the same event. */
    async recordTransition(input: { paymentId: string; to: string; webhookUrl: string }): Promise<WebhookPost | null> {
      return sql.begin(async (tx) => {
        await tx`update bench_min_payments set status = ${input.to}, updated_at = now() where id = ${input.paymentId} and status <> ${input.to}`;
        const body = { event: `payment.${input.to}`, sessionId: input.paymentId, status: input.to };
        const [event] = await tx<{ id: string; body: string }[]>`
          insert into bench_min_events (id, payment_id, type, body) values (${newEventId()}, ${input.paymentId}, ${input.to}, ${tx.json(body)})
          on conflict (payment_id, type) do update set type = excluded.type returning id, body::text as body`;
        return input.to === 'completed' ? { url: input.webhookUrl, eventId: event!.id, body: event!.body } : null;
      });
    },
    async postWebhook(post: WebhookPost): Promise<void> {
      await signedPost(post, secret);
    },
  };
}

export type MinimalActivities = ReturnType<typeof createMinimalActivities>;
