import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Keyword attributes an operator filters payment runs by in the Temporal UI. The dev server start
// and the compose setup register them; workflows set them on start and upsert them on transitions.
export const MerchantIdKey = defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD);
export const OrderIdKey = defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD);
export const PaymentStatusKey = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const ProviderKey = defineSearchAttributeKey('Provider', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_KEYS = [MerchantIdKey, OrderIdKey, PaymentStatusKey, ProviderKey];
