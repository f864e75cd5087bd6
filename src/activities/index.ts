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
  /** Business events (issue 31 item 6): one line per transition an activity stores; silent when absent. */
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
  return {
    ...checkout,
    ...proof,
    ...webhooks.activities,
    ...createSessionTransitionActivities({ checkout, proof, webhooks }),
    ...createPaymentLinkActivities(deps),
    ...createProviderClosingActivities(deps),
    ...createExceptionActivities(deps),
    ...createSimpleOrderActivities(deps),
    ...createPayoutActivities({
      ...deps,
      announceSettled: async (paymentId) =>
        (await webhooks.emitPaymentEventWithFirstAttempts(paymentId, 'completed', 'payment.settled')).emitted,
    }),
    ...createPaymentRefundActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
