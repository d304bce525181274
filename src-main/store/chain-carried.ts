/**
 * A compression chain read as one conversation: the continuation carries copies of its parent's last kept messages
 * (the protected tail, after the summary) and clones of the rows another writer added to the parent meanwhile, while
 * the parent keeps the originals (compression-publish.ts, as upstream's publish leaves them). Read as an earlier
 * segment of the chain, the parent leaves out the rows its continuation carries, so each message shows once: the
 * copy in the continuation keeps its place, right after the summary, where the conversation went on from.
 *
 * A copy is paired with its original exactly: by v31's `message_uid` when both rows have one, else by role, content,
 * tool fields and timestamp (the copies keep their originals' times). The copies are one run at the continuation's
 * start (after the summary row, which is new), their originals one run in the parent; each copy pairs with one
 * original at most, and a row that has no copy is never left out.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import { existingColumns } from './reconcile'

/** What a row is paired by, read without its text (the rows' text is compared in SQL, only where times agree). */
interface Row {
  id: number
  timestamp: number
  uid: string | null
}

const columnsOf = (db: Database.Database) => {
  const have = existingColumns(db, 'messages')
  return {
    uid: have.has('message_uid') ? "NULLIF(message_uid, '')" : 'NULL',
    live: have.has('active') ? ' AND COALESCE(active, 1) = 1' : ''
  }
}

const rowsOf = (db: Database.Database, sessionId: string, limit: number): Row[] => {
  const { uid, live } = columnsOf(db)
  return stmt<Row>(
    db,
    `SELECT id, timestamp, ${uid} AS uid FROM messages WHERE session_id = ?${live} ORDER BY id LIMIT ?`
  ).all(sessionId, limit)
}

/** Two rows alike in role, content and tool fields (their times compared already). */
const alike = (db: Database.Database, a: number, b: number): boolean =>
  stmt(
    db,
    `SELECT 1 FROM messages a, messages b WHERE a.id = ? AND b.id = ? AND a.role = b.role AND a.content IS b.content
      AND a.tool_call_id IS b.tool_call_id AND a.tool_calls IS b.tool_calls AND a.tool_name IS b.tool_name`
  ).get(a, b) !== undefined

/**
 * The continuation's first row is the summary merged into the first kept message (no uid to pair it by): it is still
 * that message — its role, time and tool fields, its text within the merged text — so its original is the copy's.
 */
const mergedInto = (db: Database.Database, original: number, merged: number): boolean =>
  existingColumns(db, 'messages').has('display_metadata') &&
  stmt(
    db,
    `SELECT 1 FROM messages a, messages b WHERE a.id = ? AND b.id = ? AND a.role = b.role AND a.timestamp = b.timestamp
      AND a.tool_call_id IS b.tool_call_id AND a.tool_name IS b.tool_name AND length(a.content) > 0
      AND json_valid(b.display_metadata) AND json_extract(b.display_metadata, '$.summaryMerged') = 1
      AND instr(b.content, a.content) > 0`
  ).get(original, merged) !== undefined

/**
 * The ids of `parentId`'s rows that `childId` (its direct continuation) carries copies of: none when `childId` does
 * not continue `parentId`.
 */
export function carriedRowIds(db: Database.Database, parentId: string, childId: string): number[] {
  const link = stmt<{ parent_session_id: string | null }>(
    db,
    'SELECT parent_session_id FROM sessions WHERE id = ?'
  ).get(childId)
  if (link?.parent_session_id !== parentId || parentId === childId) return []
  const parent = rowsOf(db, parentId, -1)
  if (!parent.length) return []
  // the copies sit at the continuation's start: at most one per parent row, after the summary
  const child = rowsOf(db, childId, parent.length + 1)
  const same = (a: Row, b: Row): boolean =>
    a.uid && b.uid ? a.uid === b.uid : a.timestamp === b.timestamp && alike(db, a.id, b.id)
  let best: { at: number; from: number; n: number } | null = null
  for (const from of [0, 1]) {
    const first = child[from]
    if (!first) continue
    for (let at = parent.length - 1; at >= 0; at--) {
      const p = parent[at]!
      if (!same(p, first) && !(from === 0 && !(p.uid && first.uid) && mergedInto(db, p.id, first.id))) continue
      let n = 1
      while (at + n < parent.length && from + n < child.length && same(parent[at + n]!, child[from + n]!)) n++
      if (!best || n > best.n) best = { at, from, n }
    }
    // the first row a copy: the summary is not a copy of anything, so no later start is looked for
    if (best) break
  }
  return best ? parent.slice(best.at, best.at + best.n).map((r) => r.id) : []
}
