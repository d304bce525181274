/**
 * Lineage walks (hermes-spec §1.7). A continuation is a child of a `compression`-ended parent with no
 * fork marker (`_branched_from`, `_delegate_from`, `_reset_from`) and source ≠ `tool`. Every walk is
 * capped and cycle-safe: a corrupt parent pointer loop must not hang the host.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import type { SessionKind } from '@shared/contract'
import { jsonObject } from './util'
import type { sessions } from './schema'
import { continuationOrderSql, trimmedSql } from './sql'
import { currentColumns } from './reconcile'

const MAX_STEPS = 1000
export const DELEGATE_SOURCES = new Set(['delegate', 'subagent'])

/** The columns a lineage walk reads: the SQL list and the row type come from this one list and the schema. */
const LINEAGE_COLUMNS = [
  'id',
  'source',
  'parent_session_id',
  'end_reason',
  'ended_at',
  'model_config',
  'started_at',
  'last_activity_at'
] as const
export type LineageRow = Pick<typeof sessions.$inferSelect, (typeof LINEAGE_COLUMNS)[number]>

const COLS = LINEAGE_COLUMNS.join(', ')

export function markers(modelConfig: string | null) {
  const mc = jsonObject(modelConfig)
  const has = (k: string) => mc !== null && mc[k] != null
  return { branched: has('_branched_from'), delegate: has('_delegate_from'), reset: has('_reset_from') }
}

export function lineageRow(db: Database.Database, id: string): LineageRow | undefined {
  return stmt<LineageRow>(db, `SELECT ${COLS} FROM sessions WHERE id = ?`).get(id)
}

/**
 * What a session is to its parent, by upstream's rules (sql.ts says the same in SQL): a marker decides first; an
 * unmarked child of a 'compression'-ended parent is its continuation whatever its source but `tool` (upstream's
 * chain edge); then a delegate-sourced child is a subagent run, and a child started after its parent ended
 * 'branched' is a legacy /branch. `parent` may be a summary's stand-in carrying only `end_reason`, its times
 * already compared in SQL (read-summary.ts PARENT_END).
 */
export function kindOf(row: LineageRow, parent: LineageRow | undefined): SessionKind {
  if (!row.parent_session_id) return 'root'
  const m = markers(row.model_config)
  if (m.delegate) return 'delegate'
  if (m.branched) return 'branch'
  if (m.reset) return 'reset'
  if (!parent) return 'root' // dangling parent pointer: stands alone
  if (parent.end_reason === 'compression' && row.source !== 'tool') return 'continuation'
  if (DELEGATE_SOURCES.has(row.source)) return 'delegate'
  if (parent.end_reason === 'branched' && (parent.ended_at === undefined || startedAfter(row, parent))) return 'branch'
  return 'child'
}

const startedAfter = (row: LineageRow, parent: LineageRow) =>
  parent.ended_at != null && row.started_at != null && row.started_at >= parent.ended_at

function isContinuationCandidate(row: LineageRow): boolean {
  const m = markers(row.model_config)
  return !m.branched && !m.delegate && !m.reset && row.source !== 'tool'
}

/**
 * The session's ancestors along compression only, root first, ending with the session itself. `chosen`: only
 * through the child each parent's chain goes on through (forwardFrom's pick; sql.ts chainRootSql, which the list's
 * filter uses), so a sibling the chain passed over (a compression race's leftover) starts a chain of its own.
 */
export function pathFromRoot(db: Database.Database, id: string, opts: { chosen?: boolean } = {}): LineageRow[] {
  const start = lineageRow(db, id)
  if (!start) return []
  const path = [start]
  const seen = new Set([start.id])
  let cur = start
  for (let i = 0; i < MAX_STEPS && cur.parent_session_id; i++) {
    const parent = lineageRow(db, cur.parent_session_id)
    if (!parent || seen.has(parent.id) || kindOf(cur, parent) !== 'continuation') break
    if (opts.chosen && chosenChild(db, parent.id)?.id !== cur.id) break
    path.unshift(parent)
    seen.add(parent.id)
    cur = parent
  }
  return path
}

/** The child a compression-ended parent's chain goes on through (continuationOrderSql's first candidate). */
function chosenChild(db: Database.Database, parentId: string): LineageRow | undefined {
  return stmt<LineageRow>(
    db,
    `SELECT ${COLS} FROM sessions k INDEXED BY idx_sessions_parent WHERE parent_session_id = ?
       ORDER BY ${continuationOrderSql('k')}`
  )
    .all(parentId)
    .find(isContinuationCandidate)
}

