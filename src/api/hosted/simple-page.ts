import type { SimpleOrderRow } from '../../payments/rows';
import { html, raw, type Raw } from '../../domain/html';
import { READING_REFRESH_S, WAITING_REFRESH_S, withMarkup } from './checkout-page';
import { findRail } from '../../domain/rails';
import { NETWORK_NAMES, type Network } from '../../domain/assets';
import { parseEvmAddress } from '../../domain/evm-address';
import type { PaymentInstructions } from '../../domain/rails';
import type { PaymentOption } from '../../payments';
import { hostedDocument } from './document';
import type { PageText } from './i18n';

// The simple API's hosted page, /pay/<transaction_code>: the customer picks a rail, sees how to pay
// (a QR code and address for crypto rails, the provider's page for fiat rails) and follows the status.
// Server-rendered, usable without JavaScript; live.js reloads it on a status change (its stream,
// GET /pay/<code>/events), simple-order.js makes the copy buttons work.
// Words from the hosted pages' catalogues (the `simple` section), numbers and dates by Intl.

export interface SimplePageModel {
  order: SimpleOrderRow;
  /** The order's amount as a decimal string with the currency's decimals ("25.00"). */
  fiatAmount: string;
  /** Its USD value with 6 decimals ("27.000000"). */
  usdAmount: string;
  options: PaymentOption[];
  paymentsEnabled: boolean;
  text: PageText;
  /** A chosen crypto rail's instructions, with its QR code as an SVG string (rendered by the server). */
  crypto?: { instructions: Extract<PaymentInstructions, { type: 'crypto' }>; qrSvg: string; uri: string | null } | undefined;
  /** Already in the page's language. */
  notice?: string | undefined;
}

/** A rail's name in the customer's language; the API's English name for a rail the catalogues do not know. */
function railName(o: PaymentOption, t: PageText['t']): string {
  const rail = findRail(o.slug);
  if (rail?.type === 'crypto') return t('simple.cryptoRail', { asset: rail.asset, network: NETWORK_NAMES[rail.network] });
  if (rail?.slug === 'card') return t('simple.card');
  if (rail?.slug === 'bank_transfer') return t('simple.bankTransfer');
  return o.name;
}

/** A network as people write it ("Polygon", "Tron"), whatever case the API was given. */
const networkName = (network: string) => NETWORK_NAMES[network.toLowerCase() as Network] ?? network;

/** An EVM address in its EIP-55 checksummed form (the case is its checksum); other networks' as they are. */
const shownAddress = (address: string) => parseEvmAddress(address) ?? address;

/**
 * Who the customer is paying: a simple order has no merchant account, so the shop is named by the
 * site it came from and returns to (its success or cancel URL's host).
 */
function shopOf(order: SimpleOrderRow): string | null {
  for (const url of [order.successUrl, order.cancelUrl]) {
    try {
      if (url) return new URL(url).hostname;
    } catch {
      // Stored URLs were checked on the way in; an unreadable one names nobody.
    }
  }
  return null;
}

