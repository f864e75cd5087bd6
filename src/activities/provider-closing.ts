import type { Database } from '../db/client';
import { findSession } from '../db/queries/checkout-sessions';
import { listLinkSiblingPayments, listOpenLinkSiblings } from '../db/queries/link-sessions';
import type { ProviderRegistry } from '../providers/registry';
import type { SessionCanceller } from '../temporal/session-cancel';
import { asActivityFailure } from './provider-failure';

// When a session ends, its open provider payment is closed so the customer can no
// longer be charged for it. A provider that already took the money answers `closed: false`: its
// success still comes and is recorded as an exception, so nothing here decides about money.

export interface ClosedPayment {
  paymentId: string;
  providerPaymentId: string;
  closed: boolean;
  status: string;
}

export function createProviderClosingActivities({
  db,
  providers,
  cancelSession,
}: {
  db: Database;
  providers: ProviderRegistry;
  cancelSession: SessionCanceller;
}) {
  async function close(paymentId: string, provider: string, providerPaymentId: string): Promise<ClosedPayment> {
    const adapter = providers.get(provider);
    // A provider no longer configured cannot be asked; there is nothing to close through us.
    if (!adapter) return { paymentId, providerPaymentId, closed: false, status: 'unknown_provider' };
    const answer = await adapter.cancelPayment(providerPaymentId).catch(asActivityFailure);
    return { paymentId, providerPaymentId, ...answer };
  }

  return {
    /** The session's provider payment, if the customer pressed Pay; idempotent at the provider. */
    async closeSessionProviderPayment(paymentId: string): Promise<ClosedPayment | null> {
      const session = await findSession(db, paymentId);
      if (!session?.providerPaymentId) return null;
      return close(paymentId, session.provider, session.providerPaymentId);
    },

    /**
     * A link paid through one session: its other open sessions end now, canceled with
     * reason `link_paid` through their runs' Cancel (which announces payment.canceled and closes
     * their provider payments too), and the provider payments of all its other sessions are closed.
     * Run by the paying session's workflow, so it happens whether or not the link's own run is still
     * there to hear of the payment. Idempotent: a session already ended refuses the cancel.
     */
    async closeLinkSiblings(linkId: string, paidSessionId: string): Promise<ClosedPayment[]> {
      for (const id of await listOpenLinkSiblings(db, linkId, paidSessionId)) await cancelSession(id, 'link_paid');
      const closed: ClosedPayment[] = [];
      for (const s of await listLinkSiblingPayments(db, linkId, paidSessionId))
        closed.push(await close(s.id, s.provider, s.providerPaymentId));
      return closed;
    },
  };
}

export type ProviderClosingActivities = ReturnType<typeof createProviderClosingActivities>;
