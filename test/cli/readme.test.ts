import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ADMIN_TOKEN, useTestApp } from '../support/harness';
import { eventually, http } from '../support/http';
import { startReceiver } from '../support/receiver';
import { verifyWithCopiedFile, verifyWithPackage, verifyWithShellRecipe } from '../support/verifier-copies';
import { readmeOpsLines, type OpsLine } from './readme-lines';
import { exampleBlock } from '../support/guides';
import { balanceOf, mint, payFromWallet, randomAddress, sharedChain } from '../support/chain';
import { expectOk, runOpsHere, type Run } from './run-ops';
import { ownTreasury } from '../payouts/support';
import { settlementScheduleId } from '../../src/temporal/settlement-schedules';

// Each command runs the CLI's program in this process (runOpsHere: its argv, its own environment, its
// output and exit status); starting a tsx process per line took most of the file's time. The
// `npm run ops` wrapper itself is run by test/cli/ops-errors.test.ts.
vi.setConfig({ testTimeout: 120_000 });

// Every `npm run ops -- …` line of the guides' shell blocks (the README's first payment and
// docs/operations.md), run as written (the program `npm run ops` runs)
// against the whole stack on real sockets: API, sandbox provider, worker. Only the placeholders are
// filled in (MER_…, SV_…, key_…, we_…, dlv_…, and the example webhook URL, which becomes a local
// receiver). A line with no step below fails the test.

// A treasury of this file's own: the payouts step takes its native coin away for a while. A refusal
// is given up after five attempts over the shortest window a deployment may set, not a minute.
const own = ownTreasury({ PAYOUT_REFUSAL_WINDOW_SECONDS: '5' });
const ctx = useTestApp(own.overrides, { listen: true, sandbox: true, worker: true });
const chain = sharedChain();
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const EXAMPLE_WEBHOOK_URL = 'https://shop.example/webhooks/svc';
const state: Partial<
  Record<
    | 'merchantId'
    | 'liveKey'
    | 'keyId'
    | 'endpointId'
    | 'secret'
    | 'paymentId'
    | 'deliveryId'
    | 'exceptionId'
    | 'latePaymentId'
    | 'refundAddress'
    | 'topUpAddress'
    | 'failedPaymentId'
    | 'payoutId'
    | 'fundingHash',
    string
  >
> = {};

/** The statuses of the sweeps that took a payment's deposit. */
const sweepsOf = (paymentId: string) =>
  ctx.db
    .sql`select p.status from payout_items i join payouts p on p.id = i.payout_id where i.payment_id = ${paymentId} and p.kind = 'sweep'`.then(
    (rows) => rows.map((r) => r.status as string),
  );
const settlementSchedule = () => ctx.temporal.schedule.getHandle(settlementScheduleId(ctx.config.temporal.taskQueue));

function fill(args: string[]): string[] {
  const need = (key: keyof typeof state) => state[key] ?? expect.fail(`no earlier step provided ${key}`);
  const placeholders: Record<string, () => string> = {
    'MER_…': () => need('merchantId'),
    'SV_…': () => need('paymentId'),
    'key_…': () => need('keyId'),
    'we_…': () => need('endpointId'),
    'dlv_…': () => need('deliveryId'),
    'exc_…': () => need('exceptionId'),
    'po_…': () => need('payoutId'),
    '0x…': () => need('refundAddress'),
    '0xHASH…': () => need('fundingHash'),
    [EXAMPLE_WEBHOOK_URL]: () => `${receiver.url}/webhooks/svc`,
  };
  const filled = args.map((a) => placeholders[a]?.() ?? a);
  for (const a of filled) expect(a, 'an unknown placeholder in the guides').not.toContain('…');
  return filled;
}

