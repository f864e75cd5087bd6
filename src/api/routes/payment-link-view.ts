import { z } from 'zod';
import type { PaymentLinkRow } from '../../payments/rows';
import { isFiatCurrency } from '../../domain/currencies';
import { formatFiat } from '../../domain/money';

// A payment link as the v1 API and the dashboard answer with it. Out of the route module, whose
// request plugins (scopes, idempotency) the dashboard's compiler does not see, so the dashboard can
// take its type.

export const paymentLinkSchema = z.object({
  id: z.string(),
  url: z.string(),
  status: z.enum(['active', 'paid', 'expired']),
  amount: z.string(),
  currency: z.string(),
  destinationAsset: z.string(),
  network: z.string(),
  description: z.string().nullable(),
  merchantOrderId: z.string().nullable(),
  expiresAt: z.string(),
  createdAt: z.string(),
});

export const paymentLinkUrlFor = (publicBaseUrl: string, id: string) => `${publicBaseUrl}/link/${id}`;

export function paymentLinkView(link: PaymentLinkRow, publicBaseUrl: string): z.infer<typeof paymentLinkSchema> {
  if (!isFiatCurrency(link.currency)) throw new Error(`unknown currency ${link.currency}`);
  return {
    id: link.id,
    url: paymentLinkUrlFor(publicBaseUrl, link.id),
    status: link.status,
    amount: formatFiat(link.amountMinor, link.currency),
    currency: link.currency,
    destinationAsset: link.destinationAsset,
    network: link.network,
    description: link.description,
    merchantOrderId: link.merchantOrderId,
    expiresAt: link.expiresAt.toISOString(),
    createdAt: link.createdAt.toISOString(),
  };
}
