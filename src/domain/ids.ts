import { createHash, randomFillSync } from 'node:crypto';

// Identifier formats. Bodies come from the CSPRNG, so ids are unguessable.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// CSPRNG bytes drawn a pool at a time, as Node's own randomUUID does: one randomInt per digit cost
// about a microsecond for a request id, on every request. A byte below 248 (4 × 62) maps to a digit
// by its remainder, each digit from exactly four values; the rest are skipped, so there is no bias.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
const UNBIASED_BELOW = 248;

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    if (poolAt === pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const byte = pool[poolAt++]!;
    if (byte < UNBIASED_BELOW) out += BASE62[byte % 62];
  }
  return out;
}

export const newPaymentId = () => `SV_${randomBase62(24)}`;
export const newMerchantId = () => `MER_${randomBase62(16)}`;
export const newEventId = () => `evt_${randomBase62(24)}`;
export const newDeliveryId = () => `dlv_${randomBase62(24)}`;
export const newCustomerMailId = () => `mail_${randomBase62(24)}`;
export const newPaymentLinkId = () => `plink_${randomBase62(24)}`;
export const newExceptionId = () => `exc_${randomBase62(24)}`;
export const newSiteId = () => `site_${randomBase62(16)}`;

/** A lookup id must have this shape before any query runs (else 400 InvalidId). */
export const CANONICAL_PAYMENT_ID = /^SV_[A-Za-z0-9]{1,64}$/;
export const MERCHANT_ID = /^MER_[A-Za-z0-9]{16}$/;

export const PAYMENT_LINK_ID = /^plink_[A-Za-z0-9]{24}$/;
/** A simple-API transaction code: a UUID v4. */
export const TRANSACTION_CODE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export const isCanonicalPaymentId = (id: string) => CANONICAL_PAYMENT_ID.test(id);
export const isPaymentLinkId = (id: string) => PAYMENT_LINK_ID.test(id);
export const isTransactionCode = (id: string) => TRANSACTION_CODE.test(id);
export const isMerchantId = (id: string) => MERCHANT_ID.test(id);
export const newPayoutId = () => `po_${randomBase62(24)}`;
export const PAYOUT_ID = /^po_[A-Za-z0-9]{24}$/;
export const isPayoutId = (id: string) => PAYOUT_ID.test(id);
export const newRefundId = () => `rf_${randomBase62(24)}`;

/**
 * A refund's id from the asker's key for its request: the same key on the same payment is the same
 * refund. 24 base62 digits of SHA-256 (about 143 bits), shaped like a new one.
 */
export function keyedRefundId(paymentId: string, requestKey: string): string {
  let n = BigInt(`0x${createHash('sha256').update(`${paymentId}\n${requestKey}`).digest('hex')}`);
  let out = '';
  for (let i = 0; i < 24; i++, n /= 62n) out += BASE62[Number(n % 62n)];
  return `rf_${out}`;
}