const ops = (args: string[]) => runOpsHere(args, { SVC_URL: ctx.baseUrl, ADMIN_TOKEN, SVC_DATA_DIR: '/nonexistent' });
const capture = (run: Run, pattern: RegExp) => pattern.exec(run.stdout)?.[1] ?? expect.fail(`${pattern} not in:\n${run.stdout}`);
const api = (method: 'GET' | 'POST', path: string, body?: unknown) =>
  http(method, `${ctx.baseUrl}/api/v1/${path}`, {
    headers: { authorization: `Bearer ${state.liveKey}` },
    ...(body === undefined ? {} : { body }),
  });

/** Money after a checkout was canceled: the customer sends it from a wallet anyway, and it arrives on chain. */
async function lateTransfer(micro: bigint): Promise<string> {
  const created = await api('POST', 'checkout/sessions', { amount: Number(micro) / 1e6, currency: 'USD', countryCode: 'US' });
  const id = created.json.checkoutSession.id as string;
  expect((await http('POST', `${ctx.baseUrl}/pay/${id}/cancel`)).status).toBe(303);
  await ctx.temporal.workflow.getHandle(id).result();
  const [{ deposit_address: depositAddress }] = (await ctx.db
    .sql`select deposit_address from checkout_sessions where id = ${id}`) as unknown as [{ deposit_address: Address }];
  await payFromWallet(chain, chain.tokens.polygon.USDC, depositAddress, micro);
  await eventually(
    () => ctx.db.sql`select count(*)::int as n from payment_exceptions where payment_id = ${id}`.then((r) => r[0]!.n as number),
    (n) => n === 1,
    20_000,
    'the late exception',
  );
  return id;
}

/** The first payment's checkout request body and the sandbox's pay helper, as the README does them. */
async function payAsTheReadmeDoes(): Promise<void> {
  const body = /checkout\/sessions[\s\S]*?-d '([^']+)'/.exec(exampleBlock('first-payment').code)![1]!;
  const created = await api('POST', 'checkout/sessions', JSON.parse(body));
  expect(created.status).toBe(201);
  state.paymentId = created.json.checkoutSession.id;
  const paid = await http('POST', `${ctx.config.providers.sandbox.url}/test-helpers/pay`, {
    body: { reference: state.paymentId, outcome: 'succeeded' },
  });
  expect(paid.status).toBe(200);
}

/** The README payment's payment.completed deliveries (a later payment of the merchant has its own). */
const completedDeliveries = () =>
  receiver.received.filter((d) => d.headers['svc-event-type'] === 'payment.completed' && d.body.sessionId === state.paymentId);

// In running order; each checks what the line printed and keeps what later lines need.
const steps: Record<
  string,
  { before?: () => Promise<void>; check: (run: Run, line: OpsLine) => void | Promise<void>; timeoutMs?: number }
