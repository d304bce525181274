/**
 * Prepared-statement cache per connection. better-sqlite3 compiles SQL on every prepare(), which costs more
 * than running a PK lookup — a 100-row list page does several lookups per row, so reuse matters.
 */
import type Database from 'better-sqlite3'
import { isShimmed } from './read-shim'

/**
 * A view cannot take an INDEXED BY hint (read-shim.ts): drop it on shimmed connections. Statements are cached
 * per shim state, since a write transaction runs with the views dropped and they come back after it.
 */
const forDb = (db: Database.Database, sql: string) => (isShimmed(db) ? sql.replace(/\s+INDEXED BY \w+/g, '') : sql)
const keyOf = (db: Database.Database, sql: string) => (isShimmed(db) ? `shim:${sql}` : sql)

/** A statement prepared once, not cached (SQL built per query), with the same INDEXED BY rule as `stmt`. */
export const prepareOnce = (db: Database.Database, sql: string): Database.Statement => db.prepare(forDb(db, sql))

const MAX = 256
const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>()

export function stmt(db: Database.Database, sql: string): Database.Statement {
  let cache = caches.get(db)
  if (!cache) caches.set(db, (cache = new Map()))
  const key = keyOf(db, sql)
  let s = cache.get(key)
  if (!s) {
    if (cache.size >= MAX) cache.clear() // dynamic IN-lists could otherwise grow it without bound
    s = db.prepare(forDb(db, sql))
    cache.set(key, s)
  }
  return s
}

/**
 * Rows as plain objects built in JS from raw arrays. better-sqlite3 sets each key through the V8 API, which
 * at ~25 columns costs more than the query itself (list page: 0.6 → 0.4 ms per 100 rows). Same values,
 * same key order, later duplicate names win — exactly what object mode returns. Own cache: raw mode is
 * a property of the statement, so these never share one with `stmt()` callers.
 */
const rawCaches = new WeakMap<Database.Database, Map<string, { s: Database.Statement; names: string[] }>>()

export function allObjects<T = Record<string, unknown>>(db: Database.Database, sql: string, ...args: unknown[]): T[] {
  let cache = rawCaches.get(db)
  if (!cache) rawCaches.set(db, (cache = new Map()))
  const key = keyOf(db, sql)
  let hit = cache.get(key)
  if (!hit) {
    if (cache.size >= MAX) cache.clear()
    const s = db.prepare(forDb(db, sql)).raw(true)
    hit = { s, names: s.columns().map((c) => c.name) }
    cache.set(key, hit)
  }
  const rows = hit.s.all(...args) as unknown[][]
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
