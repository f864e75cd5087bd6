import type { SimpleOrderRow } from '../../db/queries/simple-orders';
import { html, raw, type Raw } from '../../domain/html';
import type { PaymentInstructions } from '../../workflows/simple-order/messages';
import type { PaymentOption } from '../../payments';
import { hostedDocument } from './document';

// The simple API's hosted page, /pay/<transaction_code>: the customer picks a rail, sees how to pay
// (a QR code and address for crypto rails, the provider's page for fiat rails) and follows the status.
// Server-rendered, usable without JavaScript; the small script only reloads it on a status change.

export interface SimplePageModel {
  order: SimpleOrderRow;
  fiatAmount: string;
  usdAmount: string;
  options: PaymentOption[];
  paymentsEnabled: boolean;
  /** A chosen crypto rail's instructions, with its QR code as an SVG string (rendered by the server). */
  crypto?: { instructions: Extract<PaymentInstructions, { type: 'crypto' }>; qrSvg: string; uri: string | null } | undefined;
  notice?: string | undefined;
}

const STATE_TEXT: Record<SimpleOrderRow['status'], { title: string; body: string }> = {
  pending: { title: 'Choose how to pay', body: 'Pick a payment method below.' },
  processing: { title: 'Payment in progress', body: 'Your payment is being confirmed. This page updates by itself.' },
  settled: { title: 'Payment received', body: 'Thank you. The funds were sent to your wallet.' },
  failed: { title: 'Payment failed', body: 'The payment did not go through. No money was taken.' },
  expired: { title: 'Checkout expired', body: 'This checkout is no longer open. Please start again.' },
};

export function renderSimplePage(m: SimplePageModel): string {
  const { order } = m;
  // A chain-proven order is settled once the money is ours; its payout to the wallet is a later step.
  const state =
    order.status === 'settled' && !order.payoutDispatched
      ? { title: 'Payment received', body: 'Thank you. Your payment is confirmed on chain; the funds are on their way to your wallet.' }
      : STATE_TEXT[order.status];
  const network = order.walletNetwork.toUpperCase();

  let actions: Raw = html``;
  if (order.status === 'pending' && m.paymentsEnabled) {
    const fiat = m.options.filter((o) => o.type === 'fiat');
    const crypto = m.options.filter((o) => o.type === 'crypto');
    actions = html`
      ${fiat.length > 0
        ? html`<h3>Card or bank</h3>
          <div class="rails">${fiat.map(
            (o) => html`<form method="post" action="/pay/${order.transactionCode}/start">
              <input type="hidden" name="payment_method" value="${o.slug}">
              <button type="submit" class="primary" id="rail-${o.slug}">${o.name}: pay ${o.amount} ${o.currency}</button>
            </form>`,
          )}</div>`
        : ''}
      <h3>Crypto</h3>
      <ul class="rails" id="crypto-rails">${crypto.map(
        (o) => html`<li><a class="secondary button${m.crypto?.instructions.slug === o.slug ? ' chosen' : ''}" id="rail-${o.slug}" href="/pay/${order.transactionCode}?method=${o.slug}">${o.name}: ${o.amount} ${o.currency}</a></li>`,
      )}</ul>`;
  } else if (order.status === 'pending') {
    actions = html`<p class="notice" role="alert">Payments are temporarily unavailable. Please try again later.</p>`;
  } else if (order.status === 'settled' && order.successUrl) {
    actions = html`<a class="primary button" id="return-link" href="${order.successUrl}">Return to the shop</a>`;
  } else if (order.status !== 'processing' && order.cancelUrl) {
    actions = html`<a class="secondary button" href="${order.cancelUrl}">Back to the shop</a>`;
  }

  const instructions =
    m.crypto && order.status === 'pending'
      ? html`<section class="instructions" id="crypto-instructions" aria-label="Payment instructions">
          <h3>Send exactly <span id="deposit-amount">${m.crypto.instructions.amount}</span> <span id="deposit-asset">${m.crypto.instructions.asset}</span> on <span id="deposit-network">${m.crypto.instructions.network}</span></h3>
          <div class="qr" id="deposit-qr" role="img" aria-label="QR code of the transfer: ${m.crypto.instructions.amount} ${m.crypto.instructions.asset} to the deposit address" data-uri="${m.crypto.uri ?? m.crypto.instructions.address}">${raw(m.crypto.qrSvg)}</div>
          <p>To this address:</p>
          <p class="mono" id="deposit-address">${m.crypto.instructions.address}</p>
          <button type="button" class="copy" data-copy-text="${m.crypto.instructions.address}" data-copied="Copied" hidden>Copy address</button>
          <p class="small">Valid until ${m.crypto.instructions.expiresAt.replace('T', ' ').slice(0, 16)} UTC. Send only ${m.crypto.instructions.asset} on ${m.crypto.instructions.network}.</p>
        </section>`
      : '';

  return hostedDocument(
    {
      title: `Pay ${m.fiatAmount} ${order.fiatCurrency}`,
      stylesheets: ['/pay/assets/simple-order.css'],
      scripts: ['/pay/assets/simple-order.js'],
      refresh: order.status === 'processing' ? { seconds: 5 } : order.status === 'pending' ? { seconds: 60 } : undefined,
    },
    html`
  <main class="card" id="simple-checkout" data-transaction-code="${order.transactionCode}" data-status="${order.status}">
    <header>
      <h1 class="amount"><span id="amount">${m.fiatAmount}</span> <span id="currency">${order.fiatCurrency}</span></h1>
      <p>≈ <span id="amount-usd">${m.usdAmount}</span> USD</p>
    </header>
    <dl class="details">
      <div><dt>Delivered to</dt><dd class="mono" id="wallet">${order.walletAddress}</dd></div>
      <div><dt>As</dt><dd id="destination">${order.walletCurrency} on ${network}</dd></div>
      <div><dt>Reference</dt><dd class="mono">${order.transactionCode}</dd></div>
    </dl>
    <section class="state state-${order.status}" aria-live="polite">
      <h2 id="status-title">${state.title}</h2>
      <p id="status" data-status="${order.status}">${state.body}</p>
      ${m.notice ? html`<p class="notice" role="alert">${m.notice}</p>` : ''}
    </section>
    ${instructions}
    <div class="actions">${actions}</div>
    <footer><p>Secure checkout · expires ${order.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC</p></footer>
  </main>`,
  );
}