> = {
  'merchants create': {
    check: (run, line) => {
      expect(run.stdout).toMatch(/status\s+pending_review/);
      expect(run.stdout).toContain(`"${line.args[line.args.indexOf('--name') + 1]}"`);
      state.merchantId ??= capture(run, /^merchant (MER_\w+)/);
    },
  },
  'merchants approve': { check: (run) => void (state.liveKey = capture(run, /live key: (svc_live_\w+)/)) },
  'merchants list': { check: (run) => expect(run.stdout).toMatch(new RegExp(`^${state.merchantId} approved +"Corner Shop"$`, 'm')) },
  'merchants get': { check: (run) => expect(run.stdout).toContain(`merchant ${state.merchantId} "Corner Shop"`) },
  'keys create': { check: (run) => void (state.keyId = capture(run, /^restricted key (key_\w+) /)) },
  'keys rotate': { check: (run) => void (state.liveKey = capture(run, /new live key: (svc_live_\w+)/)) },
  'keys revoke': { check: (run) => expect(run.stdout).toMatch(new RegExp(`^revoked ${state.keyId} .*revoked `)) },
  'security-code rotate': { check: (run) => expect(run.stdout).toMatch(/^new security code: [A-Z2-9-]{27}\n/) },
  'wallets set': { check: (run) => expect(run.stdout).toContain('wallet set: USDC/polygon 0x52908400098527886E0F7030069857D2E4169EE7') },
  'webhooks add': {
    check: (run) => {
      state.endpointId = capture(run, new RegExp(`^endpoint (we_\\w+) ${receiver.url}/webhooks/svc \\(enabled\\)`));
      state.secret = capture(run, /signing secret: (whsec_\w+)/);
    },
  },
  'webhooks list': { check: (run) => expect(run.stdout).toBe(`${state.endpointId} ${receiver.url}/webhooks/svc (enabled)\n`) },
  'payments wait': {
    before: async () => {
      if (!state.paymentId) await payAsTheReadmeDoes();
    },
    check: async (run) => {
      expect(run.stdout.split('\n')[0]).toBe(`payment ${state.paymentId} completed`);
      // The README's next line reads the transaction: once the wait returns, it is there.
      const tx = await api('GET', `transactions/${state.paymentId}`);
      expect(tx.json.transaction).toMatchObject({ id: state.paymentId, status: 'completed', sourceAmount: '25.00' });
      expect(run.stdout).toContain(`settled       ${tx.json.transaction.grossAmount} USDC on polygon`);
    },
  },
  'payments proof': {
    check: async (run) => {
      expect(run.stdout.split('\n')[0]).toBe(`proof ${state.paymentId} completed (checkout_session, verification chain)`);
      const tx = (await api('GET', `transactions/${state.paymentId}`)).json.transaction;
      // The payout empties the deposit address moments after completion: before it the gross is there, after it nothing.
      const balance = /on chain\s+(\d+\.\d{6}) USDC at the deposit address now/.exec(run.stdout)?.[1];
      expect([tx.grossAmount, '0.000000']).toContain(balance);
      expect(run.stdout).toMatch(
        new RegExp(
          `logs\\s+${tx.depositTransactionHash ?? tx.transactionHash}:\\d+ ${tx.grossAmount.replace('.', '\\.')} USDC block \\d+, \\d+ confirmations, credited`,
        ),
      );
    },
  },
  'merchants balance': {
    // Read once the README payment is swept and paid out: the balance the refund below draws on is empty.
    before: async () => {
      await eventually(
        () => ctx.db.sql`select p.status from payout_items i join payouts p on p.id = i.payout_id where i.payment_id = ${state.paymentId!}`,
        (rows) => rows.length === 2 && rows.every((r) => r.status === 'confirmed'),
        60_000,
        'the README payment swept and paid out',
      );
    },
    check: (run) => {
      expect(run.stdout).toContain('USDC on polygon: available 0.000000, reserved 0.000000, pending 0.000000\n');
      state.topUpAddress = capture(run, /^top-up address on polygon: (0x[0-9a-fA-F]{40})$/m);
    },
  },
  'payments refund': {
    // The README's completed payment, paid out, refunded in part from its merchant's balance, which
    // the merchant topped up at its own address (the README's faucet line stands in for its wallet).
    before: async () => {
      await mint(chain, chain.tokens.polygon.USDC, state.topUpAddress as Address, 5_000_000n);
      await eventually(
        async () => (await api('GET', 'balance')).json.balances as { network: string; asset: string; available: string }[],
        (lines) => lines.some((l) => l.network === 'polygon' && l.asset === 'USDC' && l.available === '5.000000'),
        30_000,
        'the top-up available',
      );
      state.refundAddress = randomAddress();
    },
    check: async (run) => {
      expect(run.stdout).toMatch(new RegExp(`^refund rf_\\w+ (requested|refunded): 1\\.000000 USDC to ${state.refundAddress}`));
      await eventually(
        () => balanceOf(chain, chain.tokens.polygon.USDC, state.refundAddress as Address),
        (b) => b === 1_000_000n,
        60_000,
        'the refund on chain',
      );
    },
  },
  'deliveries list': {
    before: async () => {
      await eventually(
        async () => completedDeliveries().length,
        (n) => n > 0,
        20_000,
        'the payment.completed delivery',
      );
    },
    check: (run) => {
      state.deliveryId = capture(
        run,
        new RegExp(`^delivery (dlv_\\w+) payment\\.completed \\(evt_\\w+\\) → ${receiver.url}/webhooks/svc: succeeded$`, 'm'),
      );
      expect(run.stdout).toMatch(/^\s+\S+Z 200 \d+ ms$/m);
    },
  },
  'deliveries resend': {
    check: async (run) => {
      expect(run.stdout).toBe(`delivery ${state.deliveryId} queued again (pending)\n`);
      await eventually(
        async () => completedDeliveries().length,
        (n) => n > 1,
        20_000,
        'the resent delivery',
      );
      expect(new Set(completedDeliveries().map((d) => d.headers['svc-delivery-id']))).toEqual(new Set([state.deliveryId]));
    },
  },
  'webhooks disable': { check: (run) => expect(run.stdout).toBe(`disabled ${state.endpointId} ${receiver.url}/webhooks/svc (disabled)\n`) },
  'webhooks enable': { check: (run) => expect(run.stdout).toBe(`enabled ${state.endpointId} ${receiver.url}/webhooks/svc (enabled)\n`) },
  'webhooks delete': { check: (run) => expect(run.stdout).toBe(`deleted endpoint ${state.endpointId} ${receiver.url}/webhooks/svc\n`) },
  'payments status': { check: (run) => expect(run.stdout).toMatch(/^payments: enabled/) },
  'payments disable': { check: (run) => expect(run.stdout).toMatch(/^payments: DISABLED/) },
  'payments enable': { check: (run) => expect(run.stdout).toMatch(/^payments: enabled/) },
  'exceptions list': {
    before: async () => {
      state.latePaymentId = await lateTransfer(12_000_000n);
    },
    check: async (run) => {
      state.exceptionId = capture(run, new RegExp(`^(exc_\\w+) +open +late +12\\.000000  ${state.latePaymentId} `, 'm'));
      // Whom it concerns, on the next line: the merchant, the token and its sender as the chain has them.
      const [credit] = await ctx.db.sql`select from_address, token from chain_credits where payment_id = ${state.latePaymentId!}`;
      expect(run.stdout).toMatch(
        new RegExp(
          `^${state.exceptionId} .*\\n    merchant ${state.merchantId}  token USDC polygon \\(${credit!.token}\\)  from ${credit!.from_address}$`,
          'm',
        ),
      );
    },
  },
  'exceptions accept': {
    check: async (run) => {
      expect(run.stdout).toMatch(new RegExp(`^accepted ${state.exceptionId} +accepted +late `));
      expect(run.stdout).toContain(`payment ${state.latePaymentId} is completed`);
      const session = await api('GET', `payment-sessions/${state.latePaymentId}`);
      expect(session.json.paymentSession).toMatchObject({
        status: 'completed',
        exceptions: [{ id: state.exceptionId, kind: 'late', status: 'accepted' }],
      });
    },
  },
  'exceptions refund': {
    // Another late transfer to a canceled checkout, sent back to the customer's wallet.
    before: async () => {
      state.latePaymentId = await lateTransfer(7_000_000n);
      const [row] = await ctx.db.sql`select id from payment_exceptions where payment_id = ${state.latePaymentId}`;
      state.exceptionId = row!.id as string;
      state.refundAddress = randomAddress();
    },
    check: async (run) => {
      expect(run.stdout).toMatch(new RegExp(`^refund (planned|signed|broadcast|confirmed): 7\\.000000 to ${state.refundAddress}`));
      const to = state.refundAddress as Address;
      await eventually(
        () => balanceOf(chain, chain.tokens.polygon.USDC, to),
        (b) => b === 7_000_000n,
        30_000,
        'the refund to arrive',
      );
      const session = await eventually(
        () => api('GET', `payment-sessions/${state.latePaymentId}`),
        (r) => r.json.paymentSession.exceptions[0]?.status === 'refunded',
        20_000,
        'the exception refunded',
      );
      expect(session.json.paymentSession).toMatchObject({
        status: 'canceled',
        exceptions: [{ id: state.exceptionId, kind: 'late', status: 'refunded' }],
      });
    },
  },
  'payouts list': {
    // A sweep the chain refuses: the treasury has no native coin left for its gas, so the sweep is
    // given up after its bounded attempts (PAYOUT_REFUSAL_WINDOW_SECONDS above). The runs are the
    // test's (the schedule paused), so that no later attempt settles it before the operator's retry.
    timeoutMs: 180_000,
    before: async () => {
      await settlementSchedule().pause();
      // A transfer still under way (an earlier run's) is finished first by the next run, which then plans
      // nothing new: wait for none, so that the run below plans this payment's sweep.
      await eventually(
        () =>
          ctx.db.sql`select count(*)::int as n from payouts where status in ('planned', 'signed', 'broadcast')`.then(
            (r) => r[0]!.n as number,
          ),
        (n) => n === 0,
        120_000,
        'no transfer under way',
      );
      await own.chain.control.setBalance({ address: own.treasury, value: 0n });
      const created = await api('POST', 'checkout/sessions', { amount: 9, currency: 'USD', countryCode: 'US' });
      const id = (state.failedPaymentId = created.json.checkoutSession.id as string);
      const { deposit } = (await http('POST', `${ctx.baseUrl}/api/v1/checkout/sessions/${id}/deposit`)).json;
      await payFromWallet(chain, chain.tokens.polygon.USDC, deposit.address, BigInt(Math.round(Number(deposit.amount) * 1e6)));
      await eventually(
        () => ctx.db.sql`select status from checkout_sessions where id = ${id}`.then((r) => r[0]!.status as string),
        (status) => status === 'completed',
        60_000,
        'the payment completed',
      );
      // Started here rather than by the schedule's trigger, which a run still in flight would skip. A
      // run that found the deposit already taken or not yet sweepable (a run of the schedule's, started
      // before the pause, still finishing) ends at once: the next one plans it.
      const outcomes: unknown[] = [];
      for (let attempt = 1; attempt <= 5 && !(await sweepsOf(id)).includes('failed'); attempt++) {
        const run = await ctx.temporal.workflow.start('settlementRun', {
          workflowId: `readme-refused-sweep-${id}-${attempt}`,
          taskQueue: ctx.config.temporal.taskQueue,
          args: [{ networks: ['polygon'] }],
        });
        outcomes.push(await run.result());
      }
      expect(await sweepsOf(id), `the refused sweep to fail; the runs' outcomes: ${JSON.stringify(outcomes)}`).toContain('failed');
    },
    check: (run) => {
      state.payoutId = capture(run, /^(po_\w+) +failed +sweep /m);
      expect(run.stdout).toContain('the sender lacks the native coin for the transfer and its gas');
    },
  },
  'payouts retry': {
    // The next run after the retry sweeps it: a run's steps on a loaded machine, not a timer.
    timeoutMs: 150_000,
    before: async () => {
      await own.chain.control.setBalance({ address: own.treasury, value: 10n ** 20n });
    },
    check: async (run) => {
      // Cleared: the row stays failed (what happened), and the next run sweeps the payment's deposit anew.
      expect(run.stdout).toMatch(new RegExp(`^retrying ${state.payoutId} +failed +sweep `));
      await settlementSchedule().unpause();
      await eventually(
        () => sweepsOf(state.failedPaymentId!),
        (s) => s.includes('confirmed'),
        120_000,
        'the retried sweep to be confirmed',
      );
    },
  },
  'treasury fund': {
    // Money put into the treasury from outside: a difference until it is recorded, then on the ledger.
    before: async () => {
      state.fundingHash = await mint(chain, chain.tokens.polygon.USDC, own.treasury, 2_000_000n);
    },
    check: (run) => expect(run.stdout).toBe('recorded: 2000000 micro USDC from 0x0000000000000000000000000000000000000000\n'),
  },
  'merchants settlements': {
    check: (run) => {
      const [header, ...rows] = run.stdout.trimEnd().split(/\r?\n/);
      expect(header).toBe(
        'payment_id,asset,network,gross,commission,net,deposit_tx,payout_tx,completed_at,settled_at,rail_type,provider,order_id,paid_with',
      );
      for (const row of rows) expect(row).toMatch(/^SV_\w+,USDC,polygon,\d+\.\d{6},/);
      // The first payment's order, as the README's checkout request names it ("orderId": "1001").
      expect(rows.find((r) => r.startsWith(`${state.paymentId},`))).toMatch(/,1001,[^,]+$/);
    },
  },
  'merchants suspend': { check: (run) => expect(run.stdout).toMatch(/status\s+suspended/) },
};

