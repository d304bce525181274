/**
 * A tool call's one-line summary (the transcript's call row, `caduceus sessions show`), read from its `arguments`
 * JSON. Upstream writes that JSON as Python's json.dumps does (every non-ASCII character as `\uXXXX`), and models
 * differ; shown raw, a call to write `rapport-été.md` read `{"path": "rapport-\u00e9t\u00e9.md", …}`. The summary
 * shows what the call was given — `key: value` pairs, strings as text — also when the page holds only the start of
 * long arguments (a transcript page cuts them), and falls back to the raw text (whitespace folded) when it is not a
 * JSON object.
 */
import { parseJsonOr } from './errors'
const MAX = 80

/** Keys whose value names an entry of a list of objects (todo's `content`, a batch's `path`). */
const ENTRY_KEYS = ['content', 'name', 'title', 'path', 'command', 'query', 'goal', 'text']

function valueText(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || typeof v !== 'object') return String(v)
  // a list of plain values (clarify's choices, a command's argv) as a list, not as JSON: `main, dev`
  if (Array.isArray(v) && v.length && v.every((x) => x === null || typeof x !== 'object'))
    return v.map(String).join(', ')
  // a list of objects (todo's todos, a batch of edits) by what names each entry, not as JSON
  if (Array.isArray(v) && v.length && v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) {
    const names = v.map((x) => {
      const o = x as Record<string, unknown>
      const key = ENTRY_KEYS.find((k) => typeof o[k] === 'string')
      return key ? (o[key] as string) : null
    })
    if (names.every((n) => n !== null)) return names.join(', ')
  }
  return JSON.stringify(v)
}

/** At most `max` characters (code points: a cut never splits an emoji's surrogate pair), with an ellipsis if cut. */
function cut(s: string, max: number): string {
  const chars = Array.from(s.length > max * 2 ? s.slice(0, max * 2) : s)
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : chars.join('')
}

/** A JSON string's body (between its quotes) as text; one cut short loses only its last, partial escape. */
function stringBody(body: string): string {
  const whole = body.replace(/\\(u[0-9a-fA-F]{0,3})?$/, '')
  const v = parseJsonOr(`"${whole}"`, whole)
  return typeof v === 'string' ? v : whole
}

/** Where the JSON value at `i` ends, and whether it is whole (the text may stop inside it). */
function valueEnd(raw: string, i: number): { end: number; whole: boolean } {
  let depth = 0
  for (let j = i; j < raw.length; j++) {
    const c = raw[j]
    if (c === '"') {
      j++
      while (j < raw.length && raw[j] !== '"') j += raw[j] === '\\' ? 2 : 1
      if (j >= raw.length) break
      if (depth === 0) return { end: j + 1, whole: true }
    } else if (c === '{' || c === '[') depth++
    else if ((c === '}' || c === ']') && depth > 0) depth--
    else if ((c === '}' || c === ',') && depth === 0) return { end: j, whole: true }
  }
  return { end: raw.length, whole: false }
}

/** The leading `key: value` pairs of a JSON object, enough for the summary, even when the text stops mid-value. */
function leadingPairs(raw: string): Array<[string, unknown]> | null {
  const open = raw.search(/\S/)
  if (open < 0 || raw[open] !== '{') return null
  const pairs: Array<[string, unknown]> = []
  const key = /\s*"((?:[^"\\]|\\.)*)"\s*:\s*/y
  let shown = 0
  let i = open + 1
  while (shown <= MAX) {
    key.lastIndex = i
    const m = key.exec(raw)
    if (!m) break
    const { end, whole } = valueEnd(raw, key.lastIndex)
    const text = raw.slice(key.lastIndex, end).trim()
    let value: unknown = text // a number or a nested value the page cut short, as it stands
    if (text.startsWith('"')) value = stringBody(text.slice(1, whole ? -1 : undefined))
    else if (whole) value = parseJsonOr(text, text) // not JSON: kept as text
    pairs.push([stringBody(m[1]!), value])
    shown += m[1]!.length + valueText(value).length
    if (!whole || raw[end] !== ',') break
    i = end + 1
  }
  return pairs.length ? pairs : null
}

export function argsPreview(raw: string): string {
  let text = raw
  const parsed = parseJsonOr(raw, undefined)
  if (parsed === undefined) {
    const pairs = leadingPairs(raw) // a page holds only the start of long arguments
    if (pairs) text = pairsText(pairs)
  } else if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) text = pairsText(Object.entries(parsed))
  return cut(text.replace(/\s+/g, ' ').trim(), MAX)
}

const pairsText = (pairs: Array<[string, unknown]>) => pairs.map(([k, v]) => `${k}: ${valueText(v)}`).join(' · ')

/**
 * Text with its JSON `\uXXXX` escapes read (an escaped backslash before a `u` is not one): what the start of cut
 * arguments, which cannot be parsed, shows in place of upstream's escaped non-ASCII.
 */
export function decodeUnicodeEscapes(text: string): string {
  return text.replace(
    /(?<!\\)((?:\\\\)*)\\u([0-9a-fA-F]{4})/g,
    (_, even: string, hex: string) => even + String.fromCharCode(parseInt(hex, 16))
  )
}

/**
 * Whether a call's arguments are a JSON object, as upstream's executor requires before it runs a tool: anything else
 * (a model's cut-off or malformed arguments) was answered with an error and never ran, so a summary of it must not
 * read as a call that ran.
 */
export function argsAreJsonObject(raw: string): boolean {
  const v = parseJsonOr(raw, null)
  return !!v && typeof v === 'object' && !Array.isArray(v)
}
