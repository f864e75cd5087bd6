import { DEFAULT_LOCALE, isPageLocale, type PageLocale } from '../domain/locales';

// The customer's receipt and refund notice, in the language of the page the address was
// given on (the hosted pages' five). Plain text: what was paid or sent back, to whom, and the
// reference to quote; amounts and dates as that language writes them.

export interface ReceiptFacts {
  merchant: string;
  /** The price as a decimal string ("25.00") in `currency`. */
  amount: string;
  currency: string;
  reference: string;
  paidAt: Date;
  /** What arrived on chain for it, when the payment was proven there: "25.000000" USDC on Polygon. */
  crypto?: { amount: string; asset: string; network: string } | undefined;
}

export interface RefundFacts {
  merchant: string;
  reference: string;
  amount: string;
  asset: string;
  network: string;
  address: string;
  transactionHash: string;
}

interface Words {
  receiptSubject: string;
  receiptIntro: string;
  refundSubject: string;
  refundIntro: string;
  amount: string;
  paidOnChain: string;
  date: string;
  reference: string;
  sentTo: string;
  transaction: string;
  closing: string;
}

const WORDS: Record<PageLocale, Words> = {
  en: {
    receiptSubject: 'Your receipt from {merchant}',
    receiptIntro: 'Thank you. Your payment to {merchant} was received.',
    refundSubject: 'Money sent back to you by {merchant}',
    refundIntro: 'Money of your payment to {merchant} was sent back to you.',
    amount: 'Amount',
    paidOnChain: 'Received on chain',
    date: 'Date',
    reference: 'Reference',
    sentTo: 'Sent to',
    transaction: 'Transaction',
    closing: 'You asked for this message on the payment page. Quote the reference if you contact {merchant}.',
  },
  de: {
    receiptSubject: 'Ihre Quittung von {merchant}',
    receiptIntro: 'Vielen Dank. Ihre Zahlung an {merchant} ist eingegangen.',
    refundSubject: '{merchant} hat Ihnen Geld zurückgesendet',
    refundIntro: 'Geld aus Ihrer Zahlung an {merchant} wurde an Sie zurückgesendet.',
    amount: 'Betrag',
    paidOnChain: 'On-Chain erhalten',
    date: 'Datum',
    reference: 'Referenz',
    sentTo: 'Gesendet an',
    transaction: 'Transaktion',
    closing: 'Sie haben diese Nachricht auf der Zahlungsseite angefordert. Nennen Sie die Referenz, wenn Sie {merchant} kontaktieren.',
  },
  fr: {
    receiptSubject: 'Votre reçu de {merchant}',
    receiptIntro: 'Merci. Votre paiement à {merchant} a bien été reçu.',
    refundSubject: '{merchant} vous a renvoyé de l’argent',
    refundIntro: 'De l’argent de votre paiement à {merchant} vous a été renvoyé.',
    amount: 'Montant',
    paidOnChain: 'Reçu sur la blockchain',
    date: 'Date',
    reference: 'Référence',
    sentTo: 'Envoyé à',
    transaction: 'Transaction',
    closing: 'Vous avez demandé ce message sur la page de paiement. Indiquez la référence si vous contactez {merchant}.',
  },
  es: {
    receiptSubject: 'Su recibo de {merchant}',
    receiptIntro: 'Gracias. Hemos recibido su pago a {merchant}.',
    refundSubject: '{merchant} le ha devuelto dinero',
    refundIntro: 'Se le ha devuelto dinero de su pago a {merchant}.',
    amount: 'Importe',
    paidOnChain: 'Recibido en la cadena',
    date: 'Fecha',
    reference: 'Referencia',
    sentTo: 'Enviado a',
    transaction: 'Transacción',
    closing: 'Pidió este mensaje en la página de pago. Indique la referencia si contacta con {merchant}.',
  },
  pt: {
    receiptSubject: 'O seu recibo de {merchant}',
    receiptIntro: 'Obrigado. O seu pagamento a {merchant} foi recebido.',
    refundSubject: '{merchant} devolveu-lhe dinheiro',
    refundIntro: 'Dinheiro do seu pagamento a {merchant} foi-lhe devolvido.',
    amount: 'Montante',
    paidOnChain: 'Recebido na blockchain',
    date: 'Data',
    reference: 'Referência',
    sentTo: 'Enviado para',
    transaction: 'Transação',
    closing: 'Pediu esta mensagem na página de pagamento. Indique a referência se contactar {merchant}.',
  },
};

const localeOf = (locale: string): PageLocale => (isPageLocale(locale) ? locale : DEFAULT_LOCALE);
const fill = (template: string, merchant: string) => template.replaceAll('{merchant}', merchant);

/** A decimal string in the language's digits; `fixed` keeps the currency's decimals, else 2 to 6 of the token's. */
function number(locale: PageLocale, decimal: string, currency?: string): string {
  // Intl formats a decimal string exactly (no float rounding) in Node 20 and later.
  const value = decimal as unknown as number;
  if (currency) return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(value);
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(value);
}

const date = (locale: PageLocale, at: Date) =>
  new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(at);

const lines = (rows: [string, string][]) => rows.map(([label, value]) => `${label}: ${value}`).join('\n');

export function receiptMail(localeTag: string, facts: ReceiptFacts): { subject: string; text: string } {
  const locale = localeOf(localeTag);
  const w = WORDS[locale];
  const rows: [string, string][] = [[w.amount, number(locale, facts.amount, facts.currency)]];
  if (facts.crypto) rows.push([w.paidOnChain, `${number(locale, facts.crypto.amount)} ${facts.crypto.asset} (${facts.crypto.network})`]);
  rows.push([w.date, date(locale, facts.paidAt)], [w.reference, facts.reference]);
  return {
    subject: fill(w.receiptSubject, facts.merchant),
    text: `${fill(w.receiptIntro, facts.merchant)}\n\n${lines(rows)}\n\n${fill(w.closing, facts.merchant)}\n`,
  };
}

export function refundMail(localeTag: string, facts: RefundFacts): { subject: string; text: string } {
  const locale = localeOf(localeTag);
  const w = WORDS[locale];
  const rows: [string, string][] = [
    [w.amount, `${number(locale, facts.amount)} ${facts.asset} (${facts.network})`],
    [w.sentTo, facts.address],
    [w.transaction, facts.transactionHash],
    [w.reference, facts.reference],
  ];
  return {
    subject: fill(w.refundSubject, facts.merchant),
    text: `${fill(w.refundIntro, facts.merchant)}\n\n${lines(rows)}\n\n${fill(w.closing, facts.merchant)}\n`,
  };
}
