/**
 * Prepared-statement cache per connection. better-sqlite3 compiles SQL on every prepare(), which costs more
 * than running a PK lookup — a 100-row list page does several lookups per row, so reuse matters.
 */
import type Database from 'better-sqlite3'

const MAX = 256
const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>()

export function stmt(db: Database.Database, sql: string): Database.Statement {
  let cache = caches.get(db)
  if (!cache) caches.set(db, (cache = new Map()))
  let s = cache.get(sql)
  if (!s) {
    if (cache.size >= MAX) cache.clear() // dynamic IN-lists could otherwise grow it without bound
    s = db.prepare(sql)
    cache.set(sql, s)
  }
  return s
}
