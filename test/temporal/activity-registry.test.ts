import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeActivityGroups } from '../../src/activities';
import { findPayouts, insertPayoutsOnce } from '../../src/db/queries/payouts';
import { newPayoutId } from '../../src/domain/ids';
import { activitiesFor, useTestApp } from '../support/harness';
import { HISTORIES_DIR } from './histories';

// The worker registers every activity by name in one map. Two activities of one name would let the
// later silently replace the earlier, and a workflow would run the other one with its arguments; the
// committed histories say which activities each workflow type calls, and with how many arguments.

const ctx = useTestApp();

interface HistoryEvent {
  activityTaskScheduledEventAttributes?: { activityType: { name: string }; input?: { payloads?: unknown[] } };
  markerRecordedEventAttributes?: { markerName: string; details: Record<string, { payloads: { data: string }[] }> };
}

/** The activities a history's run called: scheduled ones with their argument count, local ones by name. */
function calledActivities(file: string): { name: string; args: number | null }[] {
  const { events } = JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as { events: HistoryEvent[] };
  return events.flatMap((e): { name: string; args: number | null }[] => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) return [{ name: scheduled.activityType.name, args: scheduled.input?.payloads?.length ?? 0 }];
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = marker.details.data?.payloads[0]?.data;
      if (!data) return [];
      const { activity_type } = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { activity_type: string };
      return [{ name: activity_type, args: null }];
    }
    return [];
  });
}

describe('activity registration', () => {
  it('refuses two activities of one name', () => {
    const first = { refundNotSent: async (_ids: string[]) => {} };
    const second = { refundNotSent: async (_id: string) => {} };
    expect(() => mergeActivityGroups(first, second)).toThrow('two activities are named refundNotSent');
    expect(Object.keys(mergeActivityGroups(first, { other: async () => {} }))).toEqual(['refundNotSent', 'other']);
  });

  it("registers every activity a committed history's run called, taking the arguments it was given", () => {
    const registered = activitiesFor(ctx) as unknown as Record<string, (...args: unknown[]) => unknown>;
    const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    let checked = 0;
    for (const file of files) {
      for (const { name, args } of calledActivities(file)) {
        const activity = registered[name];
        expect(activity, `${file} calls ${name}`).toBeTypeOf('function');
        // A function's length counts its parameters up to the first one with a default.
        if (args !== null) expect(args, `${file}: ${name}'s arguments`).toBeGreaterThanOrEqual(activity!.length);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(files.length);
  });

  it("an exception's refund that could not be sent fails its unsent transfers, not a payment refund's", async () => {
    const activities = activitiesFor(ctx);
    const [row] = await insertPayoutsOnce(ctx.db.db, [
      {
        id: newPayoutId(),
        paymentId: 'SV_registry0000000000000001',
        kind: 'refund',
        exceptionId: 'exc_registry00000000000001',
        network: 'polygon',
        asset: 'USDC',
        token: ctx.config.chains.networks.find((n) => n.network === 'polygon')!.tokens.USDC!,
        fromAddress: '0x0000000000000000000000000000000000000001',
        toAddress: '0x0000000000000000000000000000000000000002',
        amount: '1000000',
      },
    ]);
    await activities.exceptionRefundNotSent([row!.id], 'the token refused the transfer');
    const [after] = await findPayouts(ctx.db.db, [row!.id]);
    expect(after).toMatchObject({ status: 'failed', failureReason: 'not sent: the token refused the transfer' });
  });
});