export function renderSimplePage(m: SimplePageModel): string {
  const { order, text } = m;
  const { t } = text;
  // A chain-proven order is settled once the money is ours; its payout to the wallet is a later step.
  // The kill switch has a state of its own, said once: never "Choose how to pay" above "unavailable".
  const stateKey =
    order.status === 'settled' && !order.payoutDispatched
      ? 'settledOnChain'
      : order.status === 'pending' && !m.paymentsEnabled
        ? 'paused'
        : order.status;
  const network = networkName(order.walletNetwork);
  const shop = shopOf(order);
  // Followed live while something is still to happen: payment, confirmation, or the payout of money already ours.
  const following = order.status === 'pending' || order.status === 'processing' || stateKey === 'settledOnChain';
  // One expiry: the earlier of the order's and the chosen rail's.
  const railExpiry = m.crypto && order.status === 'pending' ? new Date(m.crypto.instructions.expiresAt) : null;
  const expiresAt = railExpiry && railExpiry < order.expiresAt ? railExpiry : order.expiresAt;

  let actions: Raw = html``;
  if (order.status === 'pending' && m.paymentsEnabled) {
    const fiat = m.options.filter((o) => o.type === 'fiat');
    const crypto = m.options.filter((o) => o.type === 'crypto');
    actions = html`
      ${
        fiat.length > 0
          ? html`<h3>${t('simple.cardOrBank')}</h3>
          <div class="rails">${fiat.map(
            (o) => html`<form method="post" action="/pay/${order.transactionCode}/start">
              <input type="hidden" name="payment_method" value="${o.slug}">
              <button type="submit" class="primary" id="rail-${o.slug}">${t('simple.payWith', { rail: railName(o, t), amount: text.money(o.amount, o.currency) })}</button>
            </form>`,
          )}</div>`
          : ''
      }
      <h3>${t('simple.crypto')}</h3>
      <ul class="rails" id="crypto-rails">${crypto.map(
        (o) =>
          html`<li><a class="secondary button${m.crypto?.instructions.slug === o.slug ? ' chosen' : ''}" id="rail-${o.slug}" href="/pay/${order.transactionCode}?method=${o.slug}">${t('simple.railAmount', { rail: railName(o, t), amount: text.crypto(o.amount), asset: o.currency })}</a></li>`,
      )}</ul>`;
  } else if (order.status === 'settled' && order.successUrl) {
    actions = html`<a class="primary button" id="return-link" href="${order.successUrl}">${t('simple.returnToShop')}</a>`;
  } else if (order.status !== 'processing' && order.cancelUrl) {
    actions = html`<a class="secondary button" href="${order.cancelUrl}">${t('simple.backToShop')}</a>`;
  }

  let instructions: Raw | '' = '';
  if (m.crypto && order.status === 'pending') {
    const d = m.crypto.instructions;
    const amount = text.crypto(d.amount);
    const address = shownAddress(d.address);
    const depositNetwork = networkName(d.network);
    instructions = html`<section class="instructions" id="crypto-instructions" aria-label="${t('simple.instructions')}">
          <h3>${withMarkup(t, 'simple.sendExactly', {
            amount: html`<span id="deposit-amount">${amount}</span>`,
            asset: html`<span id="deposit-asset">${d.asset}</span>`,
            network: html`<span id="deposit-network">${depositNetwork}</span>`,
          })}</h3>
          <div class="qr" id="deposit-qr" role="img" aria-label="${t('simple.qr', { amount, asset: d.asset })}" data-uri="${m.crypto.uri ?? d.address}">${raw(m.crypto.qrSvg)}</div>
          <p>${t('simple.toAddress')}</p>
          <p class="mono" id="deposit-address">${address}</p>
          <button type="button" class="copy" data-copy-text="${address}" data-copied="${t('common.copied')}" hidden>${t('simple.copyAddress')}</button>
          <p class="small">${t('simple.sendOnly', { asset: d.asset, network: depositNetwork })}</p>
        </section>`;
  }

  return hostedDocument(
    {
      title: t('simple.title', { amount: text.money(m.fiatAmount, order.fiatCurrency) }),
      lang: text.locale,
      stylesheets: ['/pay/assets/simple-order.css'],
      scripts: ['/pay/assets/live.js', '/pay/assets/simple-order.js'],
      refresh: following ? { seconds: order.status === 'processing' ? WAITING_REFRESH_S : READING_REFRESH_S } : undefined,
    },
    html`
  <main class="card" id="simple-checkout" data-transaction-code="${order.transactionCode}" data-status="${order.status}"${following ? html` data-events="/pay/${order.transactionCode}/events" data-live="${JSON.stringify({ status: order.status, payoutSent: order.payoutDispatched })}"` : ''}>
    <header>
      ${shop ? html`<p class="merchant" id="merchant">${shop}</p>` : ''}
      <h1 class="amount"><span id="amount">${text.amount(m.fiatAmount, order.fiatCurrency)}</span> <span id="currency">${order.fiatCurrency}</span></h1>
      ${order.fiatCurrency === 'USD' ? '' : html`<p>≈ <span id="amount-usd">${text.money(m.usdAmount, 'USD')}</span></p>`}
    </header>
    <dl class="details">
      <div><dt>${t('simple.deliveredTo')}</dt><dd class="mono" id="wallet">${shownAddress(order.walletAddress)}</dd></div>
      <div><dt>${t('simple.as')}</dt><dd id="destination">${t('simple.destination', { asset: order.walletCurrency, network })}</dd></div>
      <div><dt>${t('simple.reference')}</dt><dd class="mono">${order.transactionCode}</dd></div>
    </dl>
    <section class="state state-${order.status}" aria-live="polite">
      <h2 id="status-title">${t(`simple.states.${stateKey}.title`)}</h2>
      <p id="status" data-status="${order.status}">${t(`simple.states.${stateKey}.body`)}</p>
      ${m.notice ? html`<p class="notice" role="alert">${m.notice}</p>` : ''}
    </section>
    ${instructions}
    <div class="actions">${actions}</div>
    <footer><p>${t('common.secureCheckout')}${order.status === 'pending' ? html` · ${t('simple.expires', { date: text.dateTime(expiresAt) })}` : ''}</p></footer>
  </main>`,
  );
}
