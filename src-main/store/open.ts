/**
 * Opening a profile's state.db: file created 0600, WAL (with DELETE fallback), busy timeout, foreign keys,
 * and an additive reconcile on writable opens. The same function serves the app, tests and CLI.
 */
import Database from 'better-sqlite3'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import * as schema from './schema'
import { missingColumns, reconcile, type ReconcileReport } from './reconcile'

export interface OpenOptions {
  readonly?: boolean
  /** ms SQLite itself waits on a lock before SQLITE_BUSY; write() adds jittered retries on top. */
  busyTimeoutMs?: number
}

export interface StateDb {
  path: string
  readonly: boolean
  sqlite: Database.Database
  orm: BetterSQLite3Database<typeof schema>
  journalMode: string
  /** Writable opens: what reconcile did. Read-only opens: null. */
  reconcile: ReconcileReport | null
  /** Read-only opens of a stale DB: declared columns it lacks (`table.column`). */
  missing: string[]
}

function tighten(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    try { if (existsSync(p)) chmodSync(p, 0o600) } catch { /* not ours to fix (e.g. read-only FS) */ }
  }
}

/**
 * Electron runs a different Node ABI than the tests: the app passes an Electron-ABI build of the
 * better-sqlite3 addon here once at start-up (toolchain.md §7); tests leave it unset.
 */
let nativeBinding: string | undefined
export function setSqliteNativeBinding(path: string | undefined): void {
  nativeBinding = path || undefined
}
export function sqliteOptions(extra: Database.Options = {}): Database.Options {
  return nativeBinding ? { ...extra, nativeBinding } : extra
}

export function openStateDb(path: string, opts: OpenOptions = {}): StateDb {
  const file = resolve(path)
  const readonly = opts.readonly === true
  if (!readonly) {
    mkdirSync(dirname(file), { recursive: true })
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600))
  }
  const sqlite = new Database(file, sqliteOptions({ readonly, fileMustExist: readonly }))
  try {
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? (readonly ? 5000 : 1000)))}`)
    let journalMode = String(sqlite.pragma('journal_mode', { simple: true }))
    if (!readonly && journalMode !== 'wal') {
      try {
        journalMode = String(sqlite.pragma('journal_mode = WAL', { simple: true }))
        sqlite.pragma('journal_size_limit = 67108864')
      } catch {
        journalMode = String(sqlite.pragma('journal_mode', { simple: true })) // fall back to what the FS allows
      }
    }
    sqlite.pragma('foreign_keys = ON')
    const report = readonly ? null : reconcile(sqlite)
    if (!readonly) tighten(file)
    return {
      path: file, readonly, sqlite, orm: drizzle(sqlite, { schema }), journalMode, reconcile: report,
      missing: readonly ? missingColumns(sqlite) : []
    }
  } catch (err) {
    sqlite.close()
    throw err
  }
}
