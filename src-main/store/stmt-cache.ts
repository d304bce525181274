/**
 * Prepared-statement cache per connection. better-sqlite3 compiles SQL on every prepare(), which costs more
 * than running a PK lookup — a 100-row list page does several lookups per row, so reuse matters.
 */
import type Database from 'better-sqlite3'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { isShimmed } from './read-shim'

/**
 * The columns `K` of table `T` as its drizzle definition types them (`schema/`): what a statement selecting them by
 * name returns per row. Name the columns here once and pass the type to `stmt<…>` / `prepareOnce<…>`; the result is
 * typed without a cast and follows the schema when a column's type changes.
 */
export type ColumnsOf<T extends SQLiteTable, K extends keyof T['$inferSelect']> = Pick<T['$inferSelect'], K>

/**
 * A row read whole (`SELECT *`, or a wide select with computed columns beside the table's): the columns the schema
 * declares by their types (an older home may lack some, a statement may leave some out), any others by name.
 */
export type AllColumns<T extends SQLiteTable> = Partial<T['$inferSelect']> & Record<string, unknown>

/**
 * A statement typed by what it yields: `R` is a row (`ColumnsOf<…>`), or with `.pluck()` the one value, or with
 * `.raw()` the array of values. Untyped statements yield `unknown`.
 */
type Stmt<R = unknown> = Database.Statement<unknown[], R>

/**
 * A view cannot take an INDEXED BY hint (read-shim.ts): drop it on shimmed connections. Statements are cached
 * per shim state, since a write transaction runs with the views dropped and they come back after it.
 */
const forDb = (db: Database.Database, sql: string) => (isShimmed(db) ? sql.replace(/\s+INDEXED BY \w+/g, '') : sql)

/** A statement prepared once, not cached (SQL built per query), with the same INDEXED BY rule as `stmt`. */
export const prepareOnce = <R = unknown>(db: Database.Database, sql: string): Stmt<R> =>
  db.prepare<unknown[], R>(forDb(db, sql))

const MAX = 256
/**
 * One map per shim state, keyed by the SQL text itself: a key built per call (`shim:` + a list page's ~6 KB of SQL)
 * is a new string whose hash V8 computes again on every lookup, where a caller's own string keeps its hash.
 */
type PerShim<T> = { plain: Map<string, T>; shim: Map<string, T> }
const caches = new WeakMap<Database.Database, PerShim<Stmt>>()

function cacheOf<T>(all: WeakMap<Database.Database, PerShim<T>>, db: Database.Database): Map<string, T> {
  let both = all.get(db)
  if (!both) all.set(db, (both = { plain: new Map(), shim: new Map() }))
  return isShimmed(db) ? both.shim : both.plain
}

export function stmt<R = unknown>(db: Database.Database, sql: string): Stmt<R> {
  const cache = cacheOf(caches, db)
  let s = cache.get(sql)
  if (!s) {
    if (cache.size >= MAX) cache.clear() // dynamic IN-lists could otherwise grow it without bound
    s = db.prepare(forDb(db, sql))
    cache.set(sql, s)
  }
  return s as Stmt<R>
}

/**
 * Rows as plain objects built in JS from raw arrays. better-sqlite3 sets each key through the V8 API, which
 * at ~25 columns costs more than the query itself (list page: 0.6 → 0.4 ms per 100 rows). Same values,
 * same key order, later duplicate names win — exactly what object mode returns. Own cache: raw mode is
 * a property of the statement, so these never share one with `stmt()` callers.
 */
const rawCaches = new WeakMap<Database.Database, PerShim<{ s: Stmt<unknown[]>; names: string[] }>>()

export function allObjects<T = Record<string, unknown>>(db: Database.Database, sql: string, ...args: unknown[]): T[] {
  const cache = cacheOf(rawCaches, db)
  let hit = cache.get(sql)
  if (!hit) {
    if (cache.size >= MAX) cache.clear()
    const s = db.prepare<unknown[], unknown[]>(forDb(db, sql)).raw(true)
    hit = { s, names: s.columns().map((c) => c.name) }
    cache.set(sql, hit)
  }
  const rows = hit.s.all(...args)
  // A schema change recompiles the statement; re-read the names if the shape moved under us.
  if (rows.length && rows[0].length !== hit.names.length) hit.names = hit.s.columns().map((c) => c.name)
  const names = hit.names
  const out = new Array<T>(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]
    const o: Record<string, unknown> = {}
    for (let j = 0; j < names.length; j++) o[names[j]] = r[j]
    out[i] = o as T
  }
  return out
}

/** Whether the home's main schema has table `name` (a cached statement: asked on write and read paths alike). */
export const hasTable = (db: Database.Database, name: string): boolean =>
  stmt(db, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined
