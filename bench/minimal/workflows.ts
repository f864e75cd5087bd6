import { condition, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { MinimalActivities } from './activities';
import { depositCredit, providerFact, type MinimalPaymentInput, type WebhookPost } from './messages';

// One workflow per payment; the provider's facts and the chain's credits arrive as signals; one
// local activity writes each transition together with its event; one activity posts the webhook.
const { recordTransition } = proxyLocalActivities<MinimalActivities>({ startToCloseTimeout: '10 seconds' });
const { postWebhook } = proxyActivities<MinimalActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '1 hour' },
});
// Not retried: the minimal payout stores nothing before it sends, so a second attempt could pay twice.
const { payOut } = proxyActivities<MinimalActivities>({ startToCloseTimeout: '60 seconds', retry: { maximumAttempts: 1 } });

export async function minimalPayment(input: MinimalPaymentInput): Promise<string> {
  const expected = BigInt(input.expectedMicro);
  const credits = new Map<string, bigint>();
  let hinted = false;
  setHandler(providerFact, (fact) => {
    if (fact.kind === 'processing' || fact.kind === 'succeeded') hinted = true;
  });
  setHandler(depositCredit, (credit) => {
    credits.set(credit.key, BigInt(credit.amountMicro));
  });
  const credited = () => [...credits.values()].reduce((a, b) => a + b, 0n);

  if (!(await condition(() => hinted || credited() >= expected, '24 hours'))) {
    await recordTransition({ paymentId: input.paymentId, to: 'expired', webhookUrl: input.webhookUrl });
    return 'expired';
  }
  if (credited() < expected) {
    await recordTransition({ paymentId: input.paymentId, to: 'processing', webhookUrl: input.webhookUrl });
    if (!(await condition(() => credited() >= expected, '24 hours'))) {
      await recordTransition({ paymentId: input.paymentId, to: 'expired', webhookUrl: input.webhookUrl });
      return 'expired';
    }
  }
  const post = await recordTransition({ paymentId: input.paymentId, to: 'completed', webhookUrl: input.webhookUrl });
  if (post) await postWebhook(post);
  if (input.payOut) await payOut({ paymentId: input.paymentId, webhookUrl: input.webhookUrl });
  return 'completed';
}

/** The deliveries baseline: a raw signed POST activity, nothing around it. */
export async function rawDelivery(post: WebhookPost): Promise<void> {
  await postWebhook(post);
}
