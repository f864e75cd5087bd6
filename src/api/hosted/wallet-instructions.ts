import { html, raw, type Raw } from '../../domain/html';
import { parseCrypto } from '../../domain/money';
import type { DirectDeposit } from '../../payments';
import type { PageText } from './i18n';

// The checkout page's wallet view: where and what to send from the customer's own wallet.

/**
 * The direct rail's instructions once the customer chose "pay from your wallet", with the QR of its
 * EIP-681 URI (`uri`): of the whole amount, or of what remains once part of it arrived. `token`:
 * the EVM token contract, for the browser wallet's transfer (absent: no such button).
 */
export interface WalletView {
  deposit: DirectDeposit;
  qrSvg: string;
  uri: string;
  token?: string | undefined;
}

/**
 * Where and what to send; read-only fields a customer can select, with copy buttons for
 * script-enabled browsers. Partly paid: the same address, the QR and the amount of what remains.
 */
export function walletInstructions(w: WalletView, network: string, text: PageText, remaining?: string): Raw {
  const { t } = text;
  const d = w.deposit;
  const due = remaining ?? d.amount;
  const amount = text.crypto(due);
  return html`<section class="instructions" id="wallet-instructions" aria-labelledby="wallet-heading">
      <h3 id="wallet-heading">${t('checkout.wallet.sendExactly', { amount, asset: d.asset, network })}</h3>
      <div class="qr" id="deposit-qr" role="img" aria-label="${t('checkout.wallet.qr', { amount, asset: d.asset })}" data-uri="${w.uri}">${raw(w.qrSvg)}</div>
      ${oneTap(w, due, text)}
      ${copyField('deposit-address', t('checkout.wallet.address'), d.address, t('checkout.wallet.copyAddress'), text, { wrap: true })}
      ${copyField('deposit-amount-copy', t('checkout.wallet.amount'), due, t('checkout.wallet.copyAmount'), text)}
      <p class="small">${t('checkout.wallet.sendOnly', { asset: d.asset, network, chainId: d.chainId, date: text.dateTime(new Date(d.expiresAt)) })}</p>
    </section>`;
}

/**
 * Paying in one tap: on a phone, the EIP-681 URI as a link a wallet app opens (shown to
 * coarse pointers only, by the stylesheet); in a browser with an EIP-1193 wallet, a button the script
 * reveals, which asks the wallet for the token transfer the QR code describes (assets/checkout.js).
 */
function oneTap(w: WalletView, due: string, text: PageText): Raw {
  const { t } = text;
  if (!w.uri.startsWith('ethereum:')) return html``;
  return html`<div class="one-tap">
        <a class="primary button open-in-wallet" id="open-in-wallet" href="${w.uri}">${t('checkout.wallet.openInWallet')}</a>
        ${
          w.token
            ? html`<button type="button" class="primary" id="browser-wallet-button" hidden data-token="${w.token}" data-chain-id="${w.deposit.chainId}" data-to="${w.deposit.address}" data-amount="${parseCrypto(due).toString()}" data-working="${t('checkout.wallet.browserWorking')}" data-sent="${t('checkout.wallet.browserSent')}" data-rejected="${t('checkout.wallet.browserRejected')}" data-failed="${t('checkout.wallet.browserFailed')}">${t('checkout.wallet.payWithBrowser')}</button>
        <p class="small" id="browser-wallet-status" role="status"></p>`
            : ''
        }
      </div>`;
}

/** A read-only field and its copy button; the button is hidden until the script can make it work. */
function copyField(id: string, label: string, value: string, copyLabel: string, text: PageText, options: { wrap?: boolean } = {}): Raw {
  // An address is shown whole, wrapped over lines, never cut off by its field's width.
  const field = options.wrap
    ? html`<textarea class="mono wrap" id="${id}" readonly rows="2" spellcheck="false">${value}</textarea>`
    : html`<input class="mono" id="${id}" readonly value="${value}">`;
  return html`<div class="copy-field">
        <label for="${id}" id="${id}-label">${label}</label>
        <div class="copy-row">
          ${field}
          <button type="button" class="copy" data-copy="${id}" data-copied="${text.t('common.copied')}" title="${copyLabel}" aria-describedby="${id}-label" hidden>${text.t('common.copy')}</button>
        </div>
      </div>`;
}
