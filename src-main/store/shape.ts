/**
 * What a home's state.db really looks like, read once per open without any lock beyond a read: the upstream
 * schema version, primary keys of the usage tables, the FTS layout (v30 external-content or legacy inline,
 * trigram or not) and which columns exist. Writes and reads pick their SQL from this, so an older upstream
 * Hermes sharing the file keeps working (hermes-spec §1.3 "Legacy (pre-v23)"). Re-detected when SQLite's
 * schema cookie moves (any DDL by any process).
 */
import type Database from 'better-sqlite3'
import { SCHEMA_VERSION, type pragmaTableInfo, type sqliteMaster } from './schema'
import type { ColumnsOf } from './stmt-cache'

/** What a table's column list is read as here. */
type ColumnInfo = ColumnsOf<typeof pragmaTableInfo, 'name' | 'pk'>

/**
 * The newest upstream schema Caduceus has been checked against. v31 (NousResearch/hermes-agent, hermes_state_common
 * @ 0ebb0462) adds message identity (message_uid & co., with a trigger minting the uid for a writer that binds
 * none), sessions.auto_archived and session_daily_usage in SCHEMA_SQL: read and written beside as it is
 * (test/nous-v31-home.test.ts); appends and imports bind the identity columns as upstream's writer does
 * (store/message-identity.ts, test/nous-v31-identity.test.ts). Caduceus still creates homes at SCHEMA_VERSION; upstream migrates them on open.
 */
const UNDERSTOOD_SCHEMA_VERSION = 31

export type FtsLayout = 'external' | 'inline' | 'none'

export interface HomeShape {
  /** MAX(schema_version.version); null when the table or its row is absent (a home Caduceus may shape). */
  version: number | null
  /** PRAGMA schema_version at detection time. */
  cookie: number
  /** An upstream older than the schema Caduceus writes: create or reshape nothing that upstream owns. */
  legacy: boolean
  /** Written by an upstream newer than Caduceus knows: served, with a notice. */
  newer: boolean
  tables: Set<string>
  columns: Map<string, Set<string>>
  usageKey: string[] | null
  dailyKey: string[] | null
  fts: FtsLayout
  ftsColumns: string[]
  trigram: FtsLayout
  trigramColumns: string[]
}

function pkOf(db: Database.Database, table: string): string[] | null {
  const rows = db.prepare<unknown[], ColumnInfo>(`PRAGMA main.table_info("${table}")`).all()
  if (rows.length === 0) return null
  const pk = rows
    .filter((r) => r.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((r) => r.name)
  return pk.length ? pk : null
}

function ftsLayout(sql: string | undefined): FtsLayout {
  if (!sql) return 'none'
  return /content\s*=\s*'[^']+'/i.test(sql) ? 'external' : 'inline'
}

/** Prepared once per connection: the cookie is read on every `shape` look (several per turn), compiling costs more. */
const cookieReads = new WeakMap<Database.Database, Database.Statement>()

export function schemaCookie(db: Database.Database): number {
  let read = cookieReads.get(db)
  if (!read) cookieReads.set(db, (read = db.prepare('PRAGMA schema_version').pluck()))
  return Number(read.get())
}

export function detectShape(db: Database.Database): HomeShape {
  const cookie = schemaCookie(db)
  const master = db
    .prepare<unknown[], ColumnsOf<typeof sqliteMaster, 'type' | 'name' | 'sql'>>(
      "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view')"
    )
    .all()
  const tables = new Set(master.map((r) => r.name))
  const columns = new Map<string, Set<string>>()
  for (const t of [
    'sessions',
    'messages',
    'session_model_usage',
    'session_daily_usage',
    'system_prompts',
    'state_meta'
  ]) {
    if (!tables.has(t)) continue
    columns.set(
      t,
      new Set(
        db
          .prepare<unknown[], ColumnInfo>(`PRAGMA main.table_info("${t}")`)
          .all()
          .map((r) => r.name)
      )
    )
  }
  let version: number | null = null
  if (tables.has('schema_version')) {
    const v = db.prepare<unknown[], number | null>('SELECT MAX(version) FROM schema_version').pluck().get()!
    version = v === null ? null : Number(v)
  }
  const sqlOf = (name: string) => master.find((r) => r.name === name)?.sql ?? undefined
  const ftsCols = (name: string) =>
    tables.has(name)
      ? db
          .prepare<unknown[], ColumnInfo>(`PRAGMA main.table_info("${name}")`)
          .all()
          .map((r) => r.name)
      : []
  return {
    version,
    cookie,
    legacy: version !== null && version < SCHEMA_VERSION,
    newer: version !== null && version > UNDERSTOOD_SCHEMA_VERSION,
    tables,
    columns,
    usageKey: tables.has('session_model_usage') ? pkOf(db, 'session_model_usage') : null,
    dailyKey: tables.has('session_daily_usage') ? pkOf(db, 'session_daily_usage') : null,
    fts: ftsLayout(sqlOf('messages_fts')),
    ftsColumns: ftsCols('messages_fts'),
    trigram: ftsLayout(sqlOf('messages_fts_trigram')),
    trigramColumns: ftsCols('messages_fts_trigram')
  }
}

export const hasColumn = (s: HomeShape, table: string, col: string) => s.columns.get(table)?.has(col) ?? false

/** A one-line notice for a home whose schema Caduceus does not fully know, or null. */
export function shapeNotice(s: HomeShape): string | null {
  if (s.newer)
    return `state.db has schema version ${s.version}, newer than this Caduceus knows (${UNDERSTOOD_SCHEMA_VERSION}); shown as far as it is understood`
  return null
}
