import type { WebhookSettings } from '../config';
import type { Database } from '../db/client';
import type { EnabledEndpoint } from '../db/queries/checkout-session-events';
import type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { findSite } from '../db/queries/sites';
import { listEnabledEndpoints } from '../db/queries/webhook-endpoints';
import { insertDeliveriesBegun, insertDeliveriesOnce, type DeliveryRow } from '../db/queries/webhooks';
import { newDeliveryId } from '../domain/ids';
import { endpointWants } from '../domain/webhook-event-types';

/** A delivery row as written: one per distinct URL an event goes to. */
type NewDelivery = Pick<DeliveryRow, 'id' | 'eventId' | 'paymentId' | 'url' | 'secretSource' | 'secretRef'>;

export interface EmittedEvent {
  eventId: string;
  deliveryIds: string[];
  /** The retry schedule in force, carried into the delivery workflows. */
  retry: { baseSeconds: number; maxIntervalSeconds: number; windowHours: number };
  /**
   * Set when the emitting activity made each delivery's first attempt itself (withFirstAttempts):
   * the deliveries whose attempt failed and that the schedule retries. Absent: no attempt made yet.
   */
  toRetry?: string[];
}

/** Where an event goes: one delivery per distinct URL, and the secret that signs each. */
export function createWebhookDeliveries({ db, webhooks }: { db: Database; webhooks: WebhookSettings }) {
  const retrySchedule = () => ({
    baseSeconds: webhooks.retryBaseSeconds,
    maxIntervalSeconds: webhooks.retryMaxIntervalSeconds,
    windowHours: webhooks.retryWindowHours,
  });

  const emittedOf = (deliveries: DeliveryRow[], eventId: string): EmittedEvent => ({
    eventId,
    deliveryIds: deliveries.map((d) => d.id),
    retry: retrySchedule(),
  });

  /**
   * Every enabled endpoint that chose this event type (or made no choice), plus the session's webhookUrl (merchant's default secret),
   * plus the site endpoint for plugin sessions; one delivery per distinct URL. A plugin knows only its
   * site's webhook_secret, so that secret signs the site's callback_url (winning a tie) and any
   * per-order callback URL the plugin sent; otherwise an endpoint's own secret wins.
   */
  async function deliveriesFor(session: CheckoutSessionRow, eventId: string, type: string): Promise<DeliveryRow[]> {
    return (await deliveriesWithEndpoints(session, await listEnabledEndpoints(db, session.merchantId), eventId, type)).deliveries;
  }

  /**
   * The deliveries an event of `type` gets (one per distinct URL, as deliveriesFor says), as rows to
   * insert, and which of them have their first attempt begun with their insert: with `merchantSecret`
   * given by the emitter that posts at once (emitPaymentEventOf, the merchant's default secret as its
   * read found it), each whose secret is then known (an endpoint's, or this one when set).
   */
  async function deliveryRows(
    session: CheckoutSessionRow,
    /** The merchant's enabled endpoints, oldest first. */
    endpoints: EnabledEndpoint[],
    eventId: string,
    type: string,
    merchantSecret?: string | null,
  ): Promise<{ rows: NewDelivery[]; begin: Set<string> }> {
    const targets = new Map<string, { secretSource: DeliveryRow['secretSource']; secretRef: string }>();
    const site = session.siteId ? await findSite(db, session.siteId) : undefined;
    if (site) targets.set(site.callbackUrl, { secretSource: 'site', secretRef: site.id });
    for (const endpoint of endpoints) {
      if (!endpointWants(endpoint.eventTypes, type)) continue;
      if (!targets.has(endpoint.url)) targets.set(endpoint.url, { secretSource: 'endpoint', secretRef: endpoint.id });
    }
    // A plugin session whose site was disconnected: its per-order URL had only the site's secret.
    const siteGone = session.siteId !== null && !site;
    if (session.webhookUrl && !targets.has(session.webhookUrl) && !siteGone) {
      targets.set(
        session.webhookUrl,
        site ? { secretSource: 'site', secretRef: site.id } : { secretSource: 'merchant', secretRef: session.merchantId },
      );
    }
    const rows = [...targets].map(([url, t]) => ({ id: newDeliveryId(), eventId, paymentId: session.id, url, ...t }));
    const secretKnown = (t: { secretSource: DeliveryRow['secretSource'] }) =>
      t.secretSource === 'endpoint' || (t.secretSource === 'merchant' && !!merchantSecret);
    return { rows, begin: new Set(merchantSecret === undefined ? [] : rows.filter(secretKnown).map((r) => r.id)) };
  }

  /**
   * Of `deliveries`, each that this call wrote (its id among `rows`), with the endpoint row whose
   * secret signs it (null: another secret signs it). A delivery written before (a retried activity)
   * is left out: its attempt reads it as it stands.
   */
  function freshDeliveries(rows: readonly NewDelivery[], deliveries: readonly DeliveryRow[], endpoints: readonly EnabledEndpoint[]) {
    const written = new Set(rows.map((r) => r.id));
    const fresh = new Map<string, EnabledEndpoint | null>();
    for (const d of deliveries) {
      if (!written.has(d.id)) continue;
      if (d.secretSource !== 'endpoint') fresh.set(d.id, null);
      else {
        const endpoint = endpoints.find((e) => e.id === d.secretRef);
        if (endpoint) fresh.set(d.id, endpoint);
      }
    }
    return fresh;
  }

  /** deliveryRows written (insertDeliveriesBegun), with what freshDeliveries says of them and the attempts begun. */
  async function deliveriesWithEndpoints(
    session: CheckoutSessionRow,
    endpoints: EnabledEndpoint[],
    eventId: string,
    type: string,
    merchantSecret?: string | null,
  ): Promise<{ deliveries: DeliveryRow[]; fresh: Map<string, EnabledEndpoint | null>; begun: Map<string, number> }> {
    const { rows, begin } = await deliveryRows(session, endpoints, eventId, type, merchantSecret);
    const { deliveries, attempts: begun } =
      begin.size === 0
        ? { deliveries: await insertDeliveriesOnce(db, rows), attempts: new Map<string, number>() }
        : await insertDeliveriesBegun(db, rows, begin);
    return { deliveries, fresh: freshDeliveries(rows, deliveries, endpoints), begun };
  }

  return { retrySchedule, emittedOf, deliveriesFor, deliveryRows, freshDeliveries, deliveriesWithEndpoints };
}

export type WebhookDeliveries = ReturnType<typeof createWebhookDeliveries>;
