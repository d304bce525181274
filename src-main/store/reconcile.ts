/**
 * Additive reconcile (the upstream "declare columns, add the missing ones" pattern), run inside the first
 * write transaction of an open — never on open itself, so reads never need the write lock.
 *
 * A current home (schema_version ≥ 30, or none stamped: one Caduceus creates) gets missing tables, columns,
 * indices and FTS objects (incl. the trigram index), all IF NOT EXISTS. A legacy home (an older upstream
 * still writes it) only gets nullable/defaulted columns added to `sessions` and `messages`: its usage tables,
 * FTS tables, triggers and indices stay exactly as its upstream made them, and what Caduceus needs that such a
 * home lacks lives in `cad_` tables. Nothing is dropped, renamed or rewritten and no state_meta key is written in
 * a home Caduceus did not create, with one exception upstream itself makes: the sync triggers of a CJK index whose
 * tokenizer this SQLite cannot load (see detachUnservableCjk).
 */
import type Database from 'better-sqlite3'
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import { addColumnSql, columnFacts, createTableSql } from './schema/ddl'
import {
  DECLARED_TABLES,
  FTS_STORAGE_VERSION,
  FTS_TABLE_SQL,
  FTS_TRIGGER_SQL,
  FTS_VIEW_SQL,
  INDEX_SQL,
  SCHEMA_VERSION,
  TRIGRAM_TABLE_SQL,
  TRIGRAM_TRIGGER_SQL,
  TRIGRAM_VIEW_SQL,
  sessionDailyUsage,
  sessionModelUsage,
  asyncDelegations,
  delegationChildUsage,
  sessions,
  messages,
  type pragmaTableInfo,
  type sqliteMaster
} from './schema'
import type { HomeShape } from './shape'
import { stmt, type ColumnsOf } from './stmt-cache'
import { errorMessage } from '@shared/contract/errors'
import { ftsMarkedStale } from './search-gap'

export interface ReconcileReport {
  createdTables: string[]
  addedColumns: string[]
  ftsRebuilt: boolean
  /** The CJK-bigram index's sync triggers were dropped: this SQLite cannot load its tokenizer. */
  cjkDetached: boolean
}

export function existingColumns(db: Database.Database, table: string): Set<string> {
  const rows = db
    .prepare<unknown[], ColumnsOf<typeof pragmaTableInfo, 'name'>>(
      `PRAGMA main.table_info("${table.replace(/"/g, '""')}")`
    )
    .all()
  return new Set(rows.map((r) => r.name))
}

const known = new WeakMap<Database.Database, Map<string, { version: number; have: Set<string> }>>()
/**
 * existingColumns for a read asked once per row or per chain part (PRAGMA table_info costs ~85 us, more than the
 * read): read again only when the file's schema changed, which moves its schema cookie whoever changed it (upstream
 * adding v31's columns under an open home, reconcile here). The set is shared: callers only read it.
 */
export function currentColumns(db: Database.Database, table: string): ReadonlySet<string> {
  const version = stmt<number>(db, 'PRAGMA main.schema_version').pluck().get()!
  let tables = known.get(db)
  if (!tables) known.set(db, (tables = new Map()))
  const seen = tables.get(table)
  if (seen?.version === version) return seen.have
  const have = existingColumns(db, table)
  tables.set(table, { version, have })
  return have
}

function objectExists(db: Database.Database, type: string, name: string): boolean {
  return db.prepare('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?').get(type, name) !== undefined
}

/** Columns the declared schema has but the DB lacks (reported on opens; reads tolerate them). */
export function missingColumns(db: Database.Database): string[] {
  const missing: string[] = []
  for (const table of DECLARED_TABLES) {
    const name = getTableConfig(table).name
    const have = existingColumns(db, name)
    if (have.size === 0) {
      missing.push(`${name}.*`)
      continue
    }
    for (const c of columnFacts(table)) if (!have.has(c.name)) missing.push(`${name}.${c.name}`)
  }
  return missing
}

/** Caduceus-owned stand-ins for usage tables a legacy home lacks (same columns, `cad_` name). */
export const CAD_TABLES: Record<string, SQLiteTable> = {
  session_model_usage: sessionModelUsage,
  session_daily_usage: sessionDailyUsage
}
export const cadName = (table: string) => `cad_${table}`

function addColumns(db: Database.Database, table: SQLiteTable, report: ReconcileReport, refs = true): void {
  const name = getTableConfig(table).name
  const have = existingColumns(db, name)
  for (const c of columnFacts(table)) {
    if (have.has(c.name)) continue
    // Legacy homes: no REFERENCES (a parent table such as system_prompts may not exist there).
    db.exec(addColumnSql(name, refs ? c : { ...c, references: null }))
    report.addedColumns.push(`${name}.${c.name}`)
  }
}

function createTable(db: Database.Database, table: SQLiteTable, report: ReconcileReport, as?: string): void {
  const name = as ?? getTableConfig(table).name
  if (objectExists(db, 'table', name)) return
  let sql = createTableSql(table)
  if (as) sql = sql.replace(/^CREATE TABLE IF NOT EXISTS \S+/, `CREATE TABLE IF NOT EXISTS ${as}`)
  db.exec(sql)
  report.createdTables.push(name)
}

