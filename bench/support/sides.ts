import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import postgres from 'postgres';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { createSandboxChains } from '../../sandbox/chain';
import { newPaymentId } from '../../src/domain/ids';
import { MINIMAL_PAYMENT_WORKFLOW, providerFact, type MinimalPaymentInput } from '../minimal/messages';
import { postJson } from './http-client';
import type { SettlementClock } from './settlement-clock';
import { countingSocket } from './sql-count';
import type { Stack } from './stack';

/** One side of the payment figures: opens a payment, then pays it as the customer and provider would. */
export interface PaymentSide {
  name: 'ours' | 'minimal' | 'minimal with payouts';
  open(): Promise<string>;
  pay(id: string): Promise<void>;
  /** Ours: its settlement schedules, which a round resumes as it starts and pauses once its payments have settled. */
  clock?: SettlementClock;
}

const AMOUNT = '25.000000';
const AMOUNT_MICRO = 25_000_000n;

/** Ours: the merchant API creates the session; the sandbox's test helper presses Pay, transfers the tokens and sends its callbacks. */
export function oursSide(input: { apiUrl: string; sandboxUrl: string; apiKey: string }): PaymentSide {
  return {
    name: 'ours',
    async open() {
      const res = await postJson(
        `${input.apiUrl}/api/v1/checkout/sessions`,
        { authorization: `Bearer ${input.apiKey}` },
        { amount: 25, currency: 'USD', countryCode: 'US' },
      );
      const body = JSON.parse(res.text) as { checkoutSession?: { id: string } };
      if (res.status !== 201 || !body.checkoutSession) throw new Error(`create session: ${res.status} ${res.text}`);
      return body.checkoutSession.id;
    },
    async pay(id) {
      const res = await postJson(`${input.sandboxUrl}/test-helpers/pay`, {}, { reference: id, outcome: 'succeeded' });
      if (res.status < 200 || res.status > 299) throw new Error(`sandbox pay ${id}: ${res.status} ${res.text}`);
    },
  };
}

/**
 * The minimal implementation: a row and a workflow start; paying is the provider's hint as a
 * signal and the same on-chain transfer the sandbox makes (its own delivery code), which the
 * minimal worker's watcher credits.
 */
export function minimalSide(input: {
  stack: Stack;
  temporal: Client;
  taskQueue: string;
  webhookUrl: string;
  payOut?: boolean;
  /** Counts the statements of its inserts, the side's share of the SQL sent from the bench process. */
  statements?: { statements: number };
}) {
  const sql = postgres(input.stack.databaseUrl, {
    max: 10,
    onnotice: () => {},
    ...(input.statements ? { socket: countingSocket(input.statements) } : {}),
  });
  const { deliver } = createSandboxChains([
    { network: 'polygon', rpcUrl: input.stack.rpcUrl, chainId: 31337, confirmations: 1, tokens: input.stack.tokens.polygon },
  ]);
  const deposits = new Map<string, string>();
  const payOut = input.payOut ?? false;
  const side: PaymentSide = {
    name: payOut ? 'minimal with payouts' : 'minimal',
    async open() {
      const id = newPaymentId();
      const key = generatePrivateKey();
      const address = privateKeyToAccount(key).address;
      deposits.set(id, address);
      // The key only where the payment is paid out (the minimal payout signs from the deposit address).
      await sql`insert into bench_min_payments (id, deposit_address, expected_micro, deposit_key)
        values (${id}, ${address}, ${AMOUNT_MICRO.toString()}, ${payOut ? key : null})`;
      const args: [MinimalPaymentInput] = [
        { paymentId: id, expectedMicro: AMOUNT_MICRO.toString(), webhookUrl: input.webhookUrl, ...(payOut ? { payOut } : {}) },
      ];
      await input.temporal.workflow.start(MINIMAL_PAYMENT_WORKFLOW, { taskQueue: input.taskQueue, workflowId: id, args });
      return id;
    },
    async pay(id) {
      const handle = input.temporal.workflow.getHandle(id);
      await handle.signal(providerFact, { kind: 'processing', reference: id });
      // A reverted dev-chain transaction moved nothing, so sending it again cannot pay twice.
      for (let attempt = 1; ; attempt++) {
        try {
          await deliver({ network: 'polygon', asset: 'USDC', to: deposits.get(id)!, amount: AMOUNT });
          break;
        } catch (err) {
          if (attempt >= 3 || !/reverted/.test(String(err))) throw err;
        }
      }
      // The watcher's credit may have completed the payment first (its run then has ended): the
      // provider's word changes nothing, as it would not for ours.
      await handle.signal(providerFact, { kind: 'succeeded', reference: id }).catch((err: unknown) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
    },
  };
  return { side, sql, close: () => sql.end({ timeout: 2 }) };
}

/** Runs `task` for 0..count-1 with at most `concurrency` at once. */
export async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
