/**
 * A new state.db in a home that already has one takes that one's shape. Upstream is not one schema: the v21 upstream
 * keys `session_model_usage` by five columns, v30 adds `task` to the key, and each writes its usage with an
 * `ON CONFLICT` naming its own key — against the other key SQLite refuses the statement, and upstream's whole usage
 * update (the session's token counters included) rolls back. So a profile Caduceus writes first gets the schema the
 * home's upstream made for its other profiles (tables, indexes, triggers, FTS tables and the schema_version it
 * stamped), and reconcile then adds what Caduceus needs as it does on any home of that version. Without a sibling
 * (a new home) the current schema is made.
 */
import Database from 'better-sqlite3'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { isBusy } from './write-queue'
import type { sqliteMaster } from './schema'
import type { ColumnsOf } from './stmt-cache'

/** Tables FTS5 makes for itself with its virtual table: created again by the CREATE VIRTUAL TABLE. */
const FTS_SHADOW = ['data', 'idx', 'content', 'docsize', 'config']

/**
 * The home's other state.db to copy the shape from: the root's (the default profile's), else the profile's that
 * changed last. `file` is `<root>/state.db` or `<root>/profiles/<name>/state.db`.
 */
export function shapeTemplate(file: string): string | null {
  const dir = dirname(file)
  const root = basename(dirname(dir)) === 'profiles' ? dirname(dirname(dir)) : dir
  const rootDb = join(root, 'state.db')
  if (rootDb !== file && existsSync(rootDb)) return rootDb
  let best: { path: string; at: number } | null = null
  try {
    for (const name of readdirSync(join(root, 'profiles'))) {
      const path = join(root, 'profiles', name, 'state.db')
      if (path === file) continue
      try {
        const at = statSync(path).mtimeMs
        if (!best || at > best.at) best = { path, at }
      } catch {
        /* no state.db in that profile */
      }
    }
  } catch {
    return null // no profiles folder
  }
  return best?.path ?? null
}

/** A schema object copied with its CREATE text (selected where `sql IS NOT NULL`). */
type SchemaObject = ColumnsOf<typeof sqliteMaster, 'type' | 'name'> & {
  sql: NonNullable<(typeof sqliteMaster.$inferSelect)['sql']>
}

/**
 * Copies `template`'s schema (never its rows) into the empty `db` and stamps its schema_version. False, with `db`
 * untouched, when the template cannot be read (unreadable, not a database): the caller makes the current schema
 * instead. A template another program holds locked throws busy, so the write creating this file retries.
 * Caduceus's own `cad_` objects (and the indexes and triggers on them) are left out: reconcile makes what this home
 * needs.
 */
export function copyShape(db: Database.Database, template: string, options: Database.Options): boolean {
  let rows: SchemaObject[]
  let version: number | null = null
  let ftsFormat: unknown = null
  try {
    // The addon build `db` was opened with (options.nativeBinding): under Electron the one npm installed cannot load.
    const tpl = new Database(template, { ...options, readonly: true, fileMustExist: true, timeout: 0 })
    try {
      rows = tpl
        .prepare<unknown[], SchemaObject>(
          `SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            AND name NOT LIKE 'cad\\_%' ESCAPE '\\' AND tbl_name NOT LIKE 'cad\\_%' ESCAPE '\\'
          ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid`
        )
        .all()
      if (rows.some((r) => r.type === 'table' && r.name === 'schema_version'))
        version = tpl.prepare<unknown[], number | null>('SELECT MAX(version) FROM schema_version').pluck().get()!
      // The FTS tables' storage format goes with their schema: a file without it reads to upstream as the old format.
      if (rows.some((r) => r.type === 'table' && r.name === 'state_meta'))
        ftsFormat = tpl.prepare("SELECT value FROM state_meta WHERE key = 'fts_storage_version'").pluck().get() ?? null
    } finally {
      tpl.close()
    }
  } catch (err) {
    if (isBusy(err)) throw err // the template is being written: the write that creates this file retries
    return false
  }
  const virtual = rows.filter((r) => /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(r.sql)).map((r) => r.name)
  const shadow = new Set(virtual.flatMap((v) => FTS_SHADOW.map((s) => `${v}_${s}`)))
  const copy = db.transaction(() => {
    for (const r of rows) if (!shadow.has(r.name)) db.exec(r.sql)
    if (version !== null) db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version)
    if (ftsFormat !== null)
      db.prepare("INSERT INTO state_meta (key, value) VALUES ('fts_storage_version', ?)").run(ftsFormat)
  })
  try {
    copy() // DDL is transactional: a schema this SQLite cannot make (a tokenizer it lacks) leaves `db` empty
    return true
  } catch {
    // the caller makes the current schema instead (see above)
    return false
  }
}