function reconcileLegacy(db: Database.Database, report: ReconcileReport): void {
  for (const t of [sessions, messages]) addColumns(db, t, report, false)
  for (const [name, table] of Object.entries(CAD_TABLES)) {
    if (!objectExists(db, 'table', name)) createTable(db, table, report, cadName(name))
  }
  // The delegation ledger is Caduceus's own feature table; an older upstream never reads it.
  for (const t of [asyncDelegations, delegationChildUsage]) {
    createTable(db, t, report)
    addColumns(db, t, report)
  }
}

function reconcileCurrent(db: Database.Database, report: ReconcileReport): void {
  for (const table of DECLARED_TABLES) {
    createTable(db, table, report)
    addColumns(db, table, report)
  }
  for (const sql of INDEX_SQL) db.exec(sql)

  const ftsExisted = objectExists(db, 'table', 'messages_fts')
  if (!ftsExisted) {
    db.exec(FTS_VIEW_SQL)
    db.exec(FTS_TABLE_SQL)
  }
  // Upstream detaches its sync triggers when it marks the index stale (search-gap.ts) and puts them back only with a
  // rebuild: re-attached here they would index some writes and 'delete' rows the index never held.
  if (objectExists(db, 'view', 'messages_fts_src') && !ftsMarkedStale(db))
    for (const sql of FTS_TRIGGER_SQL) db.exec(sql)
  const hasMessages = db.prepare('SELECT 1 FROM messages LIMIT 1').get() !== undefined
  if (!ftsExisted) {
    if (hasMessages) {
      db.exec("INSERT INTO messages_fts(messages_fts) VALUES('rebuild')")
      report.ftsRebuilt = true
    }
    db.prepare('INSERT OR IGNORE INTO state_meta(key, value) VALUES (?, ?)').run(
      'fts_storage_version',
      FTS_STORAGE_VERSION
    )
  }
  if (!objectExists(db, 'table', 'messages_fts_trigram')) {
    try {
      db.exec('SAVEPOINT cad_trigram')
      db.exec(TRIGRAM_VIEW_SQL)
      db.exec(TRIGRAM_TABLE_SQL)
      for (const sql of TRIGRAM_TRIGGER_SQL) db.exec(sql)
      if (hasMessages) db.exec("INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('rebuild')")
      db.exec('RELEASE cad_trigram')
    } catch {
      // SQLite without the trigram tokenizer: soft-fail like upstream; substring search falls back to a scan.
      db.exec('ROLLBACK TO cad_trigram')
      db.exec('RELEASE cad_trigram')
    }
  }
  // Only stamp when absent: an older stamped version is upstream's cue to run its own migrations.
  const version = db.prepare<unknown[], number | null>('SELECT MAX(version) FROM schema_version').pluck().get()
  if (version === null) db.prepare('INSERT INTO schema_version(version) VALUES (?)').run(SCHEMA_VERSION)
}

/**
 * Upstream's optional CJK-bigram index (hermes-spec §1.3 "CJK index"): an install that has the loadable
 * `cjk_unicode61` tokenizer keeps `messages_fts_cjk` in sync with three triggers on `messages`. This SQLite
 * cannot load that tokenizer, so any insert, update or delete of a message would fail inside those triggers
 * ("no such tokenizer"). Upstream's own rule for a process without the extension is applied: record the index as
 * stale (`fts_cjk_stale` = '1', so an upstream with the extension serves it again only after rebuilding it) and
 * drop the three triggers, so writes keep working. The index itself is left in place. Runs in a write transaction.
 */
const CJK_TRIGGERS = ['messages_fts_cjk_insert', 'messages_fts_cjk_delete', 'messages_fts_cjk_update'] as const

export function detachUnservableCjk(db: Database.Database): boolean {
  const live = db
    .prepare<unknown[], (typeof sqliteMaster.$inferSelect)['name']>(
      `SELECT name FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)`
    )
    .pluck()
    .all(...CJK_TRIGGERS)
  if (live.length === 0) return false
  try {
    // Only a query (not a bare SELECT) makes FTS5 load the table's tokenizer.
    db.prepare("SELECT rowid FROM messages_fts_cjk('x') LIMIT 1").all()
    return false
  } catch (e) {
    if (!/no such (tokenizer|table)/i.test(errorMessage(e))) throw e
  }
  db.prepare(
    "INSERT INTO state_meta(key, value) VALUES ('fts_cjk_stale', '1') ON CONFLICT(key) DO UPDATE SET value = '1'"
  ).run()
  for (const name of live) db.exec(`DROP TRIGGER IF EXISTS ${name}`)
  return true
}

/** Runs inside the caller's write transaction. */
export function reconcile(db: Database.Database, shape: Pick<HomeShape, 'legacy'>): ReconcileReport {
  const report: ReconcileReport = { createdTables: [], addedColumns: [], ftsRebuilt: false, cjkDetached: false }
  report.cjkDetached = detachUnservableCjk(db)
  if (shape.legacy) reconcileLegacy(db, report)
  else reconcileCurrent(db, report)
  return report
}
