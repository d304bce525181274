/**
 * Upstream's multimodal marker (hermes-spec §1.6 messages.content): a list/dict content is stored as
 * "\0json:" + json.dumps(value). Only that exact prefix marks structured content — a string that merely
 * looks like JSON stays a string. JSON text is written the way Python's json.dumps writes it (", " and ": "
 * separators, non-ASCII escaped) so the stored bytes and the tokens every FTS index sees match upstream's own.
 */

import { partsText } from '@shared/contract'
import { pyJson } from '@shared/contract/py-text'
import { parseJsonOr } from '@shared/contract/errors'

export const CONTENT_MARKER = '\u0000json:'

/**
 * Stored form: scalars unchanged, lists/objects marker-prefixed (upstream's `_encode_content`). A whole number
 * (or a boolean) is the text of the integer: Python binds an int, which the TEXT column keeps as '123', where the
 * double a JavaScript number binds as would read '123.0'. (A JSON `2.0`, a float to Python, reads '2' here.)
 */
export function encodeContent(v: unknown): string | number | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v
  if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : v
  if (typeof v === 'boolean') return v ? '1' : '0'
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
