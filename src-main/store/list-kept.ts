/**
 * The default list's rows kept in memory between requests, current with the file by the watcher (#22): the page a
 * user gets right after another program's commit is the activity index's walk (in memory) plus, per row, what the
 * row showed last time — read again from the file only for the sessions that commit touched. A foreign commit makes
 * SQLite drop its whole page cache (WAL mode), so reading a page's 100 rows again costs ~40 page reads of the file
 * each time, where the sessions a commit touched are one or two.
 *
 * What makes a kept row current, and how (the watcher, watcher.ts diff, on every commit it sees, any writer's):
 * - Its session's own row changed: the watcher's diff of every column a list row reads (watcher-prints.ts, over the
 *   rows the WAL's new frames wrote: wal-pages.ts) names it, as its scan of new messages names their sessions. Usage
 *   routes written name theirs (their sums compared); a kept first user message written again names its session
 *   (its text compared). Comparing only what changed matters: a page of the file is written whole, and rowids of
 *   every table come together, so the rows a commit's frames hold are mostly not the ones it changed.
 * - Its facts from other rows: a touched session's parent (the delegate-child count, whether a continuation hides
 *   it) goes with it; so does every row with a parent (its parent's end; a continuation's chain up to its root's
 *   title) on any change at all.
 * - Anything it cannot vouch for empties the store: frames it cannot read (rowidsWritten null), a session gone that
 *   it did not keep, rows deleted (the activity index's epoch: activity-index.ts), another file.
 * The store is `tag`ged with the WAL's mark it is current at; a request uses it only when the file's mark now is that
 * mark — any commit the watcher has not applied yet, this process's own included, sends the request down the full
 * statement (read-list.ts), as does every page but the default first one. The walk's activity and start are the
 * index's own, read each time; a kept row whose values differ is read again.
 */
import type Database from 'better-sqlite3'
import type { SessionSummary } from '@shared/contract'
import type { WalMark } from './wal-pages'
import { hasTable, stmt } from './stmt-cache'
import { activityEpoch, activityMark } from './activity-index'
import { PREVIEWS_BY_ID, ROUTES_BY_ID } from './read-summary'

/** What a page showed for one session, and what it was read from. */
export interface KeptRow {
  /** The walk's activity and start when it was read. */
  act: number
  started: number
  /** Null: the default list leaves the session out (a child, hidden, archived, superseded…). */
  summary: SessionSummary | null
  /** Its row ended 'compression' (a continuation may supersede it) */
  compressed: boolean
  parent: string | null
  /** Its first user message (the preview), where known, and its first 600 characters as read. */
  previewId: number | null
  preview: string | null
  /** Its usage routes summed, as read (read-summary.ts ROUTES_SQL). */
  routes: string | null
}

/** A walked session: its id, activity and start (the list's keyset). */
export type Walked = [id: string, act: number, started: number]

/** The default first page's plan, as its last request had it: what the watcher reads ahead for. */
export interface KeptPlan {
  profile: string
  activity: string
  where: string[]
  args: unknown[]
  limit: number
}

export interface Kept {
  markOf: () => WalMark | null
  /** The WAL mark the rows are current at (null: none yet) */
  tag: WalMark | null
  /** The list index's mark (activity-index.ts activityMark) when the rows were last found current at `tag` */
  version: readonly [number, number] | null
  epoch: number
  /** The file's schema version the rows were read under */
  schema: number
  rows: Map<string, KeptRow>
  plan: KeptPlan | null
  /** Pages these rows answered, and sessions read from the file for them (SessionWatcher.listRows) */
  pages: number
  read: number
  /** Walks in a row that found most of their rows stale (read-list-kept.ts worthReading) */
  staleRun: number
  /** The first walk from the top at `version` (`size` rows asked) */
  walk: { version: readonly [number, number]; size: number; rows: Walked[] } | null
}
const kept = new WeakMap<Database.Database, Kept>()

/** Counts a page the kept rows answered (`pages`), and sessions read from the file for it, by it or ahead of it. */
export function countKept(k: Kept, pages: number, read: number): void {
  k.pages += pages
  k.read += read
}

/** Rows kept past this many (sessions that left the top of the list) are dropped but for those the last page walked. */
const MAX_KEPT = 2000

