/**
 * Publishing a compression continuation (hermes-spec §1.6/§1.7), the way upstream's publish_compression_child leaves
 * the pair: in ONE write transaction the child row is written (its parent's routing, workspace, display and archive
 * columns, the lineage title "X #2", the prompt the agent goes on with), then its handoff rows, then the parent's rows
 * another writer added while the summary was being written, and the parent is ended with 'compression'. A reader sees
 * the live parent or the ended parent with its complete child, never a half-written child.
 *
 * Handoff rows that are copies of parent rows carry their originals' timestamps (a copy stamped "now" would show twice,
 * out of place, in a merged display of the chain); the parent's late rows are cloned column for column (their
 * timestamps and v31 uids kept) and stay in the parent as well.
 */
import type Database from 'better-sqlite3'
import { parseJsonOr } from '@shared/contract/errors'
import type { CreateSessionOptions, NewMessage } from './types'
import type { compressionLocks, messages, sessions } from './schema'
import { stmt, type AllColumns, type ColumnsOf } from './stmt-cache'
import { appendRows, toolCallsJson } from './message-write'
import { encodeContent } from './content-codec'
import { existingColumns } from './reconcile'
import { endSessionRow, upsertSession } from './session-write'
import { lineageTitleOf, nextTitleInLineage, writeTitle } from './titles'
import { normalizeNulRows } from './fts-nul'
import { invalid, notFound } from './errors'

export interface CompressionHandoff {
  parentId: string
  childId: string
  source: string
  /** The child's own columns (model, prompt, routing the caller resolved); the rest comes from the parent. */
  session: CreateSessionOptions
  /** Summary first, then the kept messages, in order. */
  messages: NewMessage[]
  /**
   * When the summary was merged into the first kept message: that message as it was. The merged row is still that
   * message (its identity, its place), so it takes that message's time as an unmerged copy would.
   */
  mergedFrom?: NewMessage
  /**
   * The parent's highest row id the handoff stands for (read before the summary call): its rows above it arrived
   * meanwhile and are cloned into the child after the handoff. null: nothing is cloned.
   */
  watermark: number | null
}

/** Parent columns the continuation takes as they are, where the home has them (upstream's child insert). */
const FROM_PARENT = [
  'display_name',
  'origin_json',
  'git_branch',
  'git_repo_root',
  'tool_names',
  'pinned',
  'archived',
  'auto_archived'
] as const

/**
 * End stamps left by cleanup (a closed socket, a shutdown, an eviction: hermes-spec §1.7's automatic set) on a session
 * whose compression is running: stale by construction, so publication clears them, as upstream's does.
 */
const AUTOMATIC_END_REASONS = new Set([
  'agent_close',
  'ws_orphan_reap',
  'superseded_by_resume',
  'startup_orphan_reap',
  'tui_shutdown',
  'ws_disconnect',
  'idle_timeout',
  'lru_evict'
])

/** A message's display identity without its time: what upstream pairs a carried copy with its original by. */
type Identity = ColumnsOf<typeof messages, 'role' | 'content' | 'tool_call_id' | 'tool_calls' | 'tool_name'>
const identityKey = (r: Identity) =>
  JSON.stringify([r.role, r.content ?? null, r.tool_call_id ?? null, r.tool_calls ?? null, r.tool_name ?? null])

const liveOnly = (db: Database.Database) => (existingColumns(db, 'messages').has('active') ? ' AND active = 1' : '')

/** The highest id among a session's live rows (0 for none): what a compression starting now stands for. */
export function messageWatermark(db: Database.Database, sessionId: string): number {
  return (
    stmt<number>(db, `SELECT COALESCE(MAX(id), 0) FROM messages WHERE session_id = ?${liveOnly(db)}`)
      .pluck()
      .get(sessionId) ?? 0
  )
}

/** What a parent row lends the copy of it: its time, and what its reply cost (the transcript's per-turn strip). */
interface Lent {
  timestamp: number
  tokenCount: number | null
  usage: unknown
}

/**
 * A handoff message given no timestamp that is a copy of a parent row takes that row's timestamp: each parent row
 * lends its time once, to the first copy that matches it, in order (two identical turns stay two). A copied reply
 * takes its original's token count and saved usage too: a chain read as one conversation shows the copy in its
 * original's place (chain-carried.ts), so the turn's cost goes with it.
 */
