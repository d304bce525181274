/**
 * Reads of an older home that lacks columns Caduceus's queries name, before anything was written (so before
 * reconcile could add them): per connection, TEMP views named `sessions` / `messages` shadow the real tables
 * (unqualified names resolve to temp first) and supply each missing column with its declared default. Nothing
 * touches the file. The first write drops the views before its transaction, and reconcile adds the columns.
 * A view cannot be INDEXED BY, so the statement cache strips that hint on shimmed connections.
 */
import type Database from 'better-sqlite3'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { columnFacts } from './schema/ddl'
import { messages, sessions } from './schema'
import { existingColumns } from './reconcile'

const shimmed = new WeakSet<Database.Database>()

export const isShimmed = (db: Database.Database) => shimmed.has(db)

export function dropReadShim(db: Database.Database): void {
  if (!shimmed.has(db)) return
  db.exec('DROP VIEW IF EXISTS temp.sessions; DROP VIEW IF EXISTS temp.messages')
  shimmed.delete(db)
}

/** (Re)creates the shadow views when the home lacks declared columns; returns whether any is in place. */
export function applyReadShim(db: Database.Database): boolean {
  dropReadShim(db)
  let any = false
  for (const table of [sessions, messages]) {
    const name = getTableConfig(table).name
    const have = existingColumns(db, name)
    if (have.size === 0) continue
    const extra = columnFacts(table)
      .filter((c) => !have.has(c.name))
      .map((c) => `${c.defaultSql ?? 'NULL'} AS ${c.name}`)
    if (extra.length === 0) continue
    db.exec(`CREATE TEMP VIEW ${name} AS SELECT *, ${extra.join(', ')} FROM main.${name}`)
    any = true
  }
  if (any) shimmed.add(db)
  return any
}
