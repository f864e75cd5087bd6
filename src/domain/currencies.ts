// Fiat currencies accepted for checkout, with their minor-unit exponent.
export const FIAT_DECIMALS = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  CAD: 2,
  AUD: 2,
  CHF: 2,
  SEK: 2,
  NOK: 2,
  DKK: 2,
  PLN: 2,
  BRL: 2,
  MXN: 2,
  JPY: 0,
} as const;

export type FiatCurrency = keyof typeof FIAT_DECIMALS;
export const FIAT_CURRENCIES = Object.keys(FIAT_DECIMALS) as FiatCurrency[];

export const isFiatCurrency = (c: string): c is FiatCurrency => Object.hasOwn(FIAT_DECIMALS, c);

/** Stablecoin amounts carry exactly 6 decimals everywhere (micro-units as bigint). */
export const CRYPTO_DECIMALS = 6;