function carryParentTimestamps(
  db: Database.Database,
  parentId: string,
  msgs: NewMessage[],
  mergedFrom: NewMessage | undefined
): void {
  const donors = new Map<string, Lent[]>()
  const usage = existingColumns(db, 'messages').has('display_metadata')
    ? `CASE WHEN role = 'assistant' AND json_valid(display_metadata) THEN json_extract(display_metadata, '$.usage') END`
    : 'NULL'
  const rows = stmt<Identity & ColumnsOf<typeof messages, 'timestamp' | 'token_count'> & { usage: string | null }>(
    db,
    `SELECT role, content, tool_call_id, tool_calls, tool_name, timestamp, token_count, ${usage} AS usage FROM messages
      WHERE session_id = ?${liveOnly(db)} ORDER BY id`
  ).all(parentId)
  for (const r of rows) {
    const k = identityKey(r)
    const lent = {
      timestamp: r.timestamp,
      tokenCount: r.token_count ?? null,
      usage: r.usage ? parseJsonOr(r.usage, null) : null
    }
    const list = donors.get(k)
    if (list) list.push(lent)
    else donors.set(k, [lent])
  }
  msgs.forEach((m, i) => {
    if (m.timestamp != null) return
    const like = i === 0 && mergedFrom ? mergedFrom : m
    const content = encodeContent(like.content)
    const key = identityKey({
      role: like.role,
      content: content == null ? null : String(content),
      tool_call_id: like.toolCallId ?? null,
      tool_calls: toolCallsJson(like),
      tool_name: like.toolName ?? null
    })
    const lent = donors.get(key)?.shift()
    if (!lent) return
    m.timestamp = lent.timestamp
    if (m.tokenCount == null && lent.tokenCount != null) m.tokenCount = lent.tokenCount
    if (m.role === 'assistant' && lent.usage != null && m.displayMetadata?.usage === undefined)
      m.displayMetadata = { ...m.displayMetadata, usage: lent.usage }
  })
}

/** Tool calls a row's `tool_calls` text holds (text that is not a JSON list holds none, as upstream counts it). */
const callsIn = (json: string | null): number => {
  const v = json ? parseJsonOr(json, null) : null
  return Array.isArray(v) ? v.length : 0
}

/** Clones the parent's rows above the watermark into the child, in order; returns the clones' row ids. */
function cloneLateRows(db: Database.Database, h: CompressionHandoff): number[] {
  if (h.watermark == null) return []
  const live = liveOnly(db)
  const late = stmt<ColumnsOf<typeof messages, 'id' | 'tool_calls' | 'timestamp'>>(
    db,
    `SELECT id, tool_calls, timestamp FROM messages WHERE session_id = ? AND id > ?${live} ORDER BY id`
  ).all(h.parentId, h.watermark)
  if (late.length === 0) return []
  const have = existingColumns(db, 'messages')
  const skip = new Set(['id', 'session_id', 'active', 'compacted', 'display_order'])
  const cols = [...have].filter((c) => !skip.has(c)).join(', ')
  const flags = ['active', 'compacted'].filter((c) => have.has(c))
  const floor = stmt<number>(db, 'SELECT COALESCE(MAX(id), 0) FROM messages').pluck().get() ?? 0
  stmt(
    db,
    `INSERT INTO messages (${cols}, session_id${flags.map((c) => `, ${c}`).join('')})
      SELECT ${cols}, ?${flags.map((c) => (c === 'active' ? ', 1' : ', 0')).join('')} FROM messages
      WHERE session_id = ? AND id > ?${live} ORDER BY id`
  ).run(h.childId, h.parentId, h.watermark)
  const ids = stmt<number>(db, 'SELECT id FROM messages WHERE session_id = ? AND id > ? ORDER BY id')
    .pluck()
    .all(h.childId, floor)
  const calls = late.reduce((n, r) => n + callsIn(r.tool_calls), 0)
  const lastTs = Math.max(...late.map((r) => r.timestamp))
  stmt(
    db,
    `UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?, tool_call_count = COALESCE(tool_call_count, 0) + ?,
      last_activity_at = MAX(COALESCE(last_activity_at, 0), ?) WHERE id = ?`
  ).run(ids.length, calls, lastTs, h.childId)
  // A row holding a NUL is indexed as upstream's SQLite indexes it (fts-nul.ts), as an append does.
  const withNul = stmt<number>(
    db,
    `SELECT id FROM messages WHERE session_id = ? AND id > ?
      AND (instr(content, char(0)) > 0 OR instr(tool_calls, char(0)) > 0 OR instr(tool_name, char(0)) > 0)`
  )
    .pluck()
    .all(h.childId, floor)
  normalizeNulRows(db, withNul)
  return ids
}

