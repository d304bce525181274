/**
 * Transcript pages for a browser, cut in SQL (shared/contract/sessions.ts: MESSAGE_PREVIEW_CHARS, MESSAGE_PAGE_CHARS):
 * a long field comes out of SQLite as its first characters and its size (octet_length reads no content), so a 30 MB
 * tool output never reaches JSON or a WebSocket frame whole. "Show all" reads the field in chunks (`messageText`).
 */
import type Database from 'better-sqlite3'
import {
  MESSAGE_FIELD_MAX_BYTES,
  MESSAGE_PAGE_CHARS,
  MESSAGE_PREVIEW_CHARS,
  mergedLayoutOf,
  splitMergedSummary,
  type Message,
  type MessageText,
  type ToolCall
} from '@shared/contract'
import { stmt } from './stmt-cache'

const P = MESSAGE_PREVIEW_CHARS + 1 // one more than shown: whether a field was cut is then known without its length
const REASONING = 'COALESCE(reasoning, reasoning_content)'

// Page columns: long text as a preview plus its UTF-8 size (octet_length reads no content); a field over
// MESSAGE_FIELD_MAX_BYTES is not read at all; tool_calls whole only when short (else cut per call).
const previewOf = (col: string) =>
  `CASE WHEN octet_length(${col}) > ${MESSAGE_FIELD_MAX_BYTES} THEN '' ELSE substr(${col}, 1, ${P}) END`
// Upstream's multimodal rows ("\0json:" + a JSON list, often with an inline image) are read whole up to the field
// bound: a cut JSON list cannot be decoded into its text and attachment placeholders (content-codec.ts).
// SQLite's text functions stop at a NUL (substr would end the text there: a tool output holding one lost the
// rest), so any row with a NUL byte — the marker or not — is found as bytes and read whole, then cut here.
const contentCol = `CASE WHEN octet_length(content) <= ${MESSAGE_FIELD_MAX_BYTES}
  AND instr(CAST(content AS BLOB), X'00') > 0 THEN content ELSE ${previewOf('content')} END`

// A tool_calls value too long to come out whole: whether it is a list at all, decided here (JSON.parse's strict JSON,
// as json_valid with one argument reads it), so a long non-list still gets its "malformed" marker. Up to the field
// bound only: a longer value is not read at all, and shows as its size.
const CALLS_LIST = `CASE WHEN octet_length(tool_calls) > ${MESSAGE_PREVIEW_CHARS}
  AND octet_length(tool_calls) <= ${MESSAGE_FIELD_MAX_BYTES}
  THEN CASE WHEN json_valid(tool_calls) THEN json_type(tool_calls) = 'array' ELSE 0 END END`

export const PAGE_COLS = `id, session_id, role, tool_call_id, tool_name, timestamp, token_count, finish_reason, display_kind,
  COALESCE(active, 1) = 0 AS out_of_context,
  ${contentCol} AS content, octet_length(content) AS content_bytes,
  ${previewOf(REASONING)} AS reasoning, octet_length(${REASONING}) AS reasoning_bytes,
  CASE WHEN octet_length(tool_calls) > ${MESSAGE_PREVIEW_CHARS} THEN NULL ELSE tool_calls END AS tool_calls,
  octet_length(tool_calls) AS tool_calls_bytes,
  ${CALLS_LIST} AS tool_calls_list,
  CASE WHEN role = 'assistant' AND json_valid(display_metadata) THEN json_extract(display_metadata, '$.usage') END AS usage_json,
  CASE WHEN json_valid(display_metadata) THEN json_extract(display_metadata, '$.summaryMerged') END AS summary_merged`

// One call per row of an over-long tool_calls array, in the upstream ({function: {...}}) or flat shape.
const field = (f: string) => `COALESCE(json_extract(value, '$.function.${f}'), json_extract(value, '$.${f}'))`
const NAME = field('name')
const ARGS = field('arguments')
const callsFrom = (select: string) => `SELECT ${select} FROM messages, json_each(messages.tool_calls)
  WHERE messages.id = @id AND json_valid(messages.tool_calls) AND json_type(messages.tool_calls) = 'array'
    AND typeof(${NAME}) = 'text'
  ORDER BY CAST(json_each.key AS INTEGER)`