/** The part a compression-ended session's chain goes on in (the one the chain view reads it `carriedBy`), if any. */
export function nextPart(db: Database.Database, row: LineageRow): string | undefined {
  if (row.end_reason !== 'compression') return undefined
  const next = chosenChild(db, row.id)?.id
  return next === row.id ? undefined : next
}

/** Forward walk from `row` through compression continuations (the row itself excluded). */
export function forwardFrom(db: Database.Database, row: LineageRow, seen = new Set<string>([row.id])): LineageRow[] {
  const out: LineageRow[] = []
  const children = stmt<LineageRow>(
    db,
    `SELECT ${COLS} FROM sessions k INDEXED BY idx_sessions_parent WHERE parent_session_id = ?
     ORDER BY ${continuationOrderSql('k')}`
  )
  let cur = row
  for (let i = 0; i < MAX_STEPS && cur.end_reason === 'compression'; i++) {
    const next = children.all(cur.id).find((c) => !seen.has(c.id) && isContinuationCandidate(c))
    if (!next) break
    out.push(next)
    seen.add(next.id)
    cur = next
  }
  return out
}

/** Compression chain containing `id`, root first (empty for unknown ids). */
export function compressionChain(db: Database.Database, id: string): LineageRow[] {
  const up = pathFromRoot(db, id)
  if (up.length === 0) return []
  return [...up, ...forwardFrom(db, up[up.length - 1], new Set(up.map((r) => r.id)))]
}

/** Live tip to resume: follows compression rotation forward; unknown ids resolve to themselves. */
export function resumeTip(db: Database.Database, id: string): string {
  const row = lineageRow(db, id)
  if (!row) return id
  const fwd = forwardFrom(db, row)
  return fwd.length ? fwd[fwd.length - 1].id : id
}

/**
 * For search: each of `ids` that compression continued → the tip of its chain, so one conversation's segments
 * group as one result (as the list projects a chain to its tip). Ids that are their own tip are absent.
 */
export function chainTips(db: Database.Database, ids: Iterable<string>): Map<string, string> {
  const out = new Map<string, string>()
  const list = [...new Set(ids)]
  if (!list.length) return out
  const continued = stmt<[LineageRow['id']]>(
    db,
    `SELECT id FROM sessions WHERE id IN (SELECT value FROM json_each(?)) AND end_reason = 'compression'`
  )
    .raw()
    .all(JSON.stringify(list))
  for (const [id] of continued) {
    const tip = resumeTip(db, id)
    if (tip !== id) out.set(id, tip)
  }
  return out
}

/**
 * Root of the compression lineage, for follow-up authority. "None on doubt": branches, delegate children,
 * tool sessions, blank and unknown ids, and any error give null.
 */
export function lineageRoot(db: Database.Database, id: string | null | undefined): string | null {
  try {
    if (typeof id !== 'string' || id.trim() === '') return null
    const row = lineageRow(db, id)
    if (!row || row.source === 'tool') return null
    const m = markers(row.model_config)
    if (m.branched || m.delegate || (DELEGATE_SOURCES.has(row.source) && row.parent_session_id)) return null
    const path = pathFromRoot(db, id)
    return path.length ? path[0].id : null
  } catch {
    // "none on doubt" (above): a read that fails grants no follow-up authority
    return null
  }
}

/** Sessions branched from `id` on one channel (an API conversation's edited histories), newest first. */
export function branchesOf(db: Database.Database, id: string, source: string): string[] {
  const rows = stmt<Pick<LineageRow, 'id'>>(
    db,
    `SELECT id FROM sessions INDEXED BY idx_sessions_parent WHERE parent_session_id = ? AND source = ?
       AND model_config LIKE '%"_branched_from"%' ORDER BY started_at DESC, id DESC LIMIT 64`
  ).all(id, source)
  return rows.map((r) => r.id)
}

/**
 * Sessions on one channel whose first user message is `text`, or `text` with retrieved context joined to it by a line
 * break before or after it (Open WebUI's retrieval template), newest first and at most `limit`: where the API server
 * looks for a conversation that its derived id (system prompt + first message) no longer names. Both sides are
 * compared trimmed, as the API server compares turns.
 */
