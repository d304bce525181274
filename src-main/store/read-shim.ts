/**
 * Reads of a home that lacks tables or columns Caduceus's queries name (any upstream schema v21 → v30 that no
 * Caduceus wrote, or an older home after Caduceus's additive legacy reconcile): per connection, TEMP views named
 * after each declared table shadow the real one (unqualified names resolve to temp first) and supply every
 * missing column with its declared default. A table the home lacks reads from Caduceus's `cad_` stand-in when
 * there is one (per-day usage in older homes), else as an empty view. Nothing touches the file.
 *
 * The views exist whenever no write transaction runs: a write drops them inside its BEGIN IMMEDIATE (so a write
 * that waits on a foreign lock changes nothing readers see; a rollback restores them) and re-applies them after
 * COMMIT for whatever the home still lacks. A view cannot be INDEXED BY, so the statement cache strips that hint
 * on shimmed connections and keys its statements by shim state.
 */
import type Database from 'better-sqlite3'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { columnFacts } from './schema/ddl'
import { DECLARED_TABLES } from './schema'
import { CAD_TABLES, cadName, currentColumns } from './reconcile'

const shimmed = new WeakMap<Database.Database, string[]>()

export const isShimmed = (db: Database.Database) => shimmed.has(db)
/** The views in place now (to restore the bookkeeping after a rolled-back write, whose DROPs rolled back too). */
export const shimViews = (db: Database.Database): string[] | undefined => shimmed.get(db)
export function restoreShimState(db: Database.Database, views: string[] | undefined): void {
  if (views) shimmed.set(db, views)
  else shimmed.delete(db)
}

/** Drops this connection's shadow views (inside a write transaction, or before re-applying). */
export function dropReadShim(db: Database.Database): void {
  const views = shimmed.get(db)
  if (!views) return
  db.exec(views.map((v) => `DROP VIEW IF EXISTS temp.${v};`).join(' '))
  shimmed.delete(db)
}

/** The SELECT a shadow view of `name` needs in this home, or null when the real table has every column. */
function viewSql(db: Database.Database, name: string, facts: ReturnType<typeof columnFacts>): string | null {
  let source = `main.${name}`
  // Asked for every declared table after every write on a home that lacks any (the views come back after COMMIT):
  // the column lists are read again only when the file's schema changed.
  let have = currentColumns(db, name)
  if (have.size === 0 && CAD_TABLES[name]) {
    have = currentColumns(db, cadName(name))
    source = `main.${cadName(name)}`
  }
  if (have.size === 0) return `SELECT ${facts.map((c) => `NULL AS ${c.name}`).join(', ')} WHERE 0`
  const extra = facts.filter((c) => !have.has(c.name)).map((c) => `${c.defaultSql ?? 'NULL'} AS ${c.name}`)
  if (extra.length === 0 && source === `main.${name}`) return null
  return `SELECT *${extra.map((e) => `, ${e}`).join('')} FROM ${source}`
}

/** (Re)creates the shadow views for whatever the home lacks; returns whether any is in place. */
export function applyReadShim(db: Database.Database): boolean {
  dropReadShim(db)
  const views: string[] = []
  for (const table of DECLARED_TABLES) {
    const name = getTableConfig(table).name
    const sql = viewSql(db, name, columnFacts(table))
    if (sql === null) continue
    db.exec(`CREATE TEMP VIEW ${name} AS ${sql}`)
    views.push(name)
  }
  if (views.length) shimmed.set(db, views)
  return views.length > 0
}
