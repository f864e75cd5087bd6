import { getAddress } from 'viem';
import { latestSender } from '../db/queries/chain-credits';
import { setRefundAddress, type CheckoutSessionRow } from '../db/queries/checkout-sessions';
import { listPaymentExceptions } from '../db/queries/payment-exceptions';
import { AppError, notFound } from '../domain/errors';
import type { PaymentContext } from './context';
import { findCheckoutSession } from './checkout-actions';
import { checkedRefundAddress } from './exception-actions';

// Money over, under or late is the customer's to get back. The page asks
// the customer where to, pre-filled with the address that sent it; the operator's refund then sends
// it there unless told otherwise (exception-actions.ts).

/** Kinds of money the customer may be owed back, in whole or in part. */
const OWED_KINDS = new Set(['late', 'duplicate', 'overpaid', 'underpaid']);

export interface RefundAddressAsk {
  /** The address the customer gave, if any. */
  saved: string | null;
  /** The sender of the latest transfer, EIP-55, as the field's first value. */
  suggested: string | null;
}

/** Whether the page asks for a refund address: an open exception the customer may be owed money by. */
export async function refundAddressAsk(ctx: PaymentContext, session: CheckoutSessionRow): Promise<RefundAddressAsk | null> {
  if (session.verification !== 'chain') return null;
  const owed = (await listPaymentExceptions(ctx.db, session.id)).some((e) => e.status === 'open' && OWED_KINDS.has(e.kind));
  if (!owed) return null;
  const sender = await latestSender(ctx.db, session.id);
  return { saved: session.refundAddress, suggested: sender ? getAddress(sender) : null };
}

/** The customer's refund address: checked as an operator's is (never ours, the checksum right), then kept. */
export async function saveRefundAddress(ctx: PaymentContext, id: string, address: string): Promise<string> {
  const session = await findCheckoutSession(ctx, id);
  if (!session) throw notFound('Checkout session');
  if (!(await refundAddressAsk(ctx, session))) throw new AppError('Conflict', 'No money of this checkout is waiting to go back.');
  const checked = await checkedRefundAddress(ctx, address.trim());
  await setRefundAddress(ctx.db, session.id, checked);
  return checked;
}