export function sessionsOpeningWith(db: Database.Database, text: string, source: string, limit: number): string[] {
  if (text === '') return []
  const rows = stmt<Pick<LineageRow, 'id'>>(
    db,
    // (the first user message is found once per session and read by its rowid: a scalar subquery the WHERE named
    // three times would run three times)
    `SELECT id FROM (
       SELECT s.id AS id, s.started_at AS started_at, ${trimmedSql('m.content')} AS opening
       FROM sessions s JOIN messages m
         ON m.id = (SELECT f.id FROM messages f WHERE f.session_id = s.id AND f.role = 'user' ORDER BY f.id LIMIT 1)
       WHERE s.source = @source)
     WHERE opening = @text
        OR substr(opening, 1, length(@text) + 1) = @text || char(10)
        OR substr(opening, -length(@text) - 1) = char(10) || @text
     ORDER BY started_at DESC, id DESC LIMIT @limit`
  ).all({ source, text, limit })
  return rows.map((r) => r.id)
}

/**
 * Sessions on one channel with an assistant message among the home's latest `RECENT_ROWS` messages (not only a
 * session's latest) that ends with `tail` (give or take trailing whitespace; the caller compares its candidates turn by
 * turn) or is the end of it; newest first and at most `limit`:
 * where the API server looks for the conversation of a client that dropped its oldest messages and then regenerated or
 * edited a turn before the latest. Asked only when nothing cheaper found the conversation, and bounded to a range of
 * the messages' rowids (a client's window is the conversation's latest turns), each compared by its last bytes.
 */
export function sessionsWithReply(db: Database.Database, tail: string, source: string, limit: number): string[] {
  if (tail === '') return []
  const rows = stmt<Pick<LineageRow, 'id'>>(
    db,
    `SELECT s.id AS id FROM sessions s
     WHERE s.source = @source AND s.id IN (
       SELECT m.session_id FROM messages m
       WHERE m.id > (SELECT COALESCE(MAX(id), 0) FROM messages) - @recent AND m.role = 'assistant'${notSummary(db, 'm')}
         AND (instr(substr(CAST(m.content AS BLOB), -@near), CAST(@tail AS BLOB)) > 0
           OR (length(CAST(m.content AS BLOB)) <= @near AND instr(@tail, ${trimmedSql('m.content')}) > 0
             AND ${trimmedSql('m.content')} != '')))
     ORDER BY s.started_at DESC, s.id DESC LIMIT @limit`
  ).all({ source, tail, limit, recent: RECENT_ROWS, near: Buffer.byteLength(tail) + TRAILING_SPACE })
  return rows.map((r) => r.id)
}

/**
 * Leaves out a row v31's `_compressed_summary` flags (merged-summary.ts rowSummary: the authority when set), where the
 * home has the column: a summary upstream wrote as an assistant message is the compressor's text, not a reply the
 * client was sent. (Summaries known by their opening alone are left out where the turns are compared.)
 */
const notSummary = (db: Database.Database, m: string) =>
  currentColumns(db, 'messages').has('_compressed_summary') ? ` AND ${m}._compressed_summary = 0` : ''

/** How many of the home's latest messages `sessionsWithReply` reads. */
const RECENT_ROWS = 20_000
/** Whitespace a stored reply may end with after the text a client shows (bytes; candidates are compared after). */
const TRAILING_SPACE = 16

/**
 * Sessions on one channel whose latest assistant message with text ends with `tail`, or is itself the end of it (a
 * client shows a tool turn's text before the call and its final reply as one message), compared trimmed; newest first
 * and at most `limit`: where the API server looks for a conversation a client sent without its oldest messages.
 */
export function sessionsReplyingWith(db: Database.Database, tail: string, source: string, limit: number): string[] {
  if (tail === '') return []
  const rows = stmt<Pick<LineageRow, 'id'>>(
    db,
    `SELECT id FROM (
       SELECT s.id AS id, s.started_at AS started_at, ${trimmedSql('m.content')} AS reply
       FROM sessions s JOIN messages m
         ON m.id = (SELECT f.id FROM messages f WHERE f.session_id = s.id AND f.role = 'assistant'
                      AND COALESCE(f.content, '') != ''${notSummary(db, 'f')} ORDER BY f.id DESC LIMIT 1)
       WHERE s.source = @source)
     WHERE reply != '' AND (substr(reply, -length(@tail)) = @tail OR substr(@tail, -length(reply)) = reply)
     ORDER BY started_at DESC, id DESC LIMIT @limit`
  ).all({ source, tail, limit })
  return rows.map((r) => r.id)
}
