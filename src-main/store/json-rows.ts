/**
 * Many rows as arrays, carried to JS as one JSON text. better-sqlite3 hands every value over by itself — on Node 20's
 * V8 it sets each array element through the embedder API, ~90 ns a value, NULLs included — while SQLite's
 * json_group_array plus V8's JSON.parse move a list page (100 rows × 30 values) in ~60% of that time. Nothing is
 * lost on the way: reals keep every digit (SQLite writes as many as a round trip needs), integers past 2^53 round as
 * they do in plain rows, a NUL inside text survives as \u0000. A BLOB (a home some other writer filled with bytes)
 * breaks it — json_array refuses one, reads a byte or two as JSONB (x'00' is null), or copies bytes into the text
 * that JSON.parse then rejects: whatever fails, the same statement runs again as plain rows, which fail only where
 * the statement itself does.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'

/** The JSON statement per page statement: the same text each time, so the statement cache finds it by a kept hash. */
const wrappers = new Map<string, string>()
function wrapped(sql: string, width: number): string {
  let w = wrappers.get(sql)
  if (w === undefined) {
    if (wrappers.size >= 64) wrappers.clear()
    const values = Array.from({ length: width }, (_, i) => `r.c${i}`).join(', ')
    wrappers.set(sql, (w = `SELECT json_group_array(json_array(${values})) FROM (${sql}) r`))
  }
  return w
}

/**
 * `sql` must name its `width` columns c0, c1, …; rows come back in the order `sql` yields them, typed `R` (a tuple
 * of the columns' types, as `.raw()` would hand them over).
 */
export function rowsViaJson<R extends unknown[] = unknown[]>(
  db: Database.Database,
  sql: string,
  width: number,
  args: unknown[]
): R[] {
  try {
    const text = stmt<string>(db, wrapped(sql, width))
      .pluck()
      .get(...args)
    return JSON.parse(text!) as R[]
  } catch {
    // whatever the JSON path refuses (a BLOB, the header above): plain rows, which fail only where the statement does
    return stmt<R>(db, sql)
      .raw()
      .all(...args)
  }
}
