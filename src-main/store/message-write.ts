/**
 * Transcript appends (hermes-spec §1.6): the insert and the `message_count`/`tool_call_count` bump share
 * one transaction, so the counter other processes watch (the agent cache's change detector) never lies.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { sessions } from './schema'
import { normalizeNulRows } from './fts-nul'
import type { NewMessage } from './types'
import { CompressionSessionClosedError, invalid, notFound } from './errors'
import { nowSeconds } from './util'
import { encodeContent } from './content-codec'
import { currentColumns } from './reconcile'
import { hasIdentity, IDENTITY_COLUMNS, MessageIdentity, suppliedColumns, uidsOfRow } from './message-identity'
import { pyJson } from '@shared/contract/py-text'

function validate(m: NewMessage, i: number): void {
  const at = (f: string) => `messages[${i}].${f}`
  if (!m || typeof m !== 'object') throw invalid('message must be an object', `messages[${i}]`)
  if (typeof m.role !== 'string' || m.role.trim() === '' || m.role.length > 64)
    throw invalid('role must be a non-empty string (max 64)', at('role'))
  if (m.content != null && typeof m.content !== 'string' && !Array.isArray(m.content))
    throw invalid('content must be a string, a list of parts or null', at('content'))
  if (m.timestamp != null && !Number.isFinite(m.timestamp))
    throw invalid('timestamp must be a finite number', at('timestamp'))
  if (m.toolCalls != null) {
    if (!Array.isArray(m.toolCalls)) throw invalid('toolCalls must be an array', at('toolCalls'))
    for (const c of m.toolCalls) {
      if (!c || typeof c.id !== 'string' || typeof c.name !== 'string' || typeof c.arguments !== 'string') {
        throw invalid('each tool call needs string id, name and arguments', at('toolCalls'))
      }
    }
  }
}

/**
 * Stored in upstream's OpenAI shape so upstream Hermes can resume our sessions, as its `json.dumps` writes it
 * (", " / ": " separators, non-ASCII as \uXXXX): the same bytes, and the same tokens every FTS index sees.
 */
export const toolCallsJson = (m: NewMessage) =>
  m.toolCalls?.length
    ? pyJson(
        m.toolCalls.map((c) => ({
          id: c.id,
          // a call a model made carries the keys upstream's agent writes on each: its id again, and the Responses
          // API item id derived from it (upstream reads either back when the session moves to that API)
          ...(m.modelCalls ? { call_id: c.id, response_item_id: responseItemId(c.id) } : {}),
          type: 'function',
          function: { name: c.name, arguments: c.arguments }
        }))
      )
    : null

/**
 * The `fc_` item id upstream's agent stores beside a call id: the id itself when it is one, `call_X` as `fc_X`, any
 * other id with the characters an item id may hold kept (48 at most), and a hash of it when none are left.
 */
function responseItemId(callId: string): string {
  const item = (id: string) =>
    id.startsWith('fc_') ? id : id.startsWith('call_') && id.length > 5 ? `fc_${id.slice(5)}` : null
  const id = callId.trim()
  const clean = id.replace(/[^A-Za-z0-9_-]/g, '')
  return (
    item(id) ??
    item(clean) ??
    (clean ? `fc_${clean.slice(0, 48)}` : `fc_${createHash('sha1').update(id).digest('hex').slice(0, 24)}`)
  )
}

/** `reasoning_details` as upstream's append_message writes it: json.dumps of a non-empty list, else NULL. */
const detailsJson = (m: NewMessage) => (m.reasoningDetails?.length ? pyJson(m.reasoningDetails) : null)

/** Columns only some schema versions have: written when the home has them, never added to it here. */
const OPTIONAL = ['reasoning_content', 'reasoning_details'] as const

/**
 * The row's identity columns, in IDENTITY_COLUMNS' order: what a copy carries kept, the rest minted or paired. The
 * message is given back the identity it is written with (NewMessage.identity), so the caller's copy of it carries it.
 */
