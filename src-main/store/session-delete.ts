/**
 * Delete, prune and archive by filter with upstream's rules (hermes_state `delete_session` / `prune_sessions` /
 * `archive_sessions`):
 * - delete: sessions carrying `_delegate_from` pointing at the deleted one (recursively) go with it; every
 *   other child is detached (parent_session_id = NULL), never lost;
 * - prune: selects exactly `_prune_filter_where` — ENDED sessions only (a running one is never pruned),
 *   `started_at` older than the cutoff, the other filters ANDed; children outside the selection are detached.
 * Messages and usage rows go with their session; FTS rows follow through the home's triggers, after rows
 * another SQLite tokenized differently were re-based (fts-nul.ts), so every index stays consistent.
 */
import type Database from 'better-sqlite3'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { pragmaTableInfo, sessions } from './schema'
import { marker } from './sql'
import { adoptNulRows, nulMessageIds } from './fts-nul'
import { setFlag } from './session-write'
import { dropUsageRows } from './usage-rows'
import { nowSeconds } from './util'
import type { SessionRecord } from './types'

type SessionId = (typeof sessions.$inferSelect)['id']

/** Upstream's prune/archive filter surface (`_prune_filter_where`), all ANDed. */
export interface PruneFilter {
  startedBefore?: number
  startedAfter?: number
  source?: string
  titleLike?: string
  endReason?: string
  cwdPrefix?: string
  minMessages?: number
  maxMessages?: number
  archived?: boolean
  modelLike?: string
  provider?: string
  userId?: string
  chatId?: string
  chatType?: string
  branchLike?: string
  minTokens?: number
  maxTokens?: number
  minCost?: number
  maxCost?: number
  minToolCalls?: number
  maxToolCalls?: number
}

/** A session a prune would delete: ended (so `endedAt` is set), with its message count read as 0 when NULL. */
export type PruneCandidate = Pick<SessionRecord, 'id' | 'source' | 'title' | 'model' | 'startedAt' | 'archived'> & {
  endedAt: NonNullable<SessionRecord['endedAt']>
  messageCount: NonNullable<SessionRecord['messageCount']>
}

const like = (v: string) => `%${v.toLowerCase()}%`

function pruneWhere(f: PruneFilter, cols: Set<string>): { where: string; params: unknown[] } {
  const c: string[] = ['s.ended_at IS NOT NULL']
  const p: unknown[] = []
  const add = (sql: string, ...v: unknown[]) => {
    c.push(sql)
    p.push(...v)
  }
  if (f.startedBefore !== undefined) add('s.started_at < ?', f.startedBefore)
  if (f.startedAfter !== undefined) add('s.started_at >= ?', f.startedAfter)
  if (f.source) add('s.source = ?', f.source)
  if (f.titleLike) add("LOWER(COALESCE(s.title, '')) LIKE ?", like(f.titleLike))
  if (f.endReason) add('s.end_reason = ?', f.endReason)
  if (f.cwdPrefix) {
    const pre = f.cwdPrefix.replace(/[/\\]+$/, '') || f.cwdPrefix
    add('(s.cwd = ? OR s.cwd LIKE ? OR s.cwd LIKE ?)', pre, `${pre}/%`, `${pre}\\%`)
  }
  if (f.minMessages !== undefined) add('s.message_count >= ?', f.minMessages)
  if (f.maxMessages !== undefined) add('s.message_count <= ?', f.maxMessages)
  if (f.modelLike) add("LOWER(COALESCE(s.model, '')) LIKE ?", like(f.modelLike))
  // A filter on a column this home lacks matches nothing: ignoring it would widen the prune beyond what was asked.
  const addOn = (col: string, sql: string, v: unknown) => (cols.has(col) ? add(sql, v) : add('0'))
  if (f.provider) addOn('billing_provider', "LOWER(COALESCE(s.billing_provider, '')) = ?", f.provider.toLowerCase())
  if (f.userId) addOn('user_id', 's.user_id = ?', f.userId)
  if (f.chatId) addOn('chat_id', 's.chat_id = ?', f.chatId)
  if (f.chatType) addOn('chat_type', 's.chat_type = ?', f.chatType)
  if (f.branchLike) addOn('git_branch', "LOWER(COALESCE(s.git_branch, '')) LIKE ?", like(f.branchLike))
  const tokens = '(COALESCE(s.input_tokens, 0) + COALESCE(s.output_tokens, 0))'
  if (f.minTokens !== undefined) add(`${tokens} >= ?`, f.minTokens)
  if (f.maxTokens !== undefined) add(`${tokens} <= ?`, f.maxTokens)
  const cost = 'COALESCE(s.actual_cost_usd, s.estimated_cost_usd, 0)'
  if (f.minCost !== undefined) add(`${cost} >= ?`, f.minCost)
  if (f.maxCost !== undefined) add(`${cost} <= ?`, f.maxCost)
  if (f.minToolCalls !== undefined) add('COALESCE(s.tool_call_count, 0) >= ?', f.minToolCalls)
  if (f.maxToolCalls !== undefined) add('COALESCE(s.tool_call_count, 0) <= ?', f.maxToolCalls)
  if (f.archived === true) c.push('s.archived = 1')
  if (f.archived === false) c.push('s.archived = 0')
  return { where: c.join(' AND '), params: p }
}

