/**
 * Opening a profile's state.db. Opening only reads: it checks the file is a database, detects the home's
 * shape (shape.ts) and changes nothing — no journal-mode switch, no DDL, no file created. The first write
 * calls `prepareForWrite()`: it creates a missing file complete and atomically (create.ts: 0600, WAL unless
 * configured otherwise), switches an existing home to WAL (DELETE fallback) and the write transaction then
 * reconciles additively. An empty file counts as missing; a foreign lock met while opening is passed on as busy
 * (retried), never reported as an unreadable file. So a file Caduceus refuses is never touched, a profile
 * folder without state.db gets none until something is written, and reads never take the write lock.
 */
import Database from 'better-sqlite3'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { chmodSync, existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { CaduceusError } from '@shared/contract'
import * as schema from './schema'
import { detachUnservableCjk, missingColumns, reconcile, type ReconcileReport } from './reconcile'
import { applyReadShim, dropReadShim, restoreShimState, shimViews } from './read-shim'
import { detectShape, schemaCookie, shapeNotice, type HomeShape } from './shape'
import { isBusy } from './write-queue'
import { createStateDb } from './create'
import { copyShape, shapeTemplate } from './shape-template'
import { errorMessage, isNotFound } from '@shared/contract/errors'
import { registerFold } from './fold'
import {
  copyReason,
  dropCopy,
  readCopyNotice,
  readCopyRefusal,
  takeCopy,
  whyNotWritable,
  type ReadCopy
} from './read-copy'
import { CopyPending } from './read-copy-refresh'

export interface OpenOptions {
  readonly?: boolean
  /** ms SQLite itself waits on a lock before SQLITE_BUSY; write() adds retries on top. */
  busyTimeoutMs?: number
  /**
   * SessionStore: leave a missing state.db uncreated until the first write (profile folders discovered by the
   * registry). Without it a missing file is created on construction, so `store.db` is the file from the start.
   */
  lazyCreate?: boolean
  /**
   * The profile's `database.journal_mode` (config.yaml, as upstream reads it): 'delete' keeps a rollback-journal
   * home as it is; anything else means WAL. Read at the first write. An on-disk WAL file is never downgraded.
   */
  journalMode?: () => string | undefined
  /** Told once, in words, when the first write could not switch the home to WAL (kept in its own mode). */
  onJournalNotice?: (message: string) => void
  /** The better-sqlite3 addon build to load (the app's Electron-ABI copy); unset: the one npm installed. */
  nativeBinding?: string
}

export interface StateDb {
  path: string
  readonly: boolean
  sqlite: Database.Database
  orm: BetterSQLite3Database<typeof schema>
  journalMode: string
  /** What the first write's reconcile did; null until then (and on read-only opens). */
  reconcile: ReconcileReport | null
  /** Declared columns the DB lacks (`table.column`); reads tolerate them. */
  missing: string[]
  /** The home's detected shape (re-detected when the schema cookie moves). */
  shape: HomeShape
  /** A visible notice for the user (e.g. a newer upstream schema), or null. */
  notice: string | null
  /** No state.db on disk yet: reads see an empty in-memory schema until the first write creates the file. */
  pending: boolean
  /** True once this connection has been prepared for writing (file + WAL). */
  writable: boolean
  /**
   * Which file the connection has open (`dev:ino` of the path when it was opened; null while pending). A backup
   * restored by a rename over state.db leaves the connection on the deleted inode: comparing this with the path's
   * identity now (`fileAt`) is how the store and its watcher notice (session-store.ts `syncFile`).
   */
  fileId: string | null
  /** True once a write transaction that reconciled has committed (a rolled-back one reconciles again). */
  reconciled: boolean
  /** From OpenOptions: the configured journal mode and where a failed WAL switch is reported. */
  journalConfig?: Pick<OpenOptions, 'journalMode' | 'onJournalNotice'>
  /** From OpenOptions: the addon build every connection on this file loads (the watcher's and the template's too). */
  nativeBinding?: string
  /** Set when `sqlite` reads a private copy of the file, which this user cannot read in place (read-copy.ts). */
  readCopy?: ReadCopy
}

/**
 * What is at `path` now: its identity (`dev:ino`) and size, or null when nothing is there (ENOENT/ENOTDIR). Any other
 * failure (no permission to search the folder, a symlink loop) throws: read as "no file", it made a profile whose
 * state.db this process may not see look empty (or deleted, under an open store) instead of unreadable.
 */
export function fileAt(path: string): { id: string; size: number } | null {
  try {
    const st = statSync(path, { bigint: true })
    return { id: `${st.dev}:${st.ino}`, size: Number(st.size) }
  } catch (err) {
    if (isNotFound(err)) return null
    throw err
  }
}

/** How the file behind a store's path changed since it was opened (session-store.ts `syncFile`). */
export type FileChange = 'same' | 'replaced' | 'appeared' | 'deleted'

function tighten(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if (existsSync(p)) chmodSync(p, 0o600)
    } catch {
      /* not ours to fix (e.g. read-only FS) */
    }
  }
}

