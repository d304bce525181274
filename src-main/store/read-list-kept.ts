/**
 * The list's default first page from the rows kept current by the watcher (list-kept.ts): the activity index walked
 * in order as the full statement walks it (read-list.ts), each session's row taken from what is kept, and the
 * sessions with nothing current kept — those a commit touched, those new to the top — read from the file in one
 * statement that also says whether the list's filters leave each out. Null when nothing kept is current: the caller
 * reads the page from the file.
 */
import type Database from 'better-sqlite3'
import type { SessionSummary } from '@shared/contract'
import { activityMark, notePreviewSources } from './activity-index'
import { PAGE_ACT, PAGE_SELECT, pageRow, pageStatement, toSummary, walkStart, type PageValues } from './read-summary'
import { rowsViaJson } from './json-rows'
import { stmt } from './stmt-cache'
import {
  countKept,
  currentKept,
  keptFor,
  sameIndexMark,
  sealKept,
  trimKept,
  type Kept,
  type KeptPlan,
  type KeptRow,
  type Walked
} from './list-kept'

/** The default list's filters over the walk's row `a` and the session `s`, and their values. */
export interface PlainPlan {
  where: string[]
  args: unknown[]
  limit: number
}

/** How many rows past a page the walk reads at once: a few left out (children, hidden) seldom need a second step. */
const WALK_EXTRA = 20

type FirstPage = { items: SessionSummary[]; next: Walked | null } | null

// A read of the file that begins the request's snapshot
const PIN = 'SELECT 1 FROM main.sqlite_master LIMIT 1'
const DATA_VERSION = 'PRAGMA main.data_version'

/**
 * The first page's rows and the last one's key when there are more; null when nothing kept is current. One read
 * transaction from the check on: the kept rows are found current at the snapshot every row read for the page is read
 * at, so a commit landing meanwhile is in neither (not kept rows from before it beside rows read after it).
 */
export function keptFirstPage(db: Database.Database, profile: string, activity: string, plan: PlainPlan): FirstPage {
  if (!keptFor(db)?.tag) return null // nothing kept (a rollback-journal home: no snapshot to take there)
  if (db.inTransaction) return firstPage(db, profile, activity, plan)
  db.exec('BEGIN')
  try {
    stmt(db, PIN).get()
    // a commit between the list index's check (refreshActivity, just before) and this snapshot: the index's mark
    // would still vouch for rows the commit may have changed — the file answers
    if (stmt<number>(db, DATA_VERSION).pluck().get() !== activityMark(db)?.[0]) return null
    return firstPage(db, profile, activity, plan)
  } finally {
    db.exec('COMMIT')
  }
}

function firstPage(db: Database.Database, profile: string, activity: string, plan: PlainPlan): FirstPage {
  const k = currentKept(db)
  if (!k) return null
  k.plan = { profile, activity, where: plan.where, args: plan.args, limit: plan.limit }
  const rows = k.rows
  const items: SessionSummary[] = []
  const walked = new Set<string>()
  const batch = plan.limit + 1 + WALK_EXTRA
  let after: Walked | null = null
  let last: Walked | null = null
  let more = false
  let read = 0
  for (;;) {
    const walk: Walked[] = after ? walkFrom(db, activity, after, batch) : firstWalk(db, k, activity, batch)
    // kept rows not worth reading again (below): the file answers, unless this walk finds them current
    if (!after && k.staleRun > STALE_RUN && tooStale(staleIn(rows, walk).length, walk)) return null
    read += readMissing(db, k.plan, rows, walk)
    for (const w of walk) {
      walked.add(w[0])
      const summary = rows.get(w[0])?.summary
      if (!summary) continue
      if (items.length === plan.limit) {
        more = true
        break
      }
      items.push(summary)
      last = w
    }
    if (more || walk.length < batch) break
    after = walk[walk.length - 1]!
  }
  trimKept(rows, walked)
  countKept(k, 1, read)
  return { items, next: more ? last : null }
}

/**
 * The watcher's read-ahead, once it has applied a commit to what is kept and caught the list index up (watcher.ts):
 * the first walk and the rows it meets that the commit touched, read now — off the request that the change event
 * brings — for the plan the last page had. Best effort: what it could not read, the request reads.
 */
export function readAheadKept(db: Database.Database): void {
  const k = keptFor(db)
  if (!k?.plan || !k.tag) return
  try {
    const walk = firstWalk(db, k, k.plan.activity, k.plan.limit + 1 + WALK_EXTRA)
    if (worthReading(k, walk)) countKept(k, 0, readMissing(db, k.plan, k.rows, walk))
    trimKept(k.rows, new Set(walk.map((w) => w[0]))) // commits no page follows (a gateway's overnight) add rows too
    if (k.walk) k.walk.version = activityMark(db) ?? k.walk.version // its own index writes (previews found) are in it
    sealKept(db, k)
  } catch {
    k.version = null // not vouched for: the next request checks the WAL's mark itself, and reads what is missing
  }
}

/** The walk's first `n` rows, as kept for the index's mark now, else read (and kept). */
function firstWalk(db: Database.Database, k: Kept, activity: string, n: number): Walked[] {
  const version = activityMark(db)
  const w = k.walk
  if (w && version && w.size === n && sameIndexMark(w.version, version)) return w.rows
  const rows = walkFrom(db, activity, null, n)
  k.walk = version ? { version, size: n, rows } : null
  return rows
}

