import type { ChainSettings, WebhookSettings } from '../config';
import type { Database } from '../db/client';
import type { BusinessLog } from '../logging';
import type { ProviderRegistry } from '../providers/registry';
import type { SessionCanceller } from '../temporal/session-cancel';
import { registerExplorers } from '../domain/explorers';
import { createChainProofActivities } from './chain-proof';
import { createCheckoutActivities } from './checkout-session';
import { createExceptionActivities } from './exceptions';
import { createPaymentLinkActivities } from './payment-links';
import { createPaymentRefundActivities } from './payment-refunds';
import { createPayoutActivities } from './payouts';
import { createSettlementActivities } from './settlement';
import { createProviderClosingActivities } from './provider-closing';
import { createSessionTransitionActivities } from './session-transitions';
import { createSimpleOrderActivities } from './simple-orders';
import { createWebhookEvents } from './webhooks';

export interface ActivityDeps {
  db: Database;
  providers: ProviderRegistry;
  publicBaseUrl: string;
  secretsKey: Buffer;
  allowPrivateUrls: boolean;
  webhooks: WebhookSettings;
  /** Networks and keys the payouts sign and send with. */
  chains: ChainSettings;
  /** Cancels a checkout session through its run's Cancel, with a reason (a paid link's other sessions). */
  cancelSession: SessionCanceller;
  now: () => Date;
  /** Business events: one line per transition an activity stores; silent when absent. */
  log?: BusinessLog;
}

/**
 * Every side effect a workflow needs, built from its dependencies so tests hand in real Postgres
 * and real HTTP peers. Each activity is idempotent: a retry or a replay writes nothing twice.
 */
export function createActivities(deps: ActivityDeps) {
  registerExplorers(deps.chains.networks);
  const checkout = createCheckoutActivities(deps);
  const proof = createChainProofActivities(deps);
  const webhooks = createWebhookEvents(deps);
  return mergeActivityGroups(
    checkout,
    proof,
    webhooks.activities,
    createSessionTransitionActivities({ checkout, proof, webhooks }),
    createPaymentLinkActivities(deps),
    createProviderClosingActivities(deps),
    createExceptionActivities(deps),
    createSimpleOrderActivities(deps),
    createPayoutActivities(deps),
    createPaymentRefundActivities(deps),
    createSettlementActivities({
      ...deps,
      // `payment.settled` of the payments whose payout confirmed, with their deliveries' first attempts.
      announceSettled: (paymentIds) => webhooks.emitSettledEvents(paymentIds),
    }),
  );
}

type Merged<G extends readonly object[]> = G extends readonly [infer H, ...infer R extends readonly object[]] ? H & Merged<R> : unknown;

/**
 * The worker registers activities by name in one map. Two groups naming the same activity would
 * let the later one silently replace the other (an object spread does), and a workflow typed against
 * the first would run the second with the wrong arguments: refused when the worker starts.
 */
export function mergeActivityGroups<const G extends readonly object[]>(...groups: G): Merged<G> {
  const merged: Record<string, unknown> = {};
  for (const group of groups)
    for (const [name, activity] of Object.entries(group)) {
      if (Object.hasOwn(merged, name)) throw new Error(`two activities are named ${name}: each name must be registered once`);
      merged[name] = activity;
    }
  return merged as Merged<G>;
}

export type Activities = ReturnType<typeof createActivities>;