/**
 * Options for a better-sqlite3 connection of a store: with the Electron-ABI build of the addon when the host was
 * given one (toolchain.md §7; tests leave it unset). Passed down from the composition root with the store's other
 * open options, never kept process-wide: every connection a store opens (its own, its watcher's, the template it
 * copies a shape from, the file its first write creates) loads the build its host was started with.
 */
export function sqliteOptions(nativeBinding: string | undefined, extra: Database.Options = {}): Database.Options {
  return nativeBinding ? { ...extra, nativeBinding } : extra
}

/** A profile whose state.db cannot be served: the reason names the file, never a stack. */
export class UnreadableStateDbError extends CaduceusError {
  constructor(
    readonly file: string,
    readonly reason: string
  ) {
    super('unavailable', `${file} cannot be read: ${reason}`)
    this.name = 'UnreadableStateDbError'
  }
}

function connect(file: string, readonly: boolean, busyMs: number, binding: string | undefined): Database.Database {
  const sqlite = new Database(file, sqliteOptions(binding, { readonly, fileMustExist: true }))
  try {
    registerFold(sqlite)
    sqlite.pragma(`busy_timeout = ${busyMs}`)
    sqlite.pragma('foreign_keys = ON')
    // SQLite's default page cache (2 MB, ~500 pages) cannot hold what one short CJK/emoji search reads at 500k
    // messages (every matching row, ~6,000 pages): each search re-read them all. 64 MB, filled only as pages are
    // read; any commit by anyone still invalidates it (data_version), so nothing stale is ever served from it.
    sqlite.pragma('cache_size = -65536')
    return sqlite
  } catch (err) {
    sqlite.close()
    throw err
  }
}

/**
 * A second writable connection on an existing state.db, for a long import's own transactions (import-batches.ts):
 * the same functions and pragmas as the store's, no read shim (its TEMP views would shadow the tables written), and
 * busy_timeout 0, so SQLite never sleeps on the event loop waiting for a lock.
 */
export function openImportConnection(path: string, binding?: string): Database.Database {
  return connect(resolve(path), false, 0, binding)
}

function emptySchema(binding: string | undefined): Database.Database {
  const mem = new Database(':memory:', sqliteOptions(binding))
  registerFold(mem)
  mem.transaction(() => reconcile(mem, { legacy: false }))()
  return mem
}

/**
 * A home with no state.db (yet): empty tables in memory, `pending` until the first write creates the file — or until
 * the store sees one appear at the path and opens it (session-store.ts syncFile).
 */
export function noFileYet(path: string, opts: OpenOptions = {}): StateDb {
  const sqlite = emptySchema(opts.nativeBinding)
  const shape = detectShape(sqlite)
  return {
    path: resolve(path),
    readonly: opts.readonly === true,
    sqlite,
    orm: drizzle(sqlite, { schema }),
    journalMode: 'none',
    reconcile: null,
    missing: [],
    shape,
    notice: null,
    pending: true,
    writable: false,
    reconciled: false,
    fileId: null,
    journalConfig: opts,
    nativeBinding: opts.nativeBinding
  }
}

/**
 * `copyOf` takes the private copy a home this user may only read is read from (read-copy.ts): at the first open the
 * copy is taken at once; a store following its original passes one that may throw to say a copy is on its way
 * (read-copy-refresh.ts), which is passed on as it is.
 */
