import type { Database, DatabaseOrTransaction } from '../db/client';
import { findCurrentLiveKey, insertApiKey, listApiKeys, revokeApiKey, setKeyExpiry, type ApiKeyRow } from '../db/queries/api-keys';
import { merchantHasDashboardUsers, setLiveKeyToReveal } from '../db/queries/dashboard';
import { insertMerchant, lockMerchant, setSecurityCodeHash, type MerchantRow } from '../db/queries/merchants';
import { deleteMerchantSite, listMerchantSites } from '../db/queries/sites';
import {
  deleteEndpoint,
  insertEndpoint,
  listEndpoints,
  setEndpointEnabled,
  setEndpointSecret,
  type EndpointRow,
} from '../db/queries/webhook-endpoints';
import { issueLiveKey, issueSecurityCode, issueWebhookSecret } from '../domain/credentials';
import { recordAudit, type DashboardActor } from './dashboard-audit';
import { AppError, notFound, validationError } from '../domain/errors';
import { newMerchantId, randomBase62 } from '../domain/ids';
import type { Scope } from '../domain/scopes';
import type { WebhookEventType } from '../domain/webhook-event-types';
import { decryptSecret, encryptSecret } from '../domain/secretbox';
import { checkWebhookTarget } from '../webhooks/target-policy';
import { merchantRequestLog } from './request-log';

// A merchant's credentials, one set of rules for every face that hands them out:
// the operators' admin API and the merchant's own dashboard. Each plaintext is returned once, by
// the call that made it, and stored only as a hash (keys, codes) or encrypted (secrets).

/** A rotated live key keeps working this long beside the new one. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

const newKeyId = () => `key_${randomBase62(16)}`;

export async function issueKey(db: DatabaseOrTransaction, merchantId: string, kind: 'live' | 'restricted', scopes: Scope[]) {
  const key = issueLiveKey();
  const row = await insertApiKey(db, {
    id: newKeyId(),
    merchantId,
    kind,
    keyHash: key.hash,
    displayPrefix: key.displayPrefix,
    last4: key.last4,
    scopes,
  });
  return { plaintext: key.plaintext, row };
}

/** A new merchant, pending review, with its security code and default webhook secret (each shown once). */
export async function openMerchant(tx: DatabaseOrTransaction, secretsKey: Buffer, input: { name: string; commissionBps: number }) {
  const code = issueSecurityCode();
  // Signs deliveries to a session's own webhookUrl; shown once, like the security code.
  const webhookSecret = issueWebhookSecret();
  const merchant = await insertMerchant(tx, {
    id: newMerchantId(),
    name: input.name,
    commissionBps: input.commissionBps,
    securityCodeHash: code.hash,
    webhookSecretEncrypted: encryptSecret(secretsKey, webhookSecret),
  });
  return { merchant, securityCode: code.plaintext, webhookSecret };
}

/** Rotates the live key: the current one expires in 24 h; answers the new key (once) and when the old one stops. */
export async function rotateLiveKey(tx: DatabaseOrTransaction, merchantId: string, now: Date) {
  const current = await findCurrentLiveKey(tx, merchantId);
  if (!current) throw new AppError('Conflict', 'The merchant has no live key yet; approve it first.');
  const expiresAt = new Date(now.getTime() + ROTATION_GRACE_MS);
  await setKeyExpiry(tx, current.id, expiresAt);
  const issued = await issueKey(tx, merchantId, 'live', current.scopes as Scope[]);
  return { apiKey: issued.plaintext, previousKeyExpiresAt: expiresAt };
}

/** A new security code; the old one stops working at once (connected sites keep working). */
export async function rotateSecurityCode(tx: DatabaseOrTransaction, merchantId: string): Promise<string> {
  const code = issueSecurityCode();
  await setSecurityCodeHash(tx, merchantId, code.hash);
  return code.plaintext;
}

/**
 * A merchant who signed up in the dashboard sees its live key there, once. The key
 * the approval issued is kept encrypted until then; operator-made merchants have no dashboard user
 * and keep only the operator's copy of the answer.
 */
export async function holdLiveKeyForDashboard(tx: DatabaseOrTransaction, secretsKey: Buffer, merchantId: string, plaintext: string) {
  if (await merchantHasDashboardUsers(tx, merchantId)) await setLiveKeyToReveal(tx, merchantId, encryptSecret(secretsKey, plaintext));
}