const lines = readmeOpsLines();
const order = Object.keys(steps);
const ordered = [...lines].sort((a, b) => order.indexOf(a.command) - order.indexOf(b.command));

describe('the guides: every ops command, as written', () => {
  it('the guides have ops lines, and each has a step here', () => {
    expect(lines.length).toBeGreaterThan(15);
    for (const l of lines) expect(order, `no step for the guides' line: ${l.line}`).toContain(l.command);
  });

  for (const l of ordered.filter((x) => order.includes(x.command))) {
    it(l.line, { timeout: steps[l.command]?.timeoutMs ?? 60_000 }, async () => {
      await steps[l.command]!.before?.();
      const run = expectOk(await ops(fill(l.args)));
      await steps[l.command]!.check(run, l);
    });
  }
});

describe('README: a first payment by hand', () => {
  it('waits for completion between paying and reading the transaction', () => {
    const block = exampleBlock('first-payment').code;
    const pay = block.indexOf('test-helpers/pay');
    const wait = block.indexOf('npm run ops -- payments wait SV_…');
    const read = block.indexOf('/api/v1/transactions/SV_…');
    expect(pay).toBeGreaterThan(0);
    expect(wait).toBeGreaterThan(pay);
    expect(read).toBeGreaterThan(wait);
  });
});

