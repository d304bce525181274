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

/** Stored form: scalars unchanged, lists/objects marker-prefixed (upstream's `_encode_content`). */
export function encodeContent(v: unknown): string | number | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string' || typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
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