const CALLS_SQL = callsFrom(
  `json_extract(value, '$.id') AS id, ${NAME} AS name, substr(${ARGS}, 1, ${P}) AS args, octet_length(${ARGS}) AS bytes`
)
const ARGS_SQL = `${callsFrom(`${ARGS} AS text`)} LIMIT 1 OFFSET @index`

/** The first MESSAGE_PREVIEW_CHARS code points of `text`, and whether there was more. */
function preview(text: string): { text: string; cut: boolean } {
  let i = 0
  for (let n = 0; i < text.length; n++) {
    if (n === MESSAGE_PREVIEW_CHARS) return { text: text.slice(0, i), cut: true }
    const c = text.charCodeAt(i)
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1
  }
  return { text, cut: false }
}

/** A cut tool_calls column: each call with its arguments' preview and size. */
function cutToolCalls(db: Database.Database, messageId: number): ToolCall[] | null {
  const rows = stmt<{ id: unknown; name: string; args: string | null; bytes: number | null }>(db, CALLS_SQL).all({
    id: messageId
  })
  if (!rows.length) return null
  return rows.map((r) => {
    const p = preview(r.args ?? '{}')
    const call: ToolCall = { id: String(r.id ?? ''), name: r.name, arguments: p.text }
    if (p.cut) call.argumentsBytes = r.bytes ?? 0
    return call
  })
}

const SPLIT_AT = 'SELECT instr(content, ?) FROM messages WHERE id = ?'
const PARTS = 'SELECT substr(content, ?, ?) AS first, substr(content, ?, ?) AS second FROM messages WHERE id = ?'

/**
 * A compression summary merged into a kept message, longer than a preview (merged-summary.ts): cut at the preview, the
 * line that parts summary from kept words would be lost and the row read as a summary alone, hiding the message. Its
 * layout is read in SQL over the whole text (its opening is in the preview; the split is found where it is, nothing
 * more is transferred), and the page gets the same layout with each part cut to its preview: the kept words and the
 * summary's start, which the transcript folds with "show all" for the rest. Null: not a merged row.
 */
function cutMerged(db: Database.Database, id: number, head: string): string | null {
  const layout = mergedLayoutOf(head)
  if (!layout) return null
  const at = stmt<number>(db, SPLIT_AT).pluck().get(layout.split, id)
  if (typeof at !== 'number' || at <= layout.opening.length) return null
  const from = layout.opening.length + 1
  const parts = stmt<{ first: string | null; second: string | null }>(db, PARTS).get(
    from,
    Math.min(at - from, P),
    at + layout.split.length,
    P,
    id
  )
  if (!parts) return null
  const text = `${layout.opening}${preview(parts.first ?? '').text}${layout.split}${preview(parts.second ?? '').text}`
  return splitMergedSummary(text) ? text : null
}

/** Cuts a page row's long fields to their previews, noting the full sizes. */
export function cutRow(db: Database.Database, m: Message, r: Record<string, unknown>): Message {
  const huge = (bytes: unknown) => typeof bytes === 'number' && bytes > MESSAGE_FIELD_MAX_BYTES
  if (m.content !== null) {
    const p = preview(m.content)
    const merged = p.cut && (m.role === 'user' || m.role === 'assistant') ? cutMerged(db, m.id, m.content) : null
    m.content = merged ?? p.text
    if (merged) m.summaryMerged = true
    if (p.cut || huge(r.content_bytes)) m.contentBytes = Number(r.content_bytes)
  }
  if (m.reasoning !== null) {
    const p = preview(m.reasoning)
    m.reasoning = p.text
    if (p.cut || huge(r.reasoning_bytes)) m.reasoningBytes = Number(r.reasoning_bytes)
  }
  if (huge(r.tool_calls_bytes)) m.toolCallsBytes = Number(r.tool_calls_bytes)
  else if (r.tool_calls === null && typeof r.tool_calls_bytes === 'number') m.toolCalls = cutToolCalls(db, m.id)
  return m
}