export function openStateDb(
  path: string,
  opts: OpenOptions = {},
  copyOf: (file: string, reason: string) => ReadCopy = takeCopy
): StateDb {
  const file = resolve(path)
  const readonly = opts.readonly === true
  const busyMs = Math.max(0, Math.floor(opts.busyTimeoutMs ?? (readonly ? 5000 : 1000)))
  let at: ReturnType<typeof fileAt>
  try {
    at = fileAt(file)
  } catch (err) {
    throw new UnreadableStateDbError(file, errorMessage(err))
  }
  if (!at && readonly) throw new UnreadableStateDbError(file, 'no such file')
  // An empty file is no database yet (another program is just creating it): like no file, until the first write.
  if (!at || (at.size === 0 && !readonly)) return noFileYet(file, opts)
  // Taken before connecting: a rename over the path right after makes the next check see a change, never miss one.
  const fileId = at.id
  try {
    return openAt(file, file, readonly, busyMs, fileId, opts)
  } catch (err) {
    // A home this user may read but not write, with no -shm beside it: SQLite cannot read it in place (read-copy.ts).
    const reason = isBusy(err) ? null : copyReason(file, err)
    if (!reason) throw isBusy(err) ? err : new UnreadableStateDbError(file, errorMessage(err))
    let copy: ReadCopy
    try {
      copy = copyOf(file, reason)
    } catch (why) {
      if (why instanceof CopyPending) throw why
      throw new UnreadableStateDbError(
        file,
        `${errorMessage(err)} (${reason}; a copy to read failed: ${errorMessage(why)})`
      )
    }
    try {
      // The copy's own identity: the store and its watcher follow the copy as they follow a file (a new copy is a new
      // file); session-store.ts `syncFile` takes a new copy when the original's print changes.
      const copyId = fileAt(copy.file)?.id ?? fileId
      const h = openAt(file, copy.file, true, busyMs, copyId, opts)
      return { ...h, readCopy: copy, notice: [readCopyNotice(copy), h.notice].filter(Boolean).join(' ') }
    } catch (why) {
      dropCopy(copy)
      throw new UnreadableStateDbError(file, errorMessage(why))
    }
  }
}

/** Opens `sqlitePath` (the file itself, or a copy of it read in its place) as the store's connection on `file`. */
function openAt(
  file: string,
  sqlitePath: string,
  readonly: boolean,
  busyMs: number,
  fileId: string,
  opts: OpenOptions
): StateDb {
  // No busy wait until the journal mode is known: under a rollback journal a foreign writer blocks readers, and
  // SQLite's busy handler would sleep on this (the event loop's) thread. Fail fast instead; the host retries reads
  // off the loop (host/dispatch/dispatch.ts). The mode is asked of SQLite, never read from the file's header here:
  // closing a descriptor of our own on the file would drop every lock this process's connections hold on it.
  // A copy is opened writable (SQLite replays the copied -wal into it); the store's handle stays read-only.
  const sqlite = connect(sqlitePath, readonly && sqlitePath === file, 0, opts.nativeBinding)
  try {
    // One read transaction: once its first read holds the lock, no foreign commit lands mid-open (a rollback-journal
    // writer would otherwise make a later step, e.g. an FTS table's constructor, fail as something else than busy).
    sqlite.exec('BEGIN')
    const shape = detectShape(sqlite)
    const journalMode = String(sqlite.pragma('journal_mode', { simple: true }))
    if (journalMode === 'wal') sqlite.pragma(`busy_timeout = ${busyMs}`)
    const missing = missingColumns(sqlite)
    applyReadShim(sqlite) // TEMP views only: the file is not touched
    sqlite.exec('COMMIT')
    return {
      path: file,
      readonly,
      sqlite,
      orm: drizzle(sqlite, { schema }),
      journalMode,
      reconcile: null,
      missing,
      shape,
      notice: shapeNotice(shape),
      pending: false,
      writable: false,
      reconciled: false,
      fileId,
      journalConfig: opts,
      nativeBinding: opts.nativeBinding
    }
  } catch (err) {
    sqlite.close()
    throw err
  }
}

/** Re-detects the shape when any process changed the schema since the last look. Cheap: one pragma. */
export function refreshShape(h: StateDb): HomeShape {
  if (h.pending) return h.shape
  if (schemaCookie(h.sqlite) !== h.shape.cookie) {
    h.shape = detectShape(h.sqlite)
    h.notice = shapeNotice(h.shape)
    h.missing = missingColumns(h.sqlite)
    if (!h.sqlite.inTransaction) applyReadShim(h.sqlite)
  }
  return h.shape
}

/**
 * Before the first write of this open: create the file if it is missing and switch to WAL unless the profile's
 * config asks for the rollback journal (upstream's `database.journal_mode: delete`). Outside any transaction
 * (journal mode cannot change inside one). Idempotent. A switch that fails (a filesystem without WAL support,
 * another program holding the file) is reported once and the home keeps its mode.
 */
