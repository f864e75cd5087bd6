import { AppError, notFound } from '../domain/errors';
import { formatCrypto } from '../domain/money';
import { eip681TransferUri } from '../domain/payment-uri';
import { findCheckoutSession } from './checkout-actions';
import type { PaymentContext } from './context';
import { fixExpectedGross, verifierFor } from './deposits';
import { ensurePaymentsEnabled } from './kill-switch';
import { claimLink, releaseLinkClaim } from './link-tabs';
import { ensureSessionTakesMoney } from './session-standing';

/** The direct stablecoin rail's instructions: where to send exactly how much. */
export interface DirectDeposit {
  address: string;
  asset: string;
  network: string;
  chainId: number;
  /** 6 decimals. */
  amount: string;
  /** EIP-681: a wallet that scans it prepares the token transfer itself. */
  uri: string;
  expiresAt: string;
}

/**
 * "Pay from your wallet": the session's deposit address and the exact amount, G, fixed now from the
 * provider's quote unless the customer's Pay already fixed it. No provider takes part; the chain
 * watcher completes the session. Idempotent: every call answers the same instructions.
 */
export async function openDirectDeposit(ctx: PaymentContext, id: string): Promise<DirectDeposit> {
  const session = await findCheckoutSession(ctx, id);
  if (!session) throw notFound('Checkout session');
  const chain = verifierFor(ctx.config, session.network, session.destinationAsset);
  if (session.verification !== 'chain' || !session.depositAddress || !chain) {
    throw new AppError('Conflict', `${session.destinationAsset} on ${session.network} cannot be paid from a wallet here.`);
  }
  if (session.mode === 'test' || (session.status !== 'pending' && session.status !== 'processing')) {
    throw new AppError('Conflict', 'This checkout can no longer be paid.');
  }
  await ensureSessionTakesMoney(ctx, session);
  await ensurePaymentsEnabled(ctx.db);
  // Handed out, the address may receive money until the session ends: a link's other sessions wait
  // for that (link-tabs.ts). Claimed before the quote, so a refused tab has no amount fixed.
  const claim = session.paymentLinkId ? await claimLink(ctx, session.paymentLinkId, session.id, 'wallet') : null;
  let expected: bigint | null;
  try {
    expected = await fixExpectedGross(ctx, session);
  } catch (err) {
    await releaseLinkClaim(ctx, claim);
    throw err;
  }
  const token = chain.tokens[session.destinationAsset as 'USDC' | 'USDT']!;
  return {
    address: session.depositAddress,
    asset: session.destinationAsset,
    network: session.network,
    chainId: chain.chainId,
    amount: formatCrypto(expected!),
    uri: eip681TransferUri(token, chain.chainId, session.depositAddress, expected!),
    expiresAt: session.expiresAt.toISOString(),
  };
}