/** The live key held for the dashboard, handed out once: the held copy is gone when this answers. */
export async function revealHeldLiveKey(tx: DatabaseOrTransaction, secretsKey: Buffer, merchantId: string): Promise<string> {
  const merchant: MerchantRow | undefined = await lockMerchant(tx, merchantId);
  if (!merchant?.liveKeyToRevealEncrypted || merchant.status !== 'approved') {
    throw new AppError('Conflict', 'There is no live key waiting to be shown: it was shown once already. Rotate it to get a new one.');
  }
  await setLiveKeyToReveal(tx, merchantId, null);
  return decryptSecret(secretsKey, merchant.liveKeyToRevealEncrypted);
}

export const listMerchantKeys = (db: DatabaseOrTransaction, merchantId: string): Promise<ApiKeyRow[]> => listApiKeys(db, merchantId);
export const listMerchantEndpoints = (db: DatabaseOrTransaction, merchantId: string): Promise<EndpointRow[]> =>
  listEndpoints(db, merchantId);

/** What a new endpoint is: its URL, and the event types it receives (absent: every event). */
export interface EndpointInput {
  url: string;
  eventTypes?: WebhookEventType[] | undefined;
}

/** Registers a webhook endpoint (https on a public address); its signing secret is answered once. */
export async function addWebhookEndpoint(
  db: DatabaseOrTransaction,
  settings: { secretsKey: Buffer; allowPrivateUrls: boolean },
  merchantId: string,
  input: EndpointInput,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const refusal = await checkWebhookTarget(input.url, settings.allowPrivateUrls);
  if (refusal) throw validationError([{ path: 'url', message: refusal }], 'The webhook URL is not allowed.');
  const secret = issueWebhookSecret();
  const endpoint = await insertEndpoint(db, {
    id: `we_${randomBase62(16)}`,
    merchantId,
    url: input.url,
    secretEncrypted: encryptSecret(settings.secretsKey, secret),
    eventTypes: input.eventTypes ? [...new Set(input.eventTypes)] : null,
  });
  return { endpoint, secret };
}

export type EndpointChange = 'enable' | 'disable' | 'delete';

/**
 * Enables, disables (new events skip it; deliveries under way go on) or deletes (with its secret; its
 * delivery log stays) one of the merchant's endpoints. Idempotent but for delete; an id that is
 * malformed, or another merchant's, is not found.
 */
