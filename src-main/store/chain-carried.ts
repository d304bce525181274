/**
 * A compression chain read as one conversation: the continuation carries copies of its parent's last kept messages
 * (the protected tail, after the summary) and clones of the rows another writer added to the parent meanwhile, while
 * the parent keeps the originals (compression-publish.ts, as upstream's publish leaves them). Read as an earlier
 * segment of the chain, the parent leaves out the rows its continuation carries, so each message shows once: the
 * copy in the continuation keeps its place, right after the summary, where the conversation went on from.
 *
 * A copy is paired with its original by v31's `message_uid` when both rows have one, else by role, content, tool
 * fields and timestamp (Caduceus's copies keep their originals' times), else — rows without uids, copies written at
 * their own times (an older Caduceus, upstream itself) — by those fields alone where the copies are the parent's last
 * rows (carriedRowIds). The copies are one run near the continuation's start: after the summary row (new), or after
 * upstream's copies of the parent's protected head, which stay in the parent where they were said; each copy pairs
 * with one original at most, and a row that has no copy is never left out.
 */
import type Database from 'better-sqlite3'
import { rowSummary, splitMergedSummary } from '@shared/contract'
import { stmt, type ColumnsOf } from './stmt-cache'
import { currentColumns } from './reconcile'
import { kindOf, lineageRow } from './lineage'
import { trimmedSql } from './sql'
import type { messages } from './schema'
import type { messageIdentity } from './schema/identity'

/**
 * What a row is paired by, read without its text (the rows' text is compared in SQL, only where times agree): its id,
 * its time and its v31 `message_uid` (NULL on an older home or an empty uid).
 */
type Row = ColumnsOf<typeof messages, 'id' | 'timestamp'> & {
  uid: (typeof messageIdentity.$inferSelect)['message_uid']
}

