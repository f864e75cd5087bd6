// CSV as spreadsheets read it (RFC 4180, CRLF line ends). A cell a spreadsheet would run as a formula
// is prefixed with an apostrophe (CSV injection): merchants' order ids and emails reach these files.

function cell(raw: string): string {
  // NFKC first: a spreadsheet may read a full-width or small sign (＝, ﹢, ＠) as the ASCII one, so
  // the check must see, and the file carry, the form the sign folds to.
  const value = raw.normalize('NFKC');
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One line of a CSV file, its line end included. */
export const csvLine = (cells: readonly string[]): string => cells.map(cell).join(',') + '\r\n';
