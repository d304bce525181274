/**
 * Upstream's multimodal marker (hermes-spec §1.6 messages.content): a list/dict content is stored as
 * "\0json:" + json.dumps(value). Only that exact prefix marks structured content — a string that merely
 * looks like JSON stays a string. JSON text is written the way Python's json.dumps writes it (", " and ": "
 * separators, non-ASCII escaped) so the stored bytes and the tokens every FTS index sees match upstream's own.
 */

import { partsText } from '@shared/contract'
import { pyJson, PyNumber } from '@shared/contract/py-text'
import { realText } from './real-text'
import { parseJsonOr } from '@shared/contract/errors'

export const CONTENT_MARKER = '\u0000json:'

/**
 * Stored form: scalars as upstream's `_encode_content` binds them into the TEXT column, lists/objects marker-prefixed.
 * The column keeps a bound number as text, in the words of the SQLite that stored it — upstream's (3.40 here), so
 * that is what is written: an int (a whole JS number, a boolean, a PyNumber integer) as its digits, a float (any other
 * number, a PyNumber float such as `2.0`) as SQLite 3.40 prints a double (real-text.ts), NaN as NULL. The SQLite
 * this process binds a double with would print another text ('0.30000000000000004' for what 3.40 stores as '0.3').
 */
export function encodeContent(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? '1' : '0'
  if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : realText(v)
  if (v instanceof PyNumber) {
    if (v.isFloat) return realText(Number(v))
    // what Python's sqlite3 binds: a 64-bit integer, or nothing (upstream's import fails with this error)
    if (BigInt(v.text) !== BigInt.asIntN(64, BigInt(v.text)))
      throw new Error('Python int too large to convert to SQLite INTEGER')
    return String(BigInt(v.text))
  }
  return CONTENT_MARKER + pyJson(v)
}

/** Reverse of encodeContent; an undecodable marked string is returned raw, like upstream's `_decode_content`. */
export function decodeContent(v: unknown): unknown {
  if (typeof v !== 'string' || !v.startsWith(CONTENT_MARKER)) return v
  return parseJsonOr(v.slice(CONTENT_MARKER.length), v)
}

/** Text for people: text parts as they are, every other part as `[image: name, size]`. Never a raw NUL. */
export function displayContent(stored: unknown): string | null {
  const v = decodeContent(stored)
  if (v === null || v === undefined) return null
  // A NUL inside plain text (a binary tool output) is shown as the symbol for it, never dropped or sent raw.
  if (typeof v === 'string')
    return (v.startsWith(CONTENT_MARKER) ? v.slice(CONTENT_MARKER.length) : v).replace(/\0/g, '\u2400')
  if (typeof v !== 'object') return String(v)
  return partsText(Array.isArray(v) ? v : [v])
}