/**
 * Kept rows pay only where a commit leaves most of a page kept. Where it leaves a quarter of the first walk or more
 * stale, commit after commit (a first page of continuations' tips, whose chains any change drops), reading them again
 * costs more than the page's statement: past STALE_RUN such commits the watcher reads nothing ahead and a page that
 * finds its walk that stale is answered by the file — the walk is all the kept rows add — and every RETRY_EVERY-th
 * commit reads ahead again. Judged on the watcher's read-ahead only (a page right after it finds what it read).
 */
const STALE_RUN = 3
const RETRY_EVERY = 16
function worthReading(k: Kept, walk: Walked[]): boolean {
  if (!tooStale(staleIn(k.rows, walk).length, walk)) {
    k.staleRun = 0
    return true
  }
  k.staleRun++
  return k.staleRun <= STALE_RUN || k.staleRun % RETRY_EVERY === 0
}

/** A quarter of the walk or more, and more than a few rows (reading a few again is always cheap). */
const tooStale = (stale: number, walk: Walked[]) => stale >= 16 && stale * 4 > walk.length

/** The walked sessions with nothing current kept: none, or kept for another place in the walk. */
function staleIn(rows: Map<string, KeptRow>, walk: Walked[]): Walked[] {
  return walk.filter((w) => {
    const r = rows.get(w[0])
    return !r || r.act !== w[1] || r.started !== w[2]
  })
}

/** Reads the walked sessions with nothing current kept; returns how many. */
function readMissing(db: Database.Database, plan: KeptPlan, rows: Map<string, KeptRow>, walk: Walked[]): number {
  const missing = staleIn(rows, walk)
  if (missing.length) readRows(db, plan, rows, missing)
  return missing.length
}

const walkSqls = new Map<string, string>()
/** `n` sessions of the index in list order, after `after` (from the top: null). */
function walkFrom(db: Database.Database, activity: string, after: Walked | null, n: number): Walked[] {
  const key = `${activity} ${n} ${after ? 1 : 0}`
  let sql = walkSqls.get(key)
  if (sql === undefined) {
    if (walkSqls.size >= 16) walkSqls.clear()
    sql = `SELECT a.id AS c0, a.act AS c1, a.started AS c2 FROM ${activity} a
      ${after ? 'WHERE (a.act, a.started, a.id) < (?, ?, ?)' : ''}
      ORDER BY a.act DESC, a.started DESC, a.id DESC LIMIT ${n}`
    walkSqls.set(key, sql)
  }
  return rowsViaJson<Walked>(db, sql, 3, after ? [after[1], after[2], after[0]] : [])
}

const readSqls = new Map<string, string>()
/**
 * The page's statement (read-list.ts pageSql) for the sessions named, with the filters as a column rather than a
 * condition: a session they leave out is kept as such, so the next walk passes it by without reading it.
 */
function readSql(activity: string, where: string[]): string {
  const cond = where.join(' AND ') || '1'
  const key = `${activity} ${cond}`
  let sql = readSqls.get(key)
  if (sql === undefined) {
    if (readSqls.size >= 16) readSqls.clear()
    const n = PAGE_SELECT.length
    sql = pageStatement(activity, 'WHERE a.id IN (SELECT value FROM json_each(?))', {
      inner: `, CASE WHEN ${cond} THEN 1 ELSE 0 END AS cad_pass`,
      outer: `, s.cad_pass AS c${n}, s.cad_first AS c${n + 1}`
    })
    readSqls.set(key, sql)
  }
  return sql
}

/** Reads the sessions walked (`ids`) from the file into `rows`; one not there any more is kept as left out. */
function readRows(db: Database.Database, plan: KeptPlan, rows: Map<string, KeptRow>, ids: Walked[]): void {
  const { profile, activity } = plan
  const n = PAGE_SELECT.length
  const read = rowsViaJson<[...PageValues, number, number | null]>(db, readSql(activity, plan.where), n + 2, [
    ...plan.args,
    JSON.stringify(ids.map((w) => w[0]))
  ])
  const learned: Array<[string, number]> = []
  const seen = new Set<string>()
  for (const r of read) {
    const { row, previewFound, chain } = pageRow(r)
    if (previewFound !== null) learned.push([row.id, previewFound])
    seen.add(row.id)
    rows.set(row.id, {
      act: r[PAGE_ACT] as number,
      started: walkStart(r) as number,
      summary: r[n] ? toSummary(db, profile, row, Number(row.last_activity_at), chain) : null,
      compressed: row.end_reason === 'compression',
      parent: row.parent_session_id ?? null,
      previewId: row.title === null ? (previewFound ?? (r[n + 1] as number | null)) : null,
      preview: row.preview_raw,
      routes: row.routes_raw
    })
  }
  notePreviewSources(db, learned)
  for (const [id, act, started] of ids)
    if (!seen.has(id))
      rows.set(id, {
        act,
        started,
        summary: null,
        compressed: false,
        parent: null,
        previewId: null,
        preview: null,
        routes: null
      })
}
