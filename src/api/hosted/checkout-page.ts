import type { CheckoutSessionRow } from '../../db/queries/checkout-sessions';
import { NETWORK_NAMES, type Network } from '../../domain/assets';
import { html, raw, type Raw } from '../../domain/html';
import type { DirectDeposit } from '../../payments';
import { hostedDocument } from './document';

export interface CheckoutPageModel {
  session: Pick<CheckoutSessionRow, 'id' | 'status' | 'mode' | 'currency' | 'destinationAsset' | 'network' | 'successUrl' | 'cancelUrl' | 'expiresAt' | 'provider' | 'verification'>;
  amount: string;
  merchantName: string;
  paymentsEnabled: boolean;
  notice?: string | undefined;
  /** Money that arrived off the happy path (decisions §12), oldest first. */
  exceptions?: readonly { kind: string; amount: string }[] | undefined;
  /** The direct rail's instructions once the customer chose "pay from your wallet", with the QR of its EIP-681 URI. */
  wallet?: { deposit: DirectDeposit; qrSvg: string } | undefined;
}

const STATE_TEXT: Record<string, { title: string; body: string }> = {
  pending: { title: 'Ready to pay', body: 'You will be taken to our payment partner to pay by card or bank.' },
  processing: { title: 'Payment in progress', body: 'Your payment is being confirmed. This page updates by itself.' },
  completed: { title: 'Payment received', body: 'Thank you. The merchant has been notified.' },
  failed: { title: 'Payment failed', body: 'The payment was declined. No money was taken.' },
  expired: { title: 'Checkout expired', body: 'This checkout is no longer open. Please return to the merchant to start again.' },
  canceled: { title: 'Checkout canceled', body: 'You canceled this checkout. No money was taken.' },
};

/**
 * Decisions §12: money that arrived but could not pay the checkout as it stood. The customer is told
 * plainly that it arrived and that the merchant was told, never to start again (they would pay twice).
 */
function exceptionText(kinds: readonly { kind: string; amount: string }[], asset: string): { title: string; body: string } | null {
  const money = kinds.filter((e) => e.kind !== 'overpaid');
  const last = money[money.length - 1];
  if (!last) {
    const extra = kinds[kinds.length - 1];
    return extra ? { title: 'Payment received', body: `Thank you. You sent ${extra.amount} ${asset} more than the amount due; the merchant has been told about it and will contact you about the difference.` } : null;
  }
  const lead: Record<string, string> = {
    late: 'Your payment arrived after this checkout had ended.',
    duplicate: 'This was already paid: your payment arrived as a second payment.',
    underpaid: 'Your payment arrived, but it was less than the amount due.',
    unverified: 'Your payment provider reported a payment that we could not match to this checkout yet.',
  };
  return {
    title: 'We received your payment',
    body: `${lead[last.kind] ?? 'Your payment arrived.'} The ${last.amount} ${asset} are safe, and the merchant has been told: they will complete your order or refund you. Please do not pay again.`,
  };
}

/**
 * The hosted checkout page (spec rule 1.7). Server-rendered and usable without JavaScript; a small
 * script only refreshes the status. It never marks anything paid: only the workflow does, from a
 * confirmed transfer into the deposit address (or the provider's word on networks without a verifier).
 */
