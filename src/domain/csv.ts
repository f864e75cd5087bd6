// CSV as spreadsheets read it (RFC 4180, CRLF line ends). A cell a spreadsheet would run as a formula
// is prefixed with an apostrophe (CSV injection): merchants' order ids and emails reach these files.

function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One line of a CSV file, its line end included. */
export const csvLine = (cells: readonly string[]): string => cells.map(cell).join(',') + '\r\n';
