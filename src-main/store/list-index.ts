/**
 * Whether a home has the list's covering index of `sessions` (schema/indices.ts LIST_INDEX), as the hint the list's
 * and the activity index's per-session lookups name it by.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import { LIST_INDEX } from './schema/indices'
import { schemaCookie } from './shape'

/**
 * ` INDEXED BY <the index>` where the home has it, else nothing. Looked up again only when the schema cookie moves;
 * on a shimmed connection the statement cache drops the hint (a view takes none).
 */
const listIndexSeen = new WeakMap<Database.Database, { cookie: number; by: string }>()
export function sessionsBy(db: Database.Database): string {
  const cookie = schemaCookie(db)
  let seen = listIndexSeen.get(db)
  if (seen?.cookie !== cookie) {
    const has = stmt(db, "SELECT 1 FROM main.sqlite_master WHERE type = 'index' AND name = ? AND tbl_name = 'sessions'")
      .pluck()
      .get(LIST_INDEX)
    listIndexSeen.set(db, (seen = { cookie, by: has ? ` INDEXED BY ${LIST_INDEX}` : '' }))
  }
  return seen.by
}
