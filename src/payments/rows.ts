// The rows the use cases hand back, re-exported for the routes that render them: the API reads these
// shapes but never the queries that produce them (architecture.md: api uses payments and domain only).
export type { ApiKeyRow } from '../db/queries/api-keys';
export type { CheckoutSessionRow } from '../db/queries/checkout-sessions';
export type { MerchantRow, WalletRow } from '../db/queries/merchants';
export type { PaymentExceptionRow } from '../db/queries/payment-exceptions';
export type { PaymentLinkRow } from '../db/queries/payment-links';
export type { PayoutRow } from '../db/queries/payouts';
export type { SettlementRow } from '../db/queries/merchant-settlements';
export type { SimpleOrderRow } from '../db/queries/simple-orders';
export type { TransactionRow } from '../db/queries/transactions';
export type { DeliveryRow } from '../db/queries/webhooks';
export type { DeliveryWithAttempts } from '../db/queries/webhook-delivery-log';
export type { EndpointRow } from '../db/queries/webhook-endpoints';
export type { SitePlatform, SiteRow } from '../db/queries/sites';
export type { DashboardRole } from '../db/schema';
export type { MerchantPaymentRow } from '../db/queries/merchant-payments';
export type { MerchantLinkRow } from '../db/queries/payment-links';