/**
 * Runs in the caller's write transaction; throws (rolling everything back) when the parent is missing or already
 * ended. Returns the id of the last handoff row: the cloned late rows, if any, follow it.
 */
export function publishCompressionChild(
  db: Database.Database,
  owner: string | null,
  h: CompressionHandoff
): { lastHandoffId: number; cloned: number } {
  const parent = stmt<AllColumns<typeof sessions>>(db, 'SELECT * FROM sessions WHERE id = ?').get(h.parentId)
  if (!parent) throw notFound(h.parentId)
  if (parent.ended_at != null) {
    // A deliberate end (a close, a reset, another compression) means the conversation went on elsewhere: nothing
    // is published.
    if (!AUTOMATIC_END_REASONS.has(parent.end_reason ?? ''))
      throw invalid(`session ${h.parentId} has already ended (${parent.end_reason ?? 'no reason'})`, 'parentId')
    stmt(db, 'UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?').run(h.parentId)
  }
  if (h.messages.length === 0) throw invalid('a compression handoff needs at least one message', 'messages')
  if (stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(h.childId)) throw invalid('child exists', 'childId')

  upsertSession(db, owner, h.childId, h.source, { ...h.session, parentSessionId: h.parentId, title: null })
  const have = existingColumns(db, 'sessions')
  const copied = FROM_PARENT.filter((c) => have.has(c))
  if (copied.length)
    stmt(
      db,
      `UPDATE sessions SET ${copied.map((c) => `${c} = p.${c}`).join(', ')}
        FROM (SELECT ${copied.join(', ')} FROM sessions WHERE id = ?) AS p WHERE sessions.id = ?`
    ).run(h.parentId, h.childId)
  const title = lineageTitleOf(db, h.parentId)
  if (title) writeTitle(db, h.childId, nextTitleInLineage(db, title.title), title.source)

  carryParentTimestamps(db, h.parentId, h.messages, h.mergedFrom)
  const ids = appendRows(db, h.childId, h.messages)
  const cloned = cloneLateRows(db, h)
  if (!endSessionRow(db, h.parentId, 'compression')) throw invalid(`session ${h.parentId} changed meanwhile`)
  return { lastHandoffId: ids.at(-1)!, cloned: cloned.length }
}

const hasLockTable = (db: Database.Database) =>
  stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'compression_locks'").get() !== undefined

/**
 * Upstream's compression lease on a session (its `compression_locks` table, hermes-spec §1.3): one compressor at a
 * time, so two programs compressing the same conversation cannot both end it and fork the lineage. An expired lease
 * is taken over. A home without the table has no lease to take: true, as upstream goes on without one.
 */
export function acquireCompressionLock(db: Database.Database, sessionId: string, holder: string, ttl: number): boolean {
  if (!hasLockTable(db)) return true
  const now = Date.now() / 1000
  stmt(db, 'DELETE FROM compression_locks WHERE session_id = ? AND expires_at < ?').run(sessionId, now)
  stmt(
    db,
    'INSERT OR IGNORE INTO compression_locks (session_id, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)'
  ).run(sessionId, holder, now, now + ttl)
  return (
    stmt<(typeof compressionLocks.$inferSelect)['holder']>(
      db,
      'SELECT holder FROM compression_locks WHERE session_id = ?'
    )
      .pluck()
      .get(sessionId) === holder
  )
}

/** Extends the lease while `holder` has it; false when it is gone (expired and taken, or released). */
export function refreshCompressionLock(db: Database.Database, sessionId: string, holder: string, ttl: number): boolean {
  if (!hasLockTable(db)) return true
  return (
    stmt(db, 'UPDATE compression_locks SET expires_at = ? WHERE session_id = ? AND holder = ?').run(
      Date.now() / 1000 + ttl,
      sessionId,
      holder
    ).changes > 0
  )
}

export function releaseCompressionLock(db: Database.Database, sessionId: string, holder: string): void {
  if (hasLockTable(db))
    stmt(db, 'DELETE FROM compression_locks WHERE session_id = ? AND holder = ?').run(sessionId, holder)
}
