import i18next, { type TFunction } from 'i18next';
import { DEFAULT_LOCALE, PAGE_LOCALES, type PageLocale } from '../../../domain/locales';
import { de } from './de';
import { en } from './en';
import { es } from './es';
import { fr } from './fr';
import { pt } from './pt';

// The hosted pages' words (i18next, catalogues in code so they ship with the build and a missing key
// is a type error) and numbers and dates in the customer's conventions (Intl).

export const CATALOGUES = { en, de, fr, es, pt } as const;

const i18n = i18next.createInstance();
// Synchronous with inline resources; values are escaped by the pages' html template, not here.
void i18n.init({
  resources: Object.fromEntries(PAGE_LOCALES.map((l) => [l, { translation: CATALOGUES[l] }])),
  supportedLngs: [...PAGE_LOCALES],
  fallbackLng: DEFAULT_LOCALE,
  initAsync: false,
  showSupportNotice: false,
  interpolation: { escapeValue: false },
});

export interface PageText {
  locale: PageLocale;
  t: TFunction;
  /** A decimal amount (e.g. "1234.50") in the locale's digits and separators, with the currency's decimals. */
  amount(decimal: string, currency?: string): string;
  /**
   * A stablecoin amount (a 6-decimal string) in the locale's digits: at least two decimals, as money
   * is read, and no zeros past the token's significant ones ("81,00", "24,75", "0,123456").
   */
  crypto(decimal: string): string;
  /** An amount with its currency as the locale writes it (symbol or code), e.g. "25,00 $" or "US$ 25,00". */
  money(decimal: string, currency: string): string;
  /** A moment as date and time in UTC, named as such. */
  dateTime(at: Date): string;
}

export function pageText(locale: PageLocale): PageText {
  const t = i18n.getFixedT(locale);
  return {
    locale,
    t,
    amount: (decimal, currency) => {
      const digits = decimal.includes('.') ? decimal.split('.')[1]!.length : 0;
      const fractions = currency ? (fractionDigits(currency) ?? digits) : digits;
      // Intl formats a decimal string exactly (no float rounding) in Node 20 and later.
      return new Intl.NumberFormat(locale, { minimumFractionDigits: fractions, maximumFractionDigits: Math.max(fractions, digits) }).format(
        decimal as unknown as number,
      );
    },
    crypto: (decimal) =>
      new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(decimal as unknown as number),
    money: (decimal, currency) => new Intl.NumberFormat(locale, { style: 'currency', currency }).format(decimal as unknown as number),
    dateTime: (at) =>
      new Intl.DateTimeFormat(locale, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: 'UTC',
        timeZoneName: 'short',
      }).format(at),
  };
}

function fractionDigits(currency: string): number | undefined {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().minimumFractionDigits;
  } catch {
    return undefined;
  }
}