export async function changeEndpoint(
  db: DatabaseOrTransaction,
  input: { merchantId: string; endpointId: string; change: EndpointChange },
): Promise<EndpointRow> {
  const { change, ...target } = input;
  const row = !ENDPOINT_ID.test(target.endpointId)
    ? undefined
    : change === 'delete'
      ? await deleteEndpoint(db, target)
      : await setEndpointEnabled(db, { ...target, enabled: change === 'enable' });
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/** A restricted key with a subset of scopes, shown once; only approved merchants get keys. */
export async function issueRestrictedKey(tx: DatabaseOrTransaction, merchantId: string, scopes: Scope[]) {
  const m = await lockMerchant(tx, merchantId);
  if (!m) throw notFound('Merchant');
  if (m.status !== 'approved') throw new AppError('Conflict', 'Keys are issued only to approved merchants.');
  return issueKey(tx, m.id, 'restricted', [...new Set(scopes)]);
}

/** Revokes one key of the merchant at once; a key of another merchant (or none) is 404. */
export async function revokeKey(db: DatabaseOrTransaction, merchantId: string, keyId: string): Promise<ApiKeyRow> {
  const key = await revokeApiKey(db, merchantId, keyId);
  if (!key) throw notFound('API key');
  return key;
}

/**
 * The merchant's own credentials, as the dashboard manages them: every call is scoped to one merchant,
 * and every change is written to the audit log in its own transaction, by the person who made it.
 */
export function createMerchantCredentials(deps: {
  db: Database;
  config: { secretsKey: Buffer; allowPrivateUrls: boolean };
  now: () => Date;
}) {
  const { db, config, now } = deps;
  const m = (actor: DashboardActor) => actor.merchantId;
  return {
    listKeys: (merchantId: string) => listMerchantKeys(db, merchantId),
    issueRestrictedKey: (actor: DashboardActor, scopes: Scope[]) =>
      db.transaction(async (tx) => {
        const issued = await issueRestrictedKey(tx, m(actor), scopes);
        await recordAudit(tx, actor, 'api_key.created', issued.row.id, { scopes: issued.row.scopes, last4: issued.row.last4 });
        return issued;
      }),
    revokeKey: (actor: DashboardActor, keyId: string) =>
      db.transaction(async (tx) => {
        const key = await revokeKey(tx, m(actor), keyId);
        await recordAudit(tx, actor, 'api_key.revoked', key.id, { kind: key.kind, last4: key.last4 });
        return key;
      }),
    revealLiveKey: (actor: DashboardActor) =>
      db.transaction(async (tx) => {
        const key = await revealHeldLiveKey(tx, config.secretsKey, m(actor));
        await recordAudit(tx, actor, 'live_key.revealed', null, { last4: key.slice(-4) });
        return key;
      }),
    rotateLiveKey: (actor: DashboardActor) =>
      db.transaction(async (tx) => {
        await lockMerchant(tx, m(actor));
        const rotated = await rotateLiveKey(tx, m(actor), now());
        await recordAudit(tx, actor, 'live_key.rotated', null, {
          last4: rotated.apiKey.slice(-4),
          previousKeyExpiresAt: rotated.previousKeyExpiresAt.toISOString(),
        });
        return rotated;
      }),
    rotateSecurityCode: (actor: DashboardActor) =>
      db.transaction(async (tx) => {
        await lockMerchant(tx, m(actor));
        const code = await rotateSecurityCode(tx, m(actor));
        await recordAudit(tx, actor, 'security_code.rotated');
        return code;
      }),
    listEndpoints: (merchantId: string) => listMerchantEndpoints(db, merchantId),
    addEndpoint: (actor: DashboardActor, input: EndpointInput) =>
      db.transaction(async (tx) => {
        const added = await addWebhookEndpoint(tx, config, m(actor), input);
        await recordAudit(tx, actor, 'webhook_endpoint.created', added.endpoint.id, {
          url: added.endpoint.url,
          eventTypes: added.endpoint.eventTypes,
        });
        return added;
      }),
    changeEndpoint: (actor: DashboardActor, endpointId: string, change: EndpointChange) =>
      db.transaction(async (tx) => {
        const endpoint = await changeEndpoint(tx, { merchantId: m(actor), endpointId, change });
        const action = (
          { enable: 'webhook_endpoint.enabled', disable: 'webhook_endpoint.disabled', delete: 'webhook_endpoint.deleted' } as const
        )[change];
        await recordAudit(tx, actor, action, endpoint.id, { url: endpoint.url });
        return endpoint;
      }),
    rollEndpointSecret: (actor: DashboardActor, endpointId: string) =>
      db.transaction(async (tx) => {
        const rolled = await rollEndpointSecret(tx, config.secretsKey, m(actor), endpointId);
        await recordAudit(tx, actor, 'webhook_endpoint.secret_rolled', rolled.endpoint.id, { url: rolled.endpoint.url });
        return rolled;
      }),
    listSites: (merchantId: string) => listMerchantSites(db, merchantId),
    disconnectSite: (actor: DashboardActor, siteId: string) =>
      db.transaction(async (tx) => {
        const site = await disconnectSite(tx, m(actor), siteId);
        await recordAudit(tx, actor, 'site.disconnected', site.id, { siteUrl: site.siteUrl });
        return site;
      }),
    requestLog: (merchantId: string) => merchantRequestLog(db, merchantId),
  };
}

const ENDPOINT_ID = /^we_[A-Za-z0-9]{16}$/;

/**
 * Rolls an endpoint's signing secret: the new one is answered once and signs from the next attempt
 * on (the old one stops at once). An id that is malformed, or another merchant's, is not found.
 */
export async function rollEndpointSecret(db: DatabaseOrTransaction, secretsKey: Buffer, merchantId: string, endpointId: string) {
  const secret = issueWebhookSecret();
  const endpoint = ENDPOINT_ID.test(endpointId)
    ? await setEndpointSecret(db, { merchantId, endpointId, secretEncrypted: encryptSecret(secretsKey, secret) })
    : undefined;
  if (!endpoint) throw notFound('Webhook endpoint');
  return { endpoint, secret };
}

/**
 * Disconnects a plugin website: its connection and its webhook secret are gone, so its callbacks
 * stop (a delivery under way stops at its next attempt, as for a deleted endpoint) and its plugin
 * must connect again, proving control of the site afresh. Another merchant's site is not found.
 */
export async function disconnectSite(db: DatabaseOrTransaction, merchantId: string, siteId: string) {
  const site = /^site_[A-Za-z0-9]{16}$/.test(siteId) ? await deleteMerchantSite(db, merchantId, siteId) : undefined;
  if (!site) throw notFound('Site');
  return site;
}

export type MerchantCredentials = ReturnType<typeof createMerchantCredentials>;
