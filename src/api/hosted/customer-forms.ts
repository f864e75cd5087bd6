import { html, type Raw } from '../../domain/html';
import type { ReceiptEmailAsk, RefundAddressAsk } from '../../payments';
import type { PageText } from './i18n';

// What the checkout page asks of the customer beside paying: where money owed back goes, and an
// address for the receipt and refund notices. Both are plain forms, checked by the server.

/**
 * Where money owed back goes. Pre-filled with the address the transfer came from (or the
 * one given before); checked by the server as an operator's refund address is. A wrapping field, as
 * the deposit address's: all 42 characters stay in view on a phone, so the customer can check them.
 */
export function refundAddressForm(id: string, ask: RefundAddressAsk, network: string, text: PageText): Raw {
  const { t } = text;
  return html`<section class="refund" id="refund" aria-labelledby="refund-heading">
      <h3 id="refund-heading">${t('checkout.refund.title')}</h3>
      <p class="small">${t('checkout.refund.explain', { network })}</p>
      ${ask.saved ? html`<p id="refund-address-saved">${t('checkout.refund.saved', { address: ask.saved })}</p>` : ''}
      <form method="post" action="/pay/${id}/refund-address" class="copy-field entry">
        <label for="refund-address">${t('checkout.refund.label')}</label>
        <textarea class="mono wrap" id="refund-address" name="address" rows="2" required maxlength="128" autocomplete="off" autocapitalize="off" spellcheck="false" data-submit-on-enter>${ask.saved ?? ask.suggested ?? ''}</textarea>
        <button type="submit" class="secondary" id="refund-address-button">${ask.saved ? t('checkout.refund.change') : t('checkout.refund.save')}</button>
      </form>
    </section>`;
}

/**
 * An email address for the receipt and refund notices, optional, checked by the server.
 * `wallet`: the form was on the wallet view, and the answer comes back there.
 */
export function receiptEmailForm(id: string, ask: ReceiptEmailAsk, wallet: boolean, text: PageText): Raw {
  const { t } = text;
  return html`<section class="receipt" id="receipt" aria-labelledby="receipt-heading">
      <h3 id="receipt-heading">${t('checkout.email.title')}</h3>
      <p class="small">${t('checkout.email.explain')}</p>
      ${ask.saved ? html`<p id="receipt-email-saved">${t('checkout.email.saved', { email: ask.saved })}</p>` : ''}
      <form method="post" action="/pay/${id}/email" class="copy-field entry">
        ${wallet ? html`<input type="hidden" name="view" value="wallet">` : ''}
        <label for="receipt-email">${t('checkout.email.label')}</label>
        <input type="email" id="receipt-email" name="email" value="${ask.saved ?? ask.suggested ?? ''}" required maxlength="254" autocomplete="email" spellcheck="false">
        <button type="submit" class="secondary" id="receipt-email-button">${ask.saved ? t('checkout.email.change') : t('checkout.email.save')}</button>
      </form>
    </section>`;
}
