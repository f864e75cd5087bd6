import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributeUpdatePair } from '@temporalio/common';

// Keyword attributes an operator filters payment runs by in the Temporal UI. The dev server start
// and the compose setup register them; workflows set them on start and upsert them on transitions.
export const MerchantIdKey = defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD);
export const OrderIdKey = defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD);
export const PaymentStatusKey = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const ProviderKey = defineSearchAttributeKey('Provider', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_KEYS = [MerchantIdKey, OrderIdKey, PaymentStatusKey, ProviderKey];

/**
 * A completed session's attributes: its status and, for a wallet payment (no provider
 * took part), no `Provider`, which the start set to the on-ramp the session was routed to. A
 * completion that does not say (`provider` undefined, results recorded before) leaves it as it is.
 */
export function completedAttributes(completion: { provider?: string | null }): SearchAttributeUpdatePair[] {
  return [{ key: PaymentStatusKey, value: 'completed' }, ...(completion.provider === null ? [{ key: ProviderKey, value: null }] : [])];
}
