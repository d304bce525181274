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
import { stmt, type ColumnsOf } from './stmt-cache'
import { existingColumns } from './reconcile'
import type { messages } from './schema'

type Row = ColumnsOf<
  typeof messages,
  'id' | 'role' | 'content' | 'tool_call_id' | 'tool_calls' | 'tool_name' | 'timestamp'
> & {
  uid: string | null
}

const rowsOf = (db: Database.Database, sessionId: string, limit: number): Row[] => {
  const have = existingColumns(db, 'messages')
  const uid = have.has('message_uid') ? 'message_uid' : 'NULL'
  const live = have.has('active') ? ' AND COALESCE(active, 1) = 1' : ''
  return stmt<Row>(
    db,
    `SELECT id, role, content, tool_call_id, tool_calls, tool_name, timestamp, ${uid} AS uid FROM messages
      WHERE session_id = ?${live} ORDER BY id LIMIT ?`
  ).all(sessionId, limit)
}

const same = (a: Row, b: Row): boolean =>
  a.uid && b.uid
    ? a.uid === b.uid
    : a.role === b.role &&
      (a.content ?? null) === (b.content ?? null) &&
      (a.tool_call_id ?? null) === (b.tool_call_id ?? null) &&
      (a.tool_calls ?? null) === (b.tool_calls ?? null) &&
      (a.tool_name ?? null) === (b.tool_name ?? null) &&
      a.timestamp === b.timestamp

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
  let best: { at: number; from: number; n: number } | null = null
  for (const from of [0, 1]) {
    const first = child[from]
    if (!first) continue
    for (let at = parent.length - 1; at >= 0; at--) {
      if (!same(parent[at]!, first)) continue
      let n = 1
      while (at + n < parent.length && from + n < child.length && same(parent[at + n]!, child[from + n]!)) n++
      if (!best || n > best.n) best = { at, from, n }
    }
    // the first row a copy: the summary is not a copy of anything, so no later start is looked for
    if (best) break
  }
  return best ? parent.slice(best.at, best.at + best.n).map((r) => r.id) : []
}
