import type { DatabaseOrTransaction } from '../db/client';
import { findKeyByHash, touchKey } from '../db/queries/api-keys';
import { findMerchant, type MerchantRow } from '../db/queries/merchants';
import { findMerchantSite } from '../db/queries/sites';
import { classifyApiKey, constantTimeEqual, sha256Hex } from '../domain/credentials';
import { AppError } from '../domain/errors';
import { isMerchantId } from '../domain/ids';
import type { PaymentContext } from './context';

// siteOrigin is a pure helper that lives with the sites queries; re-exported so the plugin routes
// normalize a store URL exactly as the sites table keys it, without importing the data layer.
export { siteOrigin } from '../db/queries/sites';

/** Every credential failure looks the same: no hint which of the three was wrong. */
const denied = () => new AppError('Unauthorized', 'The merchant ID, API key or security code is not valid.');

// Compared against when the merchant does not exist, so that case costs the same work.
const ABSENT_HASH = sha256Hex('no such merchant');

/**
 * The plugin's three credentials (merchant id, live key, security code) together. Only after all
 * three match does the account state matter: a suspended merchant's owner learns that, nobody else does.
 */
export async function verifyPluginCredentials(
  tx: DatabaseOrTransaction,
  body: { merchant_id: string; api_key: string; security_code: string },
  now: Date,
): Promise<MerchantRow> {
  const merchant = isMerchantId(body.merchant_id) ? await findMerchant(tx, body.merchant_id) : undefined;
  // Codes are shown in capitals; one pasted padded or in lower case is still the same code.
  const codeMatches = constantTimeEqual(merchant?.securityCodeHash ?? ABSENT_HASH, sha256Hex(body.security_code.trim().toUpperCase()));

  // Test and legacy keys never authenticate, and are never looked up.
  const presented = classifyApiKey(body.api_key);
  const keyHash = sha256Hex(body.api_key);
  const found = presented.kind === 'live' ? await findKeyByHash(tx, keyHash) : undefined;
  const keyMatches =
    found !== undefined &&
    constantTimeEqual(found.key.keyHash, keyHash) &&
    found.key.merchantId === merchant?.id &&
    !found.key.revokedAt &&
    !(found.key.expiresAt && found.key.expiresAt <= now);

  if (!merchant || !codeMatches || !keyMatches) throw denied();
  if (merchant.status !== 'approved') {
    throw new AppError('AccountNotApproved', 'The merchant account is not approved for live payments.');
  }
  if (!found.key.scopes.includes('plugin:connect')) throw new AppError('InsufficientScope', 'This API key lacks the scope plugin:connect.');
  await touchKey(tx, found.key.id);
  return merchant;
}

/** A site claimed by this merchant (another merchant's claim is not looked at). */
export const findOwnSite = (ctx: PaymentContext, origin: string, merchantId: string) => findMerchantSite(ctx.db, origin, merchantId);