function identityValues(identity: MessageIdentity, m: NewMessage): Array<string | null> {
  const row = identity.next(
    m.role,
    m.toolCalls?.map((c) => ({ id: c.id })) ?? null,
    m.toolCallId,
    suppliedColumns(m.identity)
  )
  m.identity = uidsOfRow(row)
  return IDENTITY_COLUMNS.map((c) => row[c])
}

/** Appends in the caller's transaction; returns the new row ids. */
export function appendRows(db: Database.Database, sessionId: string, msgs: NewMessage[]): number[] {
  msgs.forEach(validate)
  const session = stmt<ColumnsOf<typeof sessions, 'ended_at' | 'end_reason'>>(
    db,
    'SELECT ended_at, end_reason FROM sessions WHERE id = ?'
  ).get(sessionId)
  if (!session) throw notFound(sessionId)
  if (session.end_reason === 'compression') throw new CompressionSessionClosedError(sessionId)
  if (msgs.length === 0) return []
  // Appending to an ended session reopens it (upstream's get_session then shows it live again).
  if (session.ended_at != null || session.end_reason != null) {
    stmt(db, 'UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?').run(sessionId)
  }

  const calls = msgs.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)
  const lastTs = Math.max(...msgs.map((m) => m.timestamp ?? nowSeconds()))
  // Counter first, insert second: if any insert fails the whole transaction (counter included) rolls back.
  stmt(
    db,
    `UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?, tool_call_count = COALESCE(tool_call_count, 0) + ?,
      last_activity_at = MAX(COALESCE(last_activity_at, 0), ?) WHERE id = ?`
  ).run(msgs.length, calls, lastTs, sessionId)
  const wantsOptional = msgs.some((m) => m.reasoningContent != null || m.reasoningDetails?.length)
  const have = currentColumns(db, 'messages') // every message write: read again only after a schema change
  const optional = wantsOptional ? OPTIONAL.filter((c) => have.has(c)) : []
  // v31's message identity, bound as upstream's writer binds it (its trigger only covers a writer binding none)
  const identity = hasIdentity(have) ? MessageIdentity.continuing(db, sessionId) : null
  // A compression summary (standalone, or merged into the first kept message) carries upstream's flag where the home
  // has the column (upstream's compressor and clients tell summaries from real turns by it, not only by their text)
  const flagSummary = have.has('_compressed_summary') && msgs.some(isCompressionSummary)
  const extra = [...optional, ...(identity ? IDENTITY_COLUMNS : []), ...(flagSummary ? ['_compressed_summary'] : [])]
  const insert = stmt(
    db,
    `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp,
      token_count, finish_reason, reasoning, display_kind, display_metadata${extra.map((c) => `, ${c}`).join('')})
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${', ?'.repeat(extra.length)})`
  )
  const withNul: number[] = []
  const ids = msgs.map((m) => {
    const content = encodeContent(m.content)
    const calls = toolCallsJson(m)
    const id = Number(
      insert.run(
        sessionId,
        m.role,
        content,
        m.toolCallId ?? null,
        calls,
        m.toolName ?? null,
        m.timestamp ?? nowSeconds(),
        m.tokenCount ?? null,
        m.finishReason ?? null,
        m.reasoning ?? null,
        m.displayKind ?? null,
        m.displayMetadata ? JSON.stringify(m.displayMetadata) : null,
        ...optional.map((c) => (c === 'reasoning_content' ? (m.reasoningContent ?? null) : detailsJson(m))),
        ...(identity ? identityValues(identity, m) : []),
        ...(flagSummary ? [isCompressionSummary(m) ? 1 : 0] : [])
      ).lastInsertRowid
    )
    if ([content, calls, m.toolName].some((v) => typeof v === 'string' && v.includes('\u0000'))) withNul.push(id)
    return id
  })
  // A NUL-holding row (upstream's multimodal marker) is indexed as upstream's SQLite indexes it, or upstream's
  // integrity-check fails at once and its own delete of the row later corrupts the trigram index (fts-nul.ts).
  normalizeNulRows(db, withNul)
  return ids
}

/** The row a compression wrote its summary into: its own, or the kept message it was merged into. */
const isCompressionSummary = (m: NewMessage): boolean =>
  m.compressedSummary === true || m.displayKind === 'compression_summary' || m.displayMetadata?.summaryMerged === true
