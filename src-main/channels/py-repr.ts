/**
 * Python's `repr()` of JSON-shaped values (str, int, bool, None, list, dict): what upstream hashes when it keys a
 * conversation whose first message has images (a list of parts, written into an f-string). Strings follow
 * CPython's rules: single quotes unless the text has a single quote and no double one; `\\`, the quote, `\t`, `\n`,
 * `\r` escaped; other non-printable characters (controls, format, separators other than the space, unassigned) as
 * `\xhh` / `\uhhhh` / `\Uhhhhhhhh`; every printable character as itself.
 */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = quote
  for (const ch of s) {
    const code = ch.codePointAt(0)!
    if (ch === quote || ch === '\\') out += `\\${ch}`
    else if (ch === '\t') out += '\\t'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch !== ' ' && NON_PRINTABLE.test(ch))
      out += code <= 0xff ? `\\x${hex(code, 2)}` : code <= 0xffff ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`
    else out += ch
  }
  return out + quote
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')

export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'string') return reprString(v)
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  // Integers only in what upstream hashes here (a float would need Python's shortest round-trip form, e.g. 1.0).
  if (typeof v === 'number') return String(v)
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`
  if (typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`)
      .join(', ')}}`
  return reprString(String(v))
}

/** Python's `str()`: a string as it is, anything else as its repr. */
export const pyStr = (v: unknown): string => (typeof v === 'string' ? v : pyRepr(v))