const sameMark = (a: WalMark, b: WalMark) => a.frames === b.frames && a.commits === b.commits && a.salts.equals(b.salts)

/** Two of the list index's marks (activity-index.ts activityMark) are the same. */
export const sameIndexMark = (a: readonly [number, number], b: readonly [number, number]) =>
  a[0] === b[0] && a[1] === b[1]

/** `m` is `from`, `to`, or a mark between them in the same WAL generation. */
const within = (m: WalMark, from: WalMark, to: WalMark) =>
  sameMark(m, from) ||
  sameMark(m, to) ||
  (m.salts.equals(from.salts) && m.salts.equals(to.salts) && from.frames <= m.frames && m.frames <= to.frames)

/**
 * The watcher starts keeping `db`'s list rows, current at `tag` (the mark its snapshot was taken at); `markOf` reads
 * the file's mark now. Replaces whatever was kept (another file).
 */
export function keepListRows(db: Database.Database, markOf: () => WalMark | null, tag: WalMark | null): void {
  kept.set(db, {
    markOf,
    tag,
    version: null,
    epoch: activityEpoch(db),
    schema: schemaVersion(db),
    rows: new Map(),
    plan: null,
    walk: null,
    pages: 0,
    read: 0,
    staleRun: 0
  })
}

const schemaVersion = (db: Database.Database) => Number(db.pragma('main.schema_version', { simple: true }))

export function releaseListRows(db: Database.Database): void {
  kept.delete(db)
}

const USAGE_BY_ROWID = `SELECT DISTINCT session_id FROM main.session_model_usage
  WHERE rowid IN (SELECT value FROM json_each(?))`
const PARENTS = `SELECT id, parent_session_id FROM main.sessions WHERE id IN (SELECT value FROM json_each(?))`

/**
 * The commits between the watcher's marks `from` and `to`: `rowids` the rows their frames wrote (null: not known),
 * `changed` the sessions the watcher found changed. Drops what they may have made stale, then tags the rest current
 * at `to`. What is read again is read on `db` now, at or after `to`: a row that moved on since is read as changed
 * (dropped), or equal to what is kept — which is then current, and any commit after `to` keeps requests off the
 * rows until the watcher has applied it too.
 */
export function keptRowsCommitted(
  db: Database.Database,
  from: WalMark | null,
  to: WalMark | null,
  rowids: readonly number[] | null,
  changed: Iterable<string>
): void {
  const k = kept.get(db)
  if (!k) return
  k.version = null
  k.walk = null
  if (!to || !from || !rowids || !k.tag || !within(k.tag, from, to) || db.inTransaction) {
    k.rows.clear()
    k.tag = to
    return
  }
  try {
    // A schema change (this store's first write on an older home adds its columns; another program's migration) makes
    // the watcher start its snapshot of rows over, naming none gone in those commits: a session deleted with it is
    // named by nothing, so nothing kept is vouched for.
    const schema = schemaVersion(db)
    if (schema !== k.schema) {
      k.schema = schema
      k.rows.clear()
    } else applyCommits(db, k, rowids, new Set(changed))
  } catch {
    k.rows.clear() // a read that failed (a lock, a home gone odd): nothing kept is vouched for
  }
  k.tag = to
}

function applyCommits(db: Database.Database, k: Kept, rowids: readonly number[], touched: Set<string>): void {
  if (rowids.length) {
    const json = JSON.stringify(rowids)
    // A kept preview's message on a page written: read again, compared (its page holds other rows that did not change)
    const written = new Set(rowids)
    const previews = new Map<number, string>()
    for (const [id, row] of k.rows)
      if (row.previewId !== null && written.has(row.previewId)) previews.set(row.previewId, id)
    if (previews.size) {
      const now = stmt<[number, string, string | null]>(db, PREVIEWS_BY_ID)
        .raw()
        .all(JSON.stringify([...previews.keys()]))
      const unchanged = new Set<number>()
      for (const [m, sid, text] of now)
        if (previews.get(m) === sid && k.rows.get(sid)?.preview === text) unchanged.add(m)
      for (const [m, sid] of previews) if (!unchanged.has(m)) touched.add(sid)
    }
    // Usage routes on a page written: their kept sessions' sums read again, compared (no kept row reads another's)
    if (hasTable(db, 'session_model_usage')) {
      const sids = stmt<string>(db, USAGE_BY_ROWID)
        .pluck()
        .all(json)
        .map(String)
        .filter((id) => k.rows.has(id))
      if (sids.length)
        for (const [id, routes] of stmt<[string, string | null]>(db, ROUTES_BY_ID).raw().all(JSON.stringify(sids)))
          if (k.rows.get(id)?.routes !== routes) touched.add(id)
    }
  }
  if (touched.size) {
    if (!dropTouched(db, k, touched)) k.rows.clear()
  } else if (rowids.length) dropChained(k) // a continuation's root preview: its root's messages, which no rule names
}

