/**
 * Message content of API requests (hermes-channels §1), read as upstream's API server reads it: text parts
 * (`text`, `input_text`, `output_text`) and image parts (`image_url` with `{url, detail?}`, or the Responses
 * API's `input_image` with a top-level `image_url` string) become upstream's canonical parts
 * (`{type: "text"}` / `{type: "image_url", image_url: {url, detail?}}`); text-only content collapses to a
 * string. Files and unknown part types are refused with a 400 naming the part, never dropped silently.
 */
import { partsText } from '@shared/contract'
import type { ContentParts } from './gateway-face'
import { HttpError } from './http'
import { pyLen, pyStr, pyStrip, pyTruthy } from '@shared/contract/py-text'

const TEXT = new Set(['text', 'input_text', 'output_text'])
const IMAGE = new Set(['image_url', 'input_image'])
const FILE = new Set(['file', 'input_file'])
/** Upstream's caps (MAX_NORMALIZED_TEXT_LENGTH, in code points; MAX_CONTENT_LIST_SIZE): what it keeps, keyed and sent. */
const MAX_TEXT = 65_536
const MAX_PARTS = 1_000
const capped = (s: string) => (s.length > MAX_TEXT ? Array.from(s).slice(0, MAX_TEXT).join('') : s)

export interface Content {
  /** The text the conversation is keyed and compared on, as the store shows the message (images as placeholders). */
  text: string
  /** The parts with images, as they go to the provider (state.db keeps their text, each image as "[screenshot]"); absent for text-only content. */
  parts?: ContentParts
}

/** A part refused: its code and `param` (the field) as upstream answers them; the message is Caduceus's own. */
const refuse = (where: string, code: string, message: string) =>
  new HttpError(400, `${where}: ${message}`, 'invalid_request_error', code, {}, { param: where })

/** Upstream's `_normalize_multimodal_content`, with its error codes. */
export function readContent(content: unknown, where: string): Content {
  if (content === null || content === undefined) return { text: '' }
  if (typeof content === 'string') return { text: capped(content) }
  if (!Array.isArray(content)) return { text: '' }
  const parts: ContentParts = []
  for (const p of content.slice(0, MAX_PARTS)) {
    if (typeof p === 'string') {
      if (p) parts.push({ type: 'text', text: capped(p) })
      continue
    }
    if (!p || typeof p !== 'object') continue
    const part = p as Record<string, unknown>
    const type = partType(part)
    if (TEXT.has(type)) {
      // a text that is no string is written as Python writes it (str(7) → '7', str(True) → 'True')
      if (part.text !== null && part.text !== undefined && pyStr(part.text))
        parts.push({ type: 'text', text: capped(pyStr(part.text)) })
    } else if (IMAGE.has(type)) parts.push(imagePart(part, where))
    else if (FILE.has(type))
      throw refuse(
        where,
        'unsupported_content_type',
        'uploaded files and documents are not supported; send images inline'
      )
    else
      throw refuse(
        where,
        'unsupported_content_type',
        `unsupported content part type ${JSON.stringify(part.type ?? null)}; only text and image parts are supported`
      )
  }
  // Text-only collapses to one string, parts joined by newlines (as upstream, so session ids derive alike).
  if (parts.every((p) => p.type === 'text')) return { text: parts.map((p) => (p as { text: string }).text).join('\n') }
  return { text: partsText(parts), parts }
}

function imagePart(part: Record<string, unknown>, where: string): ContentParts[number] {
  const ref = part.image_url
  const url = ref && typeof ref === 'object' ? (ref as Record<string, unknown>).url : ref
  const detail = ref && typeof ref === 'object' ? ((ref as Record<string, unknown>).detail ?? part.detail) : part.detail
  if (typeof url !== 'string' || !pyStrip(url))
    throw refuse(where, 'invalid_image_url', 'image parts must include a non-empty image URL')
  const u = pyStrip(url)
  const lower = u.toLowerCase()
  if (lower.startsWith('data:')) {
    if (!lower.startsWith('data:image/') || !u.includes(','))
      throw refuse(where, 'unsupported_content_type', 'only image data: URLs are supported')
  } else if (!lower.startsWith('http://') && !lower.startsWith('https://'))
    throw refuse(where, 'invalid_image_url', 'image inputs must use http(s) URLs or data:image/… URLs')
  if (detail !== undefined && detail !== null && (typeof detail !== 'string' || !pyStrip(detail)))
    throw refuse(where, 'invalid_content_part', 'image detail must be a non-empty string when given')
  return {
    type: 'image_url',
    image_url: { url: u, ...(typeof detail === 'string' ? { detail: pyStrip(detail) } : {}) }
  }
}

/**
 * Text-only content as upstream reads a system message (`_normalize_chat_content`): text parts joined by newlines,
 * nested lists read the same way (10 levels), images and other parts skipped, anything else as Python's `str()`,
 * each piece and the whole capped as upstream caps them. The conversation's id hashes this text.
 */
export function readText(content: unknown, depth = 0): string {
  if (depth > 10 || content === null || content === undefined) return ''
  if (typeof content === 'string') return capped(content)
  if (!Array.isArray(content)) return capped(pyStr(content))
  const parts: string[] = []
  let total = 0
  for (const item of content.slice(0, MAX_PARTS)) {
    let piece = ''
    if (typeof item === 'string') piece = capped(item)
    else if (Array.isArray(item)) piece = readText(item, depth + 1)
    else if (item && typeof item === 'object') {
      const part = item as Record<string, unknown>
      const type = partType(part)
      if (TEXT.has(type) && pyTruthy(part.text)) piece = capped(pyStr(part.text))
    }
    if (piece) {
      parts.push(piece)
      total += pyLen(piece)
    }
    if (total >= MAX_TEXT) break
  }
  return capped(parts.join('\n'))
}

/** A part's type as upstream reads it: `str(part.get("type") or "").strip().lower()` (a list type is its repr). */
const partType = (part: Record<string, unknown>) => (pyTruthy(part.type) ? pyStrip(pyStr(part.type)).toLowerCase() : '')
