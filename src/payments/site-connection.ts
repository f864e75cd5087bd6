import type { DatabaseOrTransaction } from '../db/client';
import { claimSite, markSiteVerified, type SitePlatform, type SiteRow } from '../db/queries/sites';
import { issueWebhookSecret } from '../domain/credentials';
import { newSiteId } from '../domain/ids';
import { decryptSecret, encryptSecret } from '../domain/secretbox';
import { newSiteVerificationToken, proofContains, siteProofUrl } from '../domain/site-proof';

export type ProofFetcher = (url: string) => Promise<{ ok: true; body: string } | { ok: false; reason: string }>;

export interface SiteConnectionDeps {
  db: DatabaseOrTransaction;
  secretsKey: Buffer;
  fetchProof: ProofFetcher;
}

export type SiteConnection =
  /** Verified now or earlier: the connection is active. */
  | { kind: 'connected'; site: SiteRow; webhookSecret: string; created: boolean }
  /** Waiting for the site to serve the token; `lastCheck` says what the check found, if one ran. */
  | { kind: 'pending'; site: SiteRow; webhookSecret: string; created: boolean; lastCheck: string | null }
  /** The caller proved control, but another merchant's connection of the origin is active. */
  | { kind: 'held_elsewhere' };

/**
 * The plugin handshake after its credentials are verified: claim the website for the merchant, and
 * activate the claim once the site serves its token. Every merchant gets the same pending answer for
 * a new website, whether or not someone else holds it, so nothing about other merchants leaks to a
 * caller who has not proved control of the site.
 */
export async function connectPluginSite(
  deps: SiteConnectionDeps,
  input: { merchantId: string; origin: string; siteUrl: string; callbackUrl: string; platform: SitePlatform; pluginVersion: string },
): Promise<SiteConnection> {
  const freshSecret = issueWebhookSecret();
  const { site, created } = await claimSite(deps.db, {
    ...input,
    id: newSiteId(),
    webhookSecretEncrypted: encryptSecret(deps.secretsKey, freshSecret),
    verificationToken: newSiteVerificationToken(),
  });
  const webhookSecret = created ? freshSecret : decryptSecret(deps.secretsKey, site.webhookSecretEncrypted);
  if (site.status === 'connected') return { kind: 'connected', site, webhookSecret, created };
  // A claim made by this very request has a token nobody could have served yet.
  if (created) return { kind: 'pending', site, webhookSecret, created, lastCheck: null };

  const url = siteProofUrl(site.origin);
  const proof = await deps.fetchProof(url);
  if (!proof.ok) return { kind: 'pending', site, webhookSecret, created, lastCheck: proof.reason };
  if (!proofContains(proof.body, site.verificationToken)) {
    return { kind: 'pending', site, webhookSecret, created, lastCheck: `${url} does not contain this connection's verification token` };
  }
  const verified = await markSiteVerified(deps.db, site.id);
  if (!verified) return { kind: 'held_elsewhere' };
  return { kind: 'connected', site: verified, webhookSecret, created };
}