/**
 * Drops the touched sessions' rows, their parents' (old and new: a reparented child) and every child's; false when it
 * cannot tell whose (a session gone that was not kept: its parent is not known now). A touched session that was not
 * kept may have left a parent nobody knows: every row a child makes what it is goes too — one showing delegate
 * children, and one left out that a continuation may have superseded (a 'compression' end).
 */
function dropTouched(db: Database.Database, k: Kept, touched: Set<string>): boolean {
  const parents = new Set<string>()
  const found = new Set<string>()
  for (const [id, parent] of stmt<[string, string | null]>(db, PARENTS)
    .raw()
    .all(JSON.stringify([...touched]))) {
    found.add(id)
    if (parent !== null) parents.add(parent)
  }
  let unknownParent = false
  for (const id of touched) {
    const row = k.rows.get(id)
    if (row?.parent) parents.add(row.parent)
    else if (!row && !found.has(id)) return false
    else if (!row) unknownParent = true
  }
  for (const id of touched) k.rows.delete(id)
  for (const id of parents) k.rows.delete(id)
  if (unknownParent)
    for (const [id, row] of k.rows) if (row.summary ? row.summary.childCount > 0 : row.compressed) k.rows.delete(id)
  dropChained(k)
  return true
}

/**
 * A child's row reads its parent's end and, a continuation's, its chain's rows up to the root's title and the root's
 * first user message (a root below the walk is not kept, so an edit of that message names nothing kept): any change
 * drops them (they are few on a first page: children are left out but branches and continuations' tips).
 */
function dropChained(k: Kept): void {
  for (const [id, row] of k.rows) if (row.parent !== null) k.rows.delete(id)
}

/**
 * What is kept for `db`, when it is current with the file now (null: read the page from the file). Nobody committed
 * since: the list index's mark (data_version and this connection's changes, read by the list's refreshActivity just
 * before) is the one the rows were found current at — else the file's WAL mark is still the rows' own, and that
 * index mark is taken for the next request. Rows deleted since they were read (the index's epoch moved) go first.
 */
export function currentKept(db: Database.Database): Kept | null {
  const k = kept.get(db)
  if (!k || !k.tag) return null
  const version = activityMark(db)
  if (!version) return null
  if (!k.version || !sameIndexMark(k.version, version)) {
    const now = k.markOf()
    if (!now || !sameMark(now, k.tag)) return null
    k.version = version
    k.walk = null
  }
  const epoch = activityEpoch(db)
  if (epoch !== k.epoch) {
    k.rows.clear()
    k.epoch = epoch
  }
  return k
}

/**
 * The watcher read ahead for the commits it applied: the index's mark now stands for the rows when no commit came
 * after `tag` (the WAL's mark is still it, read after the index's).
 */
export function sealKept(db: Database.Database, k: Kept): void {
  const version = activityMark(db)
  const now = k.markOf()
  k.version = version && now && k.tag && sameMark(now, k.tag) ? version : null
}

/** What is kept for `db`, current or not (the watcher's read-ahead). */
export const keptFor = (db: Database.Database): Kept | undefined => kept.get(db)

/** Keeps the store small: past MAX_KEPT rows, only those the last walk met stay. */
export function trimKept(rows: Map<string, KeptRow>, walked: ReadonlySet<string>): void {
  if (rows.size <= MAX_KEPT) return
  for (const id of rows.keys()) if (!walked.has(id)) rows.delete(id)
}