describe('README: the first payment’s real payment.completed delivery, verified as docs/webhooks.md tells merchants to', () => {
  const delivery = () => completedDeliveries()[0] ?? expect.fail('no payment.completed delivery was received');

  it('by the copied file and the installed package; tampered or re-keyed, refused', async () => {
    const d = delivery();
    const base = { body: d.rawBody, header: d.headers['svc-signature'], secret: state.secret!, nowMs: d.at };
    const cases = [
      { name: 'real', ...base },
      { name: 'tampered', ...base, body: d.rawBody.replace('"payment.completed"', '"payment.failed"') },
      { name: 'other secret', ...base, secret: 'whsec_someoneElse' },
      { name: 'replayed an hour later', ...base, nowMs: d.at + 3600_000 },
    ];
    const expected = {
      real: { ok: true },
      tampered: { ok: false, reason: 'bad_signature' },
      'other secret': { ok: false, reason: 'bad_signature' },
      'replayed an hour later': { ok: false, reason: 'stale_timestamp' },
    };
    expect(await verifyWithCopiedFile(cases)).toEqual(expected);
    expect(await verifyWithPackage(cases)).toEqual({ cjs: expected, esm: expected });
  });

  it('by the shell recipe, within 300 s of the signature', async () => {
    const d = delivery();
    expect((await verifyWithShellRecipe(d.rawBody, d.headers['svc-signature']!, state.secret!)).verdict).toBe('valid');
    expect((await verifyWithShellRecipe(`${d.rawBody}\n`, d.headers['svc-signature']!, state.secret!)).verdict).toBe('invalid');
  });

  it('by the Standard Webhooks library, from the same delivery and secret', () => {
    const d = delivery();
    expect(d.headers['webhook-id']).toBe(d.headers['svc-event-id']);
    expect(new Webhook(state.secret!).verify(d.rawBody, d.headers)).toMatchObject({
      event: 'payment.completed',
      eventId: d.headers['svc-event-id'],
    });
  });
});
