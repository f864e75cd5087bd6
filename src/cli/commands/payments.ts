import { z } from 'zod';
import { arg, defineCommand, text, value, type CommandInput, type OpsCommand, type RunContext } from '../command';
import { formatPayment, formatPayments, formatProof, paymentAnswer, paymentsView, proofAnswer } from '../render';
import { positiveSeconds } from '../values';

// Payments: the platform-wide kill switch (docs/operations.md), waiting for one payment to finish, its proof on chain, and
// the refund of a completed payment.

const POLL_INTERVAL_MS = 1000;
const DEFAULT_WAIT_SECONDS = 60;

/** The payment did not reach a final status in time: exit 1, naming where it stands. */
export class WaitTimeoutError extends Error {
  constructor(
    readonly paymentId: string,
    readonly status: string,
    readonly seconds: number,
  ) {
    super(`${paymentId} is still ${status} after ${seconds} s`);
    this.name = 'WaitTimeoutError';
  }
}

/** Polls the admin API until the payment is terminal; the answer that says so is what gets printed. */
async function waitUntilTerminal(input: CommandInput, ctx: RunContext): Promise<unknown> {
  const id = arg(input, 'paymentId');
  const seconds = value<number>(input, 'timeout') ?? DEFAULT_WAIT_SECONDS;
  const deadline = ctx.now() + seconds * 1000;
  for (;;) {
    const body = await ctx.call({ method: 'GET', path: `/payments/${encodeURIComponent(id)}` });
    const parsed = paymentAnswer.safeParse(body);
    // Without the `terminal` field there is nothing to wait for: an older service, reported as such.
    if (!parsed.success) throw new Error(`unexpected answer from GET /admin/v1/payments/${id}: ${JSON.stringify(body)}`);
    if (parsed.data.payment.terminal) return body;
    const left = deadline - ctx.now();
    if (left <= 0) throw new WaitTimeoutError(id, parsed.data.payment.status, seconds);
    await ctx.sleep(Math.min(POLL_INTERVAL_MS, left));
  }
}

export const PAYMENT_COMMANDS: readonly OpsCommand[] = [
  defineCommand({
    name: 'payments status',
    summary: 'Show whether new payments are accepted (the kill switch).',
    request: () => ({ method: 'GET', path: '/settings/payments' }),
    response: paymentsView,
    render: formatPayments,
  }),
  defineCommand({
    name: 'payments disable',
    summary: 'Refuse every new payment platform-wide; payments under way continue.',
    request: () => ({ method: 'PUT', path: '/settings/payments', body: { enabled: false } }),
    response: paymentsView,
    render: formatPayments,
  }),
  defineCommand({
    name: 'payments enable',
    summary: 'Accept new payments again.',
    request: () => ({ method: 'PUT', path: '/settings/payments', body: { enabled: true } }),
    response: paymentsView,
    render: formatPayments,
  }),
  defineCommand({
    name: 'payments wait',
    args: [{ name: 'paymentId', description: 'the payment, SV_…' }],
    options: [
      {
        flags: '--timeout <seconds>',
        description: 'give up after this many seconds (exit 1)',
        parse: positiveSeconds,
        defaultValue: DEFAULT_WAIT_SECONDS,
      },
    ],
    summary: 'Wait until a payment is completed, failed, expired or canceled; print its status and transaction.',
    execute: waitUntilTerminal,
    response: paymentAnswer,
    render: formatPayment,
  }),
  defineCommand({
    name: 'payments proof',
    args: [{ name: 'paymentId', description: "the payment: SV_… or a simple order's transaction code" }],
    summary:
      'Show what proves a payment on chain: its deposit address, the token balance there, the credited logs with tx hashes and confirmations.',
    request: (input) => ({ method: 'GET', path: `/payments/${encodeURIComponent(arg(input, 'paymentId'))}/proof` }),
    response: proofAnswer,
    render: formatProof,
  }),
  defineCommand({
    name: 'payments refund',
    args: [
      { name: 'paymentId', description: 'the completed payment, SV_…' },
      { name: 'amount', description: 'how much of its stablecoin to send back, e.g. 12.5 (at most what is left to refund)' },
    ],
    options: [
      {
        flags: '--address <address>',
        description: 'where the money goes on chain; without it, the refund address the customer gave on the checkout page',
      },
    ],
    summary:
      'Refund a completed payment, wholly or partly, from the treasury, drawn from the merchant’s balance in its asset and network (refused when that balance holds less). payment.refunded fires when the transfer is confirmed.',
    request: (input) => {
      const address = text(input, 'address');
      return {
        method: 'POST',
        path: `/payments/${encodeURIComponent(arg(input, 'paymentId'))}/refunds`,
        body: { amount: arg(input, 'amount'), ...(address === undefined ? {} : { address }) },
      };
    },
    response: z.object({
      refund: z.object({ id: z.string(), amount: z.string(), asset: z.string(), address: z.string(), status: z.string() }),
    }),
    render: (b) => [`refund ${b.refund.id} ${b.refund.status}: ${b.refund.amount} ${b.refund.asset} to ${b.refund.address}`],
  }),
];
