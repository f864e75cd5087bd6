import { formatCrypto } from '../../src/domain/money';
import { createWalletClient, http as viemHttp, parseEther, type Address } from 'viem';
import { devChain } from '../../tools/dev/dev-accounts';
import { deploySweepers } from '../../tools/dev/dev-sweepers';
import { english, generateMnemonic } from 'viem/accounts';
import { beforeAll, expect } from 'vitest';
import { settlementKeys } from '../../src/chains/derivation';
import { sharedChain, randomAddress, type TestChain } from '../support/chain';
import type { ChildProcess } from 'node:child_process';
import { adminHeaders, createApprovedMerchant, type TestContext } from '../support/harness';
import { envFor, startEntryPoint } from '../support/processes';
import { eventually, http } from '../support/http';

// Payout tests run against the run's shared anvil with a mnemonic of their own: their treasury's
// nonces and balances are theirs alone, so exact balance checks hold while other files pay out too.

export function ownTreasury(extra: Record<string, string> = {}) {
  const mnemonic = generateMnemonic(english);
  const account = settlementKeys(mnemonic).treasury;
  const treasury = account.address;
  const chain = sharedChain();
  // Filled in before the file's app starts (pass the same object to useTestApp): batched settlement
  // needs sweepers this treasury owns, which it deploys itself (its nonces are its own).
  const overrides: Record<string, string> = { ...extra, SETTLEMENT_MNEMONIC: mnemonic };
  beforeAll(async () => {
    await chain.control.setBalance({ address: treasury, value: parseEther('100') });
    const deployer = createWalletClient({ account, chain: devChain(chain.rpcUrl), transport: viemHttp(chain.rpcUrl) });
    const sweepers = await deploySweepers(deployer, chain.publicClient, treasury);
    for (const [network, address] of Object.entries(sweepers)) overrides[`CHAIN_${network.toUpperCase()}_SWEEPER`] = address;
  });
  return { mnemonic, treasury, chain, overrides };
}

/** A merchant whose settlement wallet is a fresh address (its balance is what the payouts sent). */
export async function merchantWithFreshWallet(ctx: TestContext, commissionBps = 150) {
  const wallet = randomAddress();
  const m = await createApprovedMerchant(ctx.app, {
    name: 'Payout Shop',
    commissionBps,
    wallets: [{ asset: 'USDC', network: 'polygon', address: wallet }],
  });
  return { ...m, wallet };
}

export async function openSession(ctx: TestContext, apiKey: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions`, {
    headers: { authorization: `Bearer ${apiKey}` },
    body: { amount: 25, currency: 'USD', countryCode: 'US', ...body },
  });
  expect(res.status).toBe(201);
  return res.json.checkoutSession.id as string;
}

export interface PayoutView {
  id: string;
  kind: string;
  status: string;
  from: Address;
  to: Address;
  amount: bigint;
  nonce: number | null;
  txHash: string | null;
  replaced: string[];
  feeWei: bigint | null;
  /** The stored terms the transfer is signed with. */
  gasLimit: bigint | null;
  maxFeePerGas: bigint | null;
}

/**
 * A payment's payouts: its own rows (a refund, a simple order's payout) and the settlement run's rows
 * that carry its money (the sweep of its deposit, the merchant's payout), sweep first.
 */
export async function payoutsOf(ctx: TestContext, paymentId: string): Promise<PayoutView[]> {
  const rows = await ctx.db.sql`select p.* from payouts p
    where p.payment_id = ${paymentId} or p.id in (select payout_id from payout_items where payment_id = ${paymentId})
    order by case p.kind when 'sweep' then 0 when 'merchant' then 1 else 2 end, p.created_at`;
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    status: r.status,
    from: r.from_address,
    to: r.to_address,
    amount: BigInt(r.amount),
    nonce: r.nonce,
    txHash: r.tx_hash,
    replaced: r.replaced_hashes,
    feeWei: r.fee_wei === null ? null : BigInt(r.fee_wei),
    gasLimit: r.gas_limit === null ? null : BigInt(r.gas_limit),
    maxFeePerGas: r.max_fee_per_gas === null ? null : BigInt(r.max_fee_per_gas),
  }));
}

/** Waits for a completed payment's settlement: its sweep and its merchant's payout confirmed. */
export async function waitForPayouts(ctx: TestContext, paymentId: string, timeoutMs = 60_000): Promise<PayoutView[]> {
  await eventually(
    async () => (await payoutsOf(ctx, paymentId)).map((p) => `${p.kind}:${p.status}`),
    (ps) => ps.length >= 2 && ps.every((p) => p.endsWith(':confirmed')),
    timeoutMs,
    `the payouts of ${paymentId} to be confirmed`,
  );
  return payoutsOf(ctx, paymentId);
}

/** GET /admin/v1/reconciliation's differences (0 is the healthy answer). */
export async function reconciliationDifferences(
  ctx: TestContext,
): Promise<{ account: string; expected: string; actual: string; note: string }[]> {
  const res = await ctx.app.inject({ method: 'GET', url: '/admin/v1/reconciliation', headers: adminHeaders });
  expect(res.statusCode).toBe(200);
  return res.json().differences as { account: string; expected: string; actual: string; note: string }[];
}

/** Postings whose lines do not sum to zero per asset and network (the database refuses them: expected empty). */
export async function unbalancedPostings(ctx: TestContext) {
  return ctx.db.sql`select posting_id, asset, network, sum(amount)::text as total from ledger_entries
    group by posting_id, asset, network having sum(amount) <> 0`;
}

export async function ledgerBalance(ctx: TestContext, account: string, asset: string, network = 'polygon'): Promise<bigint> {
  const [row] = await ctx.db
    .sql`select coalesce(sum(amount), 0)::text as b from ledger_entries where account = ${account} and asset = ${asset} and network = ${network}`;
  return BigInt(row!.b as string);
}

/** A worker process (worker.ts) that reaches every EVM network through `rpcUrl` (a trap proxy that may kill it). */
export async function startWorkerVia(ctx: Pick<TestContext, 'config'>, rpcUrl: string): Promise<ChildProcess> {
  const env = envFor(ctx.config);
  for (const key of Object.keys(env)) if (/^CHAIN_[A-Z]+_RPC_URL$/.test(key)) env[key] = rpcUrl;
  const { child } = await startEntryPoint('worker.ts', env, /worker: polling/);
  return child;
}

export type { TestChain };

/** Refunds of completed payments asked through the operators' API all at once: each answer, in order. */
export function refundAllAtOnce(ctx: TestContext, refunds: { paymentId: string; amount: bigint; address: string }[]) {
  return Promise.all(
    refunds.map((r) =>
      ctx.app.inject({
        method: 'POST',
        url: `/admin/v1/payments/${r.paymentId}/refunds`,
        headers: adminHeaders,
        payload: { amount: formatCrypto(r.amount), address: r.address },
      }),
    ),
  );
}