export function renderCheckoutPage(m: CheckoutPageModel): string {
  const { session } = m;
  const readOnly = session.mode === 'test';
  const state = readOnly
    ? { title: 'Test-mode record', body: 'This checkout was created in test mode and is read-only. It cannot be paid.' }
    : (exceptionText(m.exceptions ?? [], session.destinationAsset) ?? STATE_TEXT[session.status] ?? { title: session.status, body: '' });
  const payable = !readOnly && session.status === 'pending';
  const network = NETWORK_NAMES[session.network as Network] ?? session.network;

  let actions: Raw = html``;
  if (payable && m.paymentsEnabled) {
    actions = html`
      <form method="post" action="/pay/${session.id}/start">
        <button type="submit" class="primary" id="pay-button">Pay ${m.amount} ${session.currency}</button>
      </form>
      ${session.verification === 'chain' && !m.wallet
        ? html`<form method="post" action="/pay/${session.id}/wallet">
        <button type="submit" class="secondary" id="wallet-button">Pay from your wallet (${session.destinationAsset} on ${network})</button>
      </form>`
        : ''}
      <form method="post" action="/pay/${session.id}/cancel">
        <button type="submit" class="secondary" id="cancel-button">Cancel and return to ${m.merchantName}</button>
      </form>`;
  } else if (payable) {
    actions = html`<p class="notice" role="alert">Payments are temporarily unavailable. Please try again later.</p>`;
  } else if (session.status === 'completed' && session.successUrl) {
    actions = html`<a class="primary button" id="return-link" href="${session.successUrl}">Return to ${m.merchantName}</a>`;
  } else if ((session.status === 'canceled' || session.status === 'expired' || session.status === 'failed') && session.cancelUrl) {
    actions = html`<a class="secondary button" href="${session.cancelUrl}">Back to ${m.merchantName}</a>`;
  }

  return hostedDocument(
    { title: `Pay ${m.merchantName}`, scripts: ['/pay/assets/checkout.js'] },
    html`
  <main class="card" id="checkout" data-session-id="${session.id}" data-status="${session.status}">
    <header>
      <p class="merchant">${m.merchantName}</p>
      <h1 class="amount"><span id="amount">${m.amount}</span> <span id="currency">${session.currency}</span></h1>
    </header>
    <dl class="details">
      <div><dt>Settles as</dt><dd id="destination">${session.destinationAsset} on ${network}</dd></div>
      <div><dt>Paid through</dt><dd>${session.provider}</dd></div>
      <div><dt>Reference</dt><dd class="mono">${session.id}</dd></div>
    </dl>
    <section class="state state-${session.status}" aria-live="polite">
      <h2 id="status-title">${state.title}</h2>
      <p id="status" data-status="${session.status}"${m.exceptions && m.exceptions.length > 0 ? html` data-exception="${m.exceptions[m.exceptions.length - 1]!.kind}"` : ''}>${state.body}</p>
      ${m.notice ? html`<p class="notice" role="alert">${m.notice}</p>` : ''}
    </section>
    ${m.wallet && (session.status === 'pending' || session.status === 'processing') ? walletInstructions(m.wallet, network) : ''}
    <div class="actions">${actions}</div>
    <footer><p>Secure checkout · expires ${session.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC</p></footer>
  </main>`,
  );
}

/** Where and what to send; the fields are read-only inputs so a customer can select and copy them. */
function walletInstructions(w: NonNullable<CheckoutPageModel['wallet']>, network: string): Raw {
  const d = w.deposit;
  return html`<section class="instructions" id="wallet-instructions" aria-label="Pay from your wallet">
      <h3>Send exactly <span id="deposit-amount">${d.amount}</span> <span id="deposit-asset">${d.asset}</span> on ${network}</h3>
      <div class="qr" id="deposit-qr" role="img" aria-label="QR code of the transfer">${raw(w.qrSvg)}</div>
      <label>Deposit address <input class="mono" id="deposit-address" readonly value="${d.address}"></label>
      <label>Amount <input class="mono" id="deposit-amount-copy" readonly value="${d.amount}"></label>
      <p class="small">Send only ${d.asset} on ${network} (chain id ${d.chainId}), before ${d.expiresAt.replace('T', ' ').slice(0, 16)} UTC. This page updates once the transfer is confirmed.</p>
    </section>`;
}

export function renderMessagePage(title: string, body: string, back?: string): string {
  return hostedDocument(
    { title },
    html`
  <main class="card">
    <section class="state"><h1>${title}</h1><p>${body}</p></section>
    ${back ? html`<div class="actions"><a class="secondary button" href="${back}">Back to checkout</a></div>` : ''}
  </main>`,
  );
}