export function prepareForWrite(h: StateDb, busyMs = 1000): void {
  if (h.readCopy) throw new CaduceusError('refused', readCopyRefusal(h.path, h.readCopy))
  if (h.readonly) throw new CaduceusError('refused', `${h.path} is open read-only`)
  if (h.writable) return
  // A file this user may only read (its folder or itself not writable; a read-only mount): said in words, not as
  // SQLite's "attempt to write a readonly database" from the middle of the write.
  const notWritable = whyNotWritable(h.path)
  if (notWritable) throw new CaduceusError('refused', `${h.path} cannot be changed: ${notWritable}`)
  const want =
    String(h.journalConfig?.journalMode?.() ?? 'wal')
      .trim()
      .toLowerCase() === 'delete'
      ? 'delete'
      : 'wal'
  if (h.pending) {
    // complete, or the one another process made first
    createStateDb(h.path, want === 'wal', sqliteOptions(h.nativeBinding))
    const fileId = fileAt(h.path)?.id ?? null
    // Busy (a foreign creator still holds it) throws before anything is swapped: write() retries off the loop.
    // busy_timeout 0 until the mode is known, as in openStateDb (and for the same reason no header read of our own).
    const sqlite = connect(h.path, false, 0, h.nativeBinding)
    let shape: HomeShape
    try {
      shape = detectShape(sqlite)
      if (String(sqlite.pragma('journal_mode', { simple: true })) === 'wal') sqlite.pragma(`busy_timeout = ${busyMs}`)
    } catch (err) {
      sqlite.close()
      throw err
    }
    h.sqlite.close()
    Object.assign(h, { sqlite, orm: drizzle(sqlite, { schema }), shape, fileId, pending: false })
    // Made in WAL already (create.ts): the limit the switch below sets on a home it converts.
    if (String(sqlite.pragma('journal_mode', { simple: true })) === 'wal')
      sqlite.pragma('journal_size_limit = 67108864')
  }
  let mode = String(h.sqlite.pragma('journal_mode', { simple: true }))
  let settled = true
  if (mode !== 'wal' && want === 'wal') {
    const busy = Number(h.sqlite.pragma('busy_timeout', { simple: true })) || 0
    h.sqlite.pragma('busy_timeout = 0') // never sleep on the event loop for a foreign lock; retried next write
    let why: string | null = null
    try {
      mode = String(h.sqlite.pragma('journal_mode = WAL', { simple: true }))
      if (mode === 'wal') h.sqlite.pragma('journal_size_limit = 67108864')
      else why = `SQLite kept journal_mode=${mode}`
    } catch (err) {
      // Another process holds the file for a moment: not a reason to give WAL up; the next write tries again.
      if (isBusy(err)) settled = false
      else why = errorMessage(err)
      mode = String(h.sqlite.pragma('journal_mode', { simple: true })) // keep what the filesystem allows
    } finally {
      h.sqlite.pragma(`busy_timeout = ${busy}`)
    }
    if (why)
      h.journalConfig?.onJournalNotice?.(
        `${h.path}: could not switch to WAL (${why}); keeping journal_mode=${mode} for this session`
      )
  }
  h.journalMode = mode
  tighten(h.path)
  h.writable = settled
}

/**
 * First step inside every write transaction (the lock is held): the real tables replace the read views, and
 * the first write of an open reconciles. Returns the views that were in place, for `endWriteTx`/`abortWriteTx`.
 * When the reconcile throws (a read-only file or mount, a full disk) the caller never gets them, so the
 * bookkeeping is put back here: the rollback that follows restores the views themselves.
 */
export function beginWriteTx(h: StateDb): string[] | undefined {
  const views = shimViews(h.sqlite)
  dropReadShim(h.sqlite)
  try {
    reconcileInWrite(h)
  } catch (err) {
    restoreShimState(h.sqlite, views)
    throw err
  }
  return views
}

/** Last step inside the write transaction: views again for whatever the home still lacks (commit keeps them). */
export function endWriteTx(h: StateDb, views: string[] | undefined, firstWrite: boolean): void {
  if (views || firstWrite) applyReadShim(h.sqlite)
}

/** After a rollback the views' DROP/CREATE rolled back too: only the bookkeeping needs restoring. */
export function abortWriteTx(h: StateDb, views: string[] | undefined): void {
  restoreShimState(h.sqlite, views)
}

/** Inside a write transaction until one commits: additive reconcile in the home's shape, then re-detect. */
function reconcileInWrite(h: StateDb): void {
  if (h.reconciled) {
    const cookie = h.shape.cookie
    refreshShape(h)
    // Another process changed the schema since: it may have added CJK triggers this SQLite cannot serve.
    if (h.shape.cookie !== cookie && detachUnservableCjk(h.sqlite)) h.shape = detectShape(h.sqlite)
    return
  }
  let shape = detectShape(h.sqlite)
  // A file created in place (no hard links: create.ts) is still empty: it takes the home's template shape here.
  const template = shape.tables.size === 0 ? shapeTemplate(h.path) : null
  if (template && copyShape(h.sqlite, template, sqliteOptions(h.nativeBinding))) shape = detectShape(h.sqlite)
  h.reconcile = reconcile(h.sqlite, shape)
  h.shape = detectShape(h.sqlite)
  h.notice = shapeNotice(h.shape)
  h.missing = missingColumns(h.sqlite)
}