const columnsOf = (db: Database.Database) => {
  const have = currentColumns(db, 'messages')
  return {
    uid: have.has('message_uid') ? "NULLIF(message_uid, '')" : 'NULL',
    // v31's summary marker (merged-summary.ts rowSummary: the authority where the home has it)
    flagged: have.has('_compressed_summary') ? '_compressed_summary' : 'NULL',
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
  currentColumns(db, 'messages').has('display_metadata') &&
  stmt(
    db,
    `SELECT 1 FROM messages a, messages b WHERE a.id = ? AND b.id = ? AND a.role = b.role AND a.timestamp = b.timestamp
      AND a.tool_call_id IS b.tool_call_id AND a.tool_name IS b.tool_name AND length(a.content) > 0
      AND json_valid(b.display_metadata) AND json_extract(b.display_metadata, '$.summaryMerged') = 1
      AND instr(b.content, a.content) > 0`
  ).get(original, merged) !== undefined

/**
 * Rows a continuation may open with before the run it carries: its summary, and upstream's copies of the parent's
 * protected head (the first messages it keeps as they are, before the summary; 3 by default).
 */
const LEAD = 8

/** A row's text without the whitespace around it: upstream writes its copies' text stripped. */
const TRIMMED = (t: string) => trimmedSql(`${t}.content`)

/** SQL: rows `a` and `b` alike in role, text (trimmed) and tool fields — a copy, whenever it was written. */
const sameFields = (a: string, b: string) =>
  `${a}.role = ${b}.role AND ${TRIMMED(a)} IS ${TRIMMED(b)} AND ${a}.tool_call_id IS ${b}.tool_call_id
    AND ${a}.tool_calls IS ${b}.tool_calls AND ${a}.tool_name IS ${b}.tool_name`

/** Two rows alike in role, text (trimmed) and tool fields: a copy written at its own time, by upstream too. */
const alikeCopy = (db: Database.Database, a: number, b: number): boolean =>
  stmt(db, `SELECT 1 FROM messages a, messages b WHERE a.id = ? AND b.id = ? AND ${sameFields('a', 'b')}`).get(a, b) !==
  undefined

/** Whether the continuation's rows up to `upTo` hold a copy of the parent's row `last` (its fields, not its time). */
const copiedLast = (db: Database.Database, last: number, childId: string, upTo: number): boolean =>
  stmt(
    db,
    `SELECT 1 FROM messages p, messages c WHERE p.id = ? AND c.session_id = ? AND c.id <= ?
      AND ${sameFields('c', 'p')} LIMIT 1`
  ).get(last, childId, upTo) !== undefined

/**
 * The parent rows alike `childRow` in role, content and tool fields and not later than it: where a run of copies
 * written at their own times may start (one scan of the parent per start tried, the text compared in SQL).
 */
const alikeInParent = (db: Database.Database, parentId: string, childRow: number): Set<number> =>
  new Set(
    stmt<Pick<Row, 'id'>>(
      db,
      `SELECT p.id FROM messages p, messages c WHERE c.id = ? AND p.session_id = ?
        AND ${sameFields('p', 'c')} AND p.timestamp <= c.timestamp`
    )
      .all(childRow, parentId)
      .map((r) => r.id)
  )

/**
 * The parent rows an upstream merged row (its summary folded into the first kept message, the text laid out as
 * merged-summary.ts reads it: v21's framed kept message first, or an earlier release's summary first) is the copy of: alike in role and tool fields, the kept text theirs (both without the
 * whitespace around them), and not later than it. Empty for any other row. Upstream v21 marks the row no other way,
 * and its copy is written at its own time, so this is how a question folded into the summary is known for the
 * message it was: it then shows once, where the conversation goes on (in the continuation, the summary folded).
 */
function keptInParent(db: Database.Database, parentId: string, childRow: number): number[] {
  const row = stmt<{ content: string | null; role: string }>(
    db,
    `SELECT content, role FROM messages WHERE id = ? AND (content LIKE '[PRIOR CONTEXT%' OR content LIKE '[CONTEXT COMPACTION%')`
  ).get(childRow)
  const kept = row ? splitMergedSummary(row.content)?.kept.trim() : undefined
  if (!kept) return []
  return stmt<Pick<Row, 'id'>>(
    db,
    `SELECT p.id FROM messages p, messages c WHERE c.id = ? AND p.session_id = ? AND p.role = c.role
      AND ${TRIMMED('p')} = ? AND p.tool_call_id IS c.tool_call_id AND p.tool_name IS c.tool_name
      AND p.timestamp <= c.timestamp`
  )
    .all(childRow, parentId, kept)
    .map((r) => r.id)
}

/**
 * The ids of `parentId`'s rows that `childId` (its direct continuation) carries copies of: none when `childId` does
 * not continue `parentId`.
 *
 * A copy is known exactly by its uid, or by its time with its role, text and tool fields. A copy written at its own
 * time (an older Caduceus's, upstream's own continuation on a home without uids) is known by those fields alone (its
 * text compared without the whitespace around it, which upstream's copy strips), and only where its position says it
 * is one: a run of such copies must be the parent's last rows, as a carried tail is, each copy no older than its
 * original. A genuinely repeated message elsewhere in the parent (the same "ok" twice) is never taken for a copy.
 */
export function carriedRowIds(db: Database.Database, parentId: string, childId: string): number[] {
  return carriedPairs(db, parentId, childId).map(([original]) => original)
}

/** A row another part of its chain shows instead, and that row: `[left out, shown]` (row ids). */
export type CopyPair = [number, number]

/** carriedRowIds with each original's copy: `[the parent's row, the continuation's copy of it]`. */
export function carriedPairs(db: Database.Database, parentId: string, childId: string): CopyPair[] {
  const link = stmt<{ parent_session_id: string | null }>(
    db,
    'SELECT parent_session_id FROM sessions WHERE id = ?'
  ).get(childId)
  if (link?.parent_session_id !== parentId || parentId === childId) return []
  const parent = rowsOf(db, parentId, -1)
  if (!parent.length) return []
  // the copies sit near the continuation's start: at most one per parent row, after what it opens with
  const child = rowsOf(db, childId, parent.length + LEAD)
  const same = (a: Row, b: Row): boolean =>
    a.uid && b.uid ? a.uid === b.uid : a.timestamp === b.timestamp && alike(db, a.id, b.id)
  type Run = { at: number; from: number; n: number }
  const runFrom = (at: number, from: number, match: (a: Row, b: Row) => boolean): Run => {
    let n = 1
    while (at + n < parent.length && from + n < child.length && match(parent[at + n]!, child[from + n]!)) n++
    return { at, from, n }
  }
  const longer = (a: Run | null, b: Run) => (!a || b.n > a.n ? b : a)
  const reachesEnd = (r: Run) => r.at + r.n === parent.length
  // Exact copies: the longest run from the first start that has one (the summary is no copy, so no later start is
  // looked for), unless a later start holds the carried tail (upstream's kept head comes before its summary).
  let first: Run | null = null
  let tail: Run | null = null
  for (let from = 0; from <= LEAD && from < child.length; from++) {
    const start = child[from]!
    let here: Run | null = null
    for (let at = parent.length - 1; at >= 0; at--) {
      const p = parent[at]!
      // (mergedInto asks SQL, and needs the same time: asked only where the times agree, not once per parent row)
      const merged = from === 0 && !(p.uid && start.uid) && p.timestamp === start.timestamp
      if (!same(p, start) && !(merged && mergedInto(db, p.id, start.id))) continue
      const run = runFrom(at, from, same)
      here = longer(here, run)
      if (reachesEnd(run)) tail = longer(tail, run)
    }
    if (from <= 1 && here && !first) first = here
  }
  const exact = tail ?? first
  if (exact) return pairs(parent, child, exact)
  // Copies at their own times, on rows without uids: a run that ends the parent, the longest. Such a run holds a copy
  // of the parent's last row: without one among the rows read (most chains, on every page read) nothing is looked for.
  if (!copiedLast(db, parent.at(-1)!.id, childId, child.at(-1)?.id ?? 0)) return []
  const loose = (a: Row, b: Row): boolean =>
    !(a.uid && b.uid) && a.timestamp <= b.timestamp && alikeCopy(db, a.id, b.id)
  let best: Run | null = null
  for (let from = 0; from <= LEAD && from < child.length; from++) {
    if (child[from]!.uid) continue
    const starts = alikeInParent(db, parentId, child[from]!.id)
    for (const id of keptInParent(db, parentId, child[from]!.id)) starts.add(id)
    for (let at = 0; at < parent.length; at++) {
      if (!starts.has(parent[at]!.id) || parent[at]!.uid) continue
      const run = runFrom(at, from, loose)
      if (reachesEnd(run)) best = longer(best, run)
    }
  }
  return best ? pairs(parent, child, best) : []
}

const pairs = (parent: Row[], child: Row[], r: { at: number; from: number; n: number }): CopyPair[] =>
  parent.slice(r.at, r.at + r.n).map((row, i) => [row.id, child[r.from + i]!.id])

/** How many leading rows of a continuation may copy its parent's opening (upstream's protect_first_n is 3). */
const HEAD = LEAD

/** The rows a transcript shows of a session, oldest first, as a head copy is compared: no bookkeeping rows. */
const openingOf = (
  db: Database.Database,
  sessionId: string
): Array<Row & ColumnsOf<typeof messages, 'role' | 'content'> & { flagged: number | null }> => {
  const { uid, live, flagged } = columnsOf(db)
  return stmt<Row & ColumnsOf<typeof messages, 'role' | 'content'> & { flagged: number | null }>(
    db,
    `SELECT id, timestamp, ${uid} AS uid, role, content, ${flagged} AS flagged FROM messages WHERE session_id = ?${live}
      AND role IN ('user', 'assistant', 'tool') ORDER BY id LIMIT ${HEAD}`
  ).all(sessionId)
}

/**
 * The ids of `childId`'s rows that copy its parent's opening messages: upstream's compressor keeps the first messages
 * of the conversation as they were (its protected head) and writes them into the continuation ahead of the summary,
 * so read as a part of its chain the continuation leaves them out — the parent shows them where they were said, and
 * the continuation's part opens with its summary. Only for a compression continuation (a branch's copies are its own
 * conversation), and only a run from the first row that matches the parent's first rows in order (by uid where both
 * have one, else role, text without the whitespace around it and tool fields), followed by a row that is no copy: a
 * message the user sent again later is not at the continuation's start, and Caduceus's continuations open with the
 * summary, so they leave nothing out here.
 */
export function openingCopyIds(db: Database.Database, childId: string): number[] {
  return openingCopyPairs(db, childId).map(([copy]) => copy)
}

/** openingCopyIds with each copy's original: `[the continuation's copy, the parent's row it copies]`. */
export function openingCopyPairs(db: Database.Database, childId: string): CopyPair[] {
  const row = lineageRow(db, childId)
  if (!row?.parent_session_id || row.parent_session_id === childId) return []
  if (kindOf(row, lineageRow(db, row.parent_session_id)) !== 'continuation') return []
  const parent = openingOf(db, row.parent_session_id)
  const child = openingOf(db, childId)
  let n = 0
  while (n < parent.length && n < child.length) {
    const a = parent[n]!
    const b = child[n]!
    // a summary is never a head copy: a later part of a chain opens with its own, which may read like its parent's
    // (read by the rule the transcript folds by: merged-summary.ts rowSummary)
    if (rowSummary(b.role, b.content, b.flagged) !== null) break
    if (a.uid && b.uid ? a.uid !== b.uid : !alikeCopy(db, a.id, b.id)) break
    n++
  }
  // a continuation that is all copies has no summary yet to open its part: nothing is left out of it
  return n < child.length ? child.slice(0, n).map((r, i) => [r.id, parent[i]!.id]) : []
}
