/**
 * CSV the app writes (the Costs page's exports): RFC 4180 quoting, and no cell a spreadsheet would run. Text a
 * session title, a model name or a profile carries may start with = + - @, a tab or a CR, which Excel, LibreOffice
 * and Sheets read as a formula (`=HYPERLINK(…)`, DDE); such a cell gets a leading ' so it opens as text. A number,
 * negative ones included, is written as it is and stays a number.
 */

/** A plain decimal number as this app writes them ("-12", "-0.500000"): left alone. */
const NUMBER = /^-?\d+(\.\d+)?$/
const FORMULA_START = /^[=+\-@\t\r]/

export function csvCell(v: string | number | null | undefined): string {
  let s = v == null ? '' : String(v)
  if (typeof v !== 'number' && FORMULA_START.test(s) && !NUMBER.test(s)) s = `'${s}`
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** Rows as one CSV text, CRLF line ends, ending with one. */
export function csvText(rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>): string {
  return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n'
}
