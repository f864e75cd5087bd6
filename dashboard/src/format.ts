// How every page shows money and moments: in the merchant's own locale and time zone (the
// browser's), through Intl, from the API's exact decimal strings.
//
// Amounts never pass through a float: the whole part is formatted by Intl as a bigint (exact, with
// the locale's grouping) and the decimals are the API's own digits behind the locale's separator.
// Where a list shows two decimals it cuts the rest off rather than rounding: Intl's default rounds
// half away from zero (half-even would be no better), and a rounded 9.999999 reads 10.00, money that
// never arrived. The cut digits are on hover (the list's title) and on the payment's own page,
// which shows every one.

/** A locale and time zone other than the browser's: tests pin them; pages leave them out. */
export interface Where {
  locale?: string;
  timeZone?: string;
}

const numberFormats = new Map<string, { grouping: Intl.NumberFormat; separator: string }>();
function numberFormat(locale: string | undefined) {
  const key = locale ?? '';
  let f = numberFormats.get(key);
  if (!f) {
    const separator = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
    numberFormats.set(key, (f = { grouping: new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }), separator }));
  }
  return f;
}

/**
 * An amount as words read it: `exact` keeps every significant decimal, at least two ("24.625 USDC",
 * "25.00 USDC"); otherwise two, cut ("24.62 USDC"). An amount written without decimals (a currency
 * that has none, like JPY) stays without.
 */
export function formatAmount(text: string, unit: string, options: { exact?: boolean } & Where = {}): string {
  return `${formatDecimal(text, options)} ${unit}`;
}

/** The number alone, for a sentence or a column that names the unit once. */
export function formatDecimal(text: string, options: { exact?: boolean } & Where = {}): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return text;
  const [, sign, whole, digits = ''] = match;
  const least = digits ? 2 : 0;
  const significant = digits.replace(/0+$/, '').padEnd(least, '0');
  const decimals = options.exact ? significant : significant.slice(0, 2);
  const { grouping, separator } = numberFormat(options.locale);
  return `${sign}${grouping.format(BigInt(whole!))}${decimals ? separator + decimals : ''}`;
}

/** An open payment some of whose money arrived: "Partly paid: 10.00 of 25.00 USDC arrived". */
export function partlyPaidText(
  part: { arrived: string; expected: string },
  asset: string,
  options: { exact?: boolean } & Where = {},
): string {
  return `Partly paid: ${formatDecimal(part.arrived, options)} of ${formatAmount(part.expected, asset, options)} arrived`;
}

/**
 * A moment in the merchant's locale and time zone, the zone named (a support call compares times
 * across zones); `seconds` for the full form a title shows.
 */
export function formatDate(iso: string, options: { seconds?: boolean } & Where = {}): string {
  const { locale, timeZone, seconds } = options;
  const format = seconds
    ? new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'long', timeZone })
    : new Intl.DateTimeFormat(locale, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZoneName: 'short',
        timeZone,
      });
  return format.format(new Date(iso));
}
