import type { CheckoutSessionRow } from '../../payments/rows';
import type { CustomerStatus } from '../../payments/customer-status';
import { html } from '../../domain/html';
import { parseCrypto } from '../../domain/money';
import { hostedDocument } from './document';
import type { PageText } from './i18n';

/**
 * Money of the session's that reached its deposit address or is on its way there, as the page says it
 * ("10.000000", with "+" while a transfer is still being confirmed); null when none did. A cancel then
 * does not give it back by itself (it becomes an exception the merchant is told of and refunds), so
 * the customer is asked first, and the answer is held to what they were told.
 */
export function moneySent(live: CustomerStatus | undefined): string | null {
  if (!live || live.status !== 'pending') return null;
  const received = live.received !== null && parseCrypto(live.received) > 0n;
  const onItsWay = live.confirmations !== null;
  if (!received && !onItsWay) return null;
  return `${live.received ?? '0'}${onItsWay ? '+' : ''}`;
}

export interface CancelConfirmationModel {
  session: Pick<CheckoutSessionRow, 'id' | 'currency' | 'destinationAsset'>;
  /** The checkout's amount as a decimal string with the currency's decimals. */
  amount: string;
  merchantName: string | null;
  live: CustomerStatus;
  /** What moneySent said when the page was drawn: the confirmation posts it back. */
  sent: string;
  text: PageText;
}

/**
 * "Cancel this checkout?" once money was sent: what happens to it, and two ways on. Keeping on is a
 * link back to the wallet view; cancelling is a form, so it works without JavaScript too.
 */
export function renderCancelConfirmation(m: CancelConfirmationModel): string {
  const { session, text, live } = m;
  const { t } = text;
  const merchant = m.merchantName ?? t('common.theMerchant');
  const asset = session.destinationAsset;
  const received = live.received !== null && parseCrypto(live.received) > 0n;
  return hostedDocument(
    { title: t('checkout.cancelConfirm.title'), lang: text.locale },
    html`
  <main class="card" id="cancel-confirmation" data-session-id="${session.id}">
    <header>
      <p class="merchant">${merchant}</p>
      <p class="amount"><span id="amount">${text.amount(m.amount, session.currency)}</span> <span id="currency">${session.currency}</span></p>
    </header>
    <section class="state" aria-labelledby="status-title">
      <h1 id="status-title">${t('checkout.cancelConfirm.title')}</h1>
      <p id="money-sent">${received ? t('checkout.cancelConfirm.received', { received: text.crypto(live.received!), asset }) : ''}${received && live.confirmations !== null ? ' ' : ''}${live.confirmations !== null ? t('checkout.cancelConfirm.onItsWay') : ''}</p>
      <p id="what-happens">${t('checkout.cancelConfirm.whatHappens', { merchant })}</p>
      ${live.remaining ? html`<p id="pay-rest">${t('checkout.cancelConfirm.payRest', { remaining: text.crypto(live.remaining), asset })}</p>` : ''}
    </section>
    <div class="actions">
      <a class="primary button" id="keep-paying" href="/pay/${session.id}/wallet">${t('checkout.cancelConfirm.keep')}</a>
      <form method="post" action="/pay/${session.id}/cancel">
        <input type="hidden" name="confirm" value="${m.sent}">
        <button type="submit" class="secondary" id="confirm-cancel">${t('checkout.cancelConfirm.confirm')}</button>
      </form>
    </div>
    <footer><p>${t('common.secureCheckout')}</p></footer>
  </main>`,
  );
}
