import { randomBase62 } from './ids';

// Proof of control of a website before a plugin connection becomes active: the plugin
// serves its claim's token at a fixed path of the site's origin. Only someone who controls the site
// can put a file there, so a merchant cannot connect a website that is not theirs.

export const SITE_PROOF_PATH = '/.well-known/svc-checkout.txt';

export const newSiteVerificationToken = () => `svcsv_${randomBase62(32)}`;

export const siteProofUrl = (origin: string) => `${origin}${SITE_PROOF_PATH}`;

/** The file may hold several tokens (one per line), e.g. while a site changes hands. */
export function proofContains(body: string, token: string): boolean {
  return body.split(/\r?\n/).some((line) => line.trim() === token);
}
