/**
 * Additive reconcile (the upstream "declare columns, add the missing ones" pattern): create missing tables,
 * add missing columns, then indices, FTS objects and triggers — all IF NOT EXISTS. Nothing is dropped,
 * renamed or rewritten; unknown tables/columns from a newer upstream stay as they are.
 */
import type Database from 'better-sqlite3'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { addColumnSql, columnFacts, createTableSql } from './schema/ddl'
import {
  DECLARED_TABLES, FTS_STORAGE_VERSION, FTS_TABLE_SQL, FTS_TRIGGER_SQL, FTS_VIEW_SQL, INDEX_SQL, SCHEMA_VERSION
} from './schema'

export interface ReconcileReport {
  createdTables: string[]
  addedColumns: string[]
  ftsRebuilt: boolean
}

export function existingColumns(db: Database.Database, table: string): Set<string> {
  const rows = db.prepare(`PRAGMA table_info("${table.replace(/"/g, '""')}")`).all() as Array<{ name: string }>
  return new Set(rows.map((r) => r.name))
}

function objectExists(db: Database.Database, type: string, name: string): boolean {
  return db.prepare('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?').get(type, name) !== undefined
}

/** Columns the declared schema has but the DB lacks (used by read-only opens, which must not ALTER). */
export function missingColumns(db: Database.Database): string[] {
  const missing: string[] = []
  for (const table of DECLARED_TABLES) {
    const name = getTableConfig(table).name
    const have = existingColumns(db, name)
    if (have.size === 0) { missing.push(`${name}.*`); continue }
    for (const c of columnFacts(table)) if (!have.has(c.name)) missing.push(`${name}.${c.name}`)
  }
  return missing
}

export function reconcile(db: Database.Database): ReconcileReport {
  const report: ReconcileReport = { createdTables: [], addedColumns: [], ftsRebuilt: false }
  // One IMMEDIATE transaction: two processes opening a fresh DB at once must not interleave DDL.
  db.transaction(() => {
    for (const table of DECLARED_TABLES) {
      const name = getTableConfig(table).name
      if (!objectExists(db, 'table', name)) report.createdTables.push(name)
      db.exec(createTableSql(table))
      const have = existingColumns(db, name)
      for (const c of columnFacts(table)) {
        if (have.has(c.name)) continue
        db.exec(addColumnSql(name, c))
        report.addedColumns.push(`${name}.${c.name}`)
      }
    }
    for (const sql of INDEX_SQL) db.exec(sql)

    const ftsExisted = objectExists(db, 'table', 'messages_fts')
    db.exec(FTS_VIEW_SQL)
    db.exec(FTS_TABLE_SQL)
    for (const sql of FTS_TRIGGER_SQL) db.exec(sql)
    if (!ftsExisted) {
      // A DB that had messages but no index (ours just created it): index what is already there.
      if (db.prepare('SELECT 1 FROM messages LIMIT 1').get()) {
        db.exec("INSERT INTO messages_fts(messages_fts) VALUES('rebuild')")
        report.ftsRebuilt = true
      }
      db.prepare('INSERT OR IGNORE INTO state_meta(key, value) VALUES (?, ?)').run('fts_storage_version', FTS_STORAGE_VERSION)
    }
    // Only stamp when absent: an older stamped version is upstream's cue to run its own data migrations,
    // and a newer one must never be lowered.
    const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null }
    if (row.v === null) db.prepare('INSERT INTO schema_version(version) VALUES (?)').run(SCHEMA_VERSION)
  }).immediate()
  return report
}