const sessionColumns = (db: Database.Database) =>
  new Set(
    db
      .prepare<unknown[], ColumnsOf<typeof pragmaTableInfo, 'name'>>('PRAGMA main.table_info(sessions)')
      .all()
      .map((r) => r.name)
  )

/** What a prune with `f` would delete, oldest first (upstream's `list_prune_candidates`). */
export function pruneCandidates(db: Database.Database, f: PruneFilter): PruneCandidate[] {
  const { where, params } = pruneWhere(f, sessionColumns(db))
  return db
    .prepare<unknown[], PruneCandidate>(
      `SELECT s.id, s.source, s.title, s.model, s.started_at AS startedAt, s.ended_at AS endedAt,
        COALESCE(s.message_count, 0) AS messageCount, s.archived
        FROM sessions s WHERE ${where} ORDER BY s.started_at ASC`
    )
    .all(...params)
}

/** Removes `ids` (messages, usage rows, the rows), after detaching every child left behind. */
function removeSessions(db: Database.Database, ids: string[]): number {
  adoptNulRows(db, nulMessageIds(db, ids))
  const doomed = new Set(ids)
  const kids = stmt<SessionId>(db, 'SELECT id FROM sessions WHERE parent_session_id = ?').pluck()
  const detach = stmt(db, 'UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?')
  let detached = 0
  for (const id of ids) {
    detached += kids.all(id).filter((k) => !doomed.has(k)).length
    detach.run(id)
  }
  dropUsageRows(db, ids)
  for (const id of ids) {
    stmt(db, 'DELETE FROM messages WHERE session_id = ?').run(id)
    stmt(db, 'DELETE FROM sessions WHERE id = ?').run(id)
  }
  return detached
}

/** Delegate runs of `id`, recursively (upstream's `_collect_delegate_child_ids`); never `id` itself. */
function delegateChildren(db: Database.Database, id: string): string[] {
  const df = marker('s', '_delegate_from')
  const q = stmt<SessionId>(
    db,
    `SELECT s.id FROM sessions s WHERE ${df} = ? OR (s.parent_session_id = ? AND ${df} IS NOT NULL)`
  )
  const found = new Set([id])
  const frontier = [id]
  while (frontier.length) {
    const cur = frontier.pop()!
    for (const c of q.pluck().all(cur, cur))
      if (!found.has(c)) {
        found.add(c)
        frontier.push(c)
      }
  }
  found.delete(id)
  return [...found]
}

/** Deletes one session (in the caller's transaction). Returns false for an unknown id. */
export function deleteSessionRows(
  db: Database.Database,
  id: string
): { deleted: boolean; detachedChildren: number; ids: string[]; deletedIds: string[] } {
  if (!stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(id))
    return { deleted: false, detachedChildren: 0, ids: [], deletedIds: [] }
  const doomed = [...delegateChildren(db, id), id]
  const kids = stmt<SessionId>(db, 'SELECT id FROM sessions WHERE parent_session_id = ?').pluck()
  const touched = new Set(doomed.flatMap((d) => kids.all(d)))
  const detached = removeSessions(db, doomed)
  return { deleted: true, detachedChildren: detached, ids: [...doomed, ...touched], deletedIds: doomed }
}

/**
 * Deletes what `pruneCandidates(f)` selects, only those in `only` when given (what a preview listed); children
 * outside the selection are detached, not deleted.
 */
export function pruneRows(
  db: Database.Database,
  f: PruneFilter,
  only?: ReadonlySet<string>
): { deleted: number; detached: number; ids: string[]; deletedIds: string[] } {
  const ids = pruneCandidates(db, f)
    .map((r) => r.id)
    .filter((id) => !only || only.has(id))
  const kids = stmt<SessionId>(db, 'SELECT id FROM sessions WHERE parent_session_id = ?').pluck()
  const touched = ids.flatMap((d) => kids.all(d))
  const detached = ids.length ? removeSessions(db, ids) : 0
  return { deleted: ids.length, detached, ids: [...ids, ...touched], deletedIds: ids }
}

/** What an archive with `f` would archive: `pruneCandidates` among sessions not yet archived. */
export const archiveCandidates = (db: Database.Database, f: PruneFilter) =>
  pruneCandidates(db, { ...f, archived: false })

/**
 * Archives what `pruneCandidates` selects among sessions not yet archived, each with its compression lineage
 * (upstream's `archive_sessions`). Returns the matches and every row whose flag changed.
 */
export function archiveRows(db: Database.Database, f: PruneFilter): { matched: string[]; changed: string[] } {
  const matched = archiveCandidates(db, f).map((r) => r.id)
  return { matched, changed: matched.flatMap((id) => setFlag(db, id, 'archived', true)) }
}

/** `--older-than DAYS` as upstream reads it: `started_at` before now − days. */
export const olderThan = (days: number, now = nowSeconds()) => now - days * 86400
