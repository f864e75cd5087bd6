import type { Client } from '@temporalio/client';
import type postgres from 'postgres';
import { newPaymentId } from '../../src/domain/ids';
import { MINIMAL_PAYMENT_WORKFLOW } from '../minimal/messages';
import type { BenchOptions } from '../options';
import { figureFrom, type Figure } from '../support/figures';
import { pool, type PaymentSide } from '../support/sides';
import { interleaved } from '../support/stats';

const CONCURRENCY = 8;

/**
 * Session creation: ours over HTTP (POST /api/v1/checkout/sessions: auth, validation, quote of the
 * rail, row, workflow start, row made visible) against a raw loop in the bench process: the same
 * row inserted with postgres.js, then workflow.start. No worker polls either task queue, so the
 * workflows only start.
 */
export async function creationFigures(input: {
  options: BenchOptions;
  ours: PaymentSide;
  sql: postgres.Sql;
  temporal: Client;
  merchantId: string;
  idleQueue: string;
  webhookUrl: string;
}): Promise<Figure[]> {
  const { options, sql, temporal } = input;
  const raw = async () => {
    const id = newPaymentId();
    await sql`insert into checkout_sessions (id, merchant_id, status, amount_minor, currency, country_code, destination_asset, network, wallet_address, commission_bps, provider, rail_type, workflow_started, expires_at)
      values (${id}, ${input.merchantId}, 'pending', 2500, 'USD', 'US', 'USDC', 'polygon', '0x52908400098527886E0F7030069857D2E4169EE7', 100, 'sandbox', 'fiat_to_crypto', true, now() + interval '1 day')`;
    await temporal.workflow.start(MINIMAL_PAYMENT_WORKFLOW, {
      taskQueue: input.idleQueue,
      workflowId: id,
      args: [{ paymentId: id, expectedMicro: '25000000', webhookUrl: input.webhookUrl }],
    });
  };
  const rate = async (create: () => Promise<unknown>) => {
    const start = performance.now();
    await pool(options.creations, CONCURRENCY, async () => void (await create()));
    return { perSecond: options.creations / ((performance.now() - start) / 1000) };
  };
  await rate(() => input.ours.open());
  await rate(raw);
  const rounds = await interleaved(
    options.rounds,
    () => rate(() => input.ours.open()),
    () => rate(raw),
  );
  return [
    figureFrom(rounds, 'perSecond', {
      id: 'session_creation_per_second',
      title: 'session creation/s',
      unit: 'sessions/s',
      better: 'higher',
      includes: `${options.creations} sessions a round, ${CONCURRENCY} at once: POST /api/v1/checkout/sessions on server.ts (its own process), 201 once the workflow started.`,
      baselineIs: 'a raw loop in the bench process: one postgres.js insert of the same row, then workflow.start, same concurrency.',
    }),
  ];
}