const textSize = (m: Message) =>
  (m.content?.length ?? 0) +
  (m.reasoning?.length ?? 0) +
  (m.toolCalls ?? []).reduce((n, c) => n + c.arguments.length + c.name.length, 0) +
  200

/**
 * Keeps a page within MESSAGE_PAGE_CHARS, growing out from where the reader is: the newest end for a latest/before
 * page, the oldest for an after page, the anchor for an around page. Always keeps at least one message.
 */
export function withinBudget(items: Message[], from: 'start' | 'end' | number): Message[] {
  if (items.reduce((n, m) => n + textSize(m), 0) <= MESSAGE_PAGE_CHARS) return items
  const at = from === 'start' ? 0 : from === 'end' ? items.length - 1 : Math.max(0, Math.min(items.length - 1, from))
  let lo = at
  let hi = at
  let total = textSize(items[at]!)
  for (let grew = true; grew;) {
    grew = false
    for (const i of [hi + 1, lo - 1]) {
      if (i < 0 || i >= items.length || total + textSize(items[i]!) > MESSAGE_PAGE_CHARS) continue
      total += textSize(items[i]!)
      if (i > hi) hi = i
      else lo = i
      grew = true
    }
  }
  return items.slice(lo, hi + 1)
}

export type TextField = {
  sessionId: string
  messageId: number
  field: 'content' | 'reasoning' | 'arguments'
  callIndex: number
}

/**
 * Reading a long value costs SQLite a pass over all of it, so "show all" keeps the one field being read for a
 * minute, with where its astral characters are: each chunk is then a binary search and a slice, the whole read linear.
 */
export class FieldReader {
  private held: { key: string; text: string; total: number; pairs: number[] } | null = null
  private timer: ReturnType<typeof setTimeout> | null = null

  read(db: Database.Database, q: TextField, offset: number, limit: number): MessageText | null {
    const key = `${q.sessionId}\n${q.messageId}\n${q.field}\n${q.callIndex}`
    if (this.held?.key !== key) {
      const text = loadField(db, q)
      if (text === null) return null
      const pairs = surrogatePairs(text)
      this.held = { key, text, total: text.length - pairs.length, pairs }
    }
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => (this.held = null), 60_000)
    this.timer.unref?.()
    const h = this.held
    const at = (cp: number) => Math.min(cp, h.total) + pairsBefore(h.pairs, cp)
    return { text: h.text.slice(at(offset), at(offset + limit)), offset, total: h.total }
  }
}

/** Code-point positions of the astral characters (each two UTF-16 units) in `text`, ascending. */
function surrogatePairs(text: string): number[] {
  const out: number[] = []
  if (!/[\uD800-\uDBFF]/.test(text)) return out
  for (const m of text.matchAll(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)) out.push(m.index - out.length)
  return out
}

/** How many astral characters start before code point `cp`. */
function pairsBefore(pairs: number[], cp: number): number {
  let lo = 0
  let hi = pairs.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (pairs[mid]! < cp) lo = mid + 1
    else hi = mid
  }
  return lo
}

function loadField(db: Database.Database, q: TextField): string | null {
  if (q.field === 'arguments') {
    if (!stmt(db, 'SELECT 1 FROM messages WHERE id = ? AND session_id = ?').get(q.messageId, q.sessionId)) return null
    const r = stmt<{ text: unknown }>(db, ARGS_SQL).get({ id: q.messageId, index: q.callIndex })
    return r ? (typeof r.text === 'string' ? r.text : JSON.stringify(r.text ?? {})) : null
  }
  const col = q.field === 'content' ? 'content' : REASONING
  const r = stmt<{ text: unknown }>(db, `SELECT ${col} AS text FROM messages WHERE id = ? AND session_id = ?`).get(
    q.messageId,
    q.sessionId
  )
  return r ? (typeof r.text === 'string' ? r.text : '') : null
}
