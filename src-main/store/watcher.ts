/**
 * Cross-process change detection for one store. A dedicated connection polls `PRAGMA data_version` —
 * which moves only when ANOTHER connection commits (other processes and this process's writer alike) —
 * woken by fs.watch on the DB folder (-wal/db writes), by own commits via `store.onLocalChange`, and by
 * a slow fallback tick. An idle DB costs one tiny pragma per tick. On a version change the watcher diffs
 * new message ids and the visible session columns (a TEMP-table snapshot, watcher-prints.ts), so a write
 * that changes nothing visible emits nothing. Wake-ups are coalesced (leading + trailing edge) into one callback per burst.
 * The diff runs on the host's thread after every commit, its own included: where the WAL's new frames say which rows
 * the commits wrote (wal-pages.ts) only those sessions are compared, else every one (~6 ms of CPU per 10,000).
 *
 * data_version never moves on a file that was replaced (a backup renamed over state.db) or deleted: the
 * connection keeps the old inode. So each check first compares the file the connection has open with the one
 * the path names now (one stat); on a change the store and the watcher reopen, every session the old file and
 * the new one hold is named (everything may have changed), and `onFile` says what happened. A profile without
 * state.db is watched the same way (its folder and the tick), so a file another program creates is noticed.
 */
import Database from 'better-sqlite3'
import { sqliteOptions } from './open'
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'
import { bindingOf, openFileOf, readPathOf, sqliteOf, type SessionStore } from './session-store'
import { fileAt, type FileChange } from './open'
import { advanceActivity } from './activity-index'
import { VisiblePrints } from './watcher-prints'
import { rowidsWritten, walMark, WalFiles, type WalMark } from './wal-pages'
import { keepListRows, keptFor, keptRowsCommitted, releaseListRows } from './list-kept'
import { readAheadKept } from './read-list-kept'
import type { asyncDelegations, messages } from './schema'
import { errorMessage } from '@shared/contract/errors'

type Delegation = typeof asyncDelegations.$inferSelect
type Message = typeof messages.$inferSelect
/** What a delegation's change is seen by, as raw values. */
type DelegationPrint = [
  Delegation['delegation_id'],
  Delegation['parent_session_id'],
  Delegation['state'],
  Delegation['updated_at']
]

interface SessionsChanged {
  profile: string
  sessionIds: string[]
}
/** Durable delegation rows another process (or this one) inserted, updated or removed. */
export interface DelegationsChanged {
  profile: string
  delegations: Array<{ delegationId: string; parentSessionId: string | null }>
}
export interface WatcherOptions {
  /**
   * Also diff `async_delegations` (id, state, updated_at): upstream's async delegation writes only that table when
   * it completes, which changes no session column or message the session diff sees.
   */
  onDelegations?: (e: DelegationsChanged) => void
  /** Coalescing window (ms). */
  coalesceMs?: number
  /**
   * Fallback poll when no file event arrives (ms, ≥ 1000). Default 2000 without a working file watch; with
   * one, 15000 — the watch plus its follow-up probes catch commits, so an idle host does (almost) nothing.
   */
  fallbackMs?: number
  /**
   * The file behind the store's path was replaced, appeared or was deleted (after the store and the watcher
   * reopened, before the change is named through the callback). A profile's count changed with it.
   */
  onFile?: (change: Exclude<FileChange, 'same'>) => void
  /**
   * Start from nothing: the sessions already in the file are named by the first check (with `onFile('appeared')`),
   * for a profile that appeared after the host started (another program made its folder and state.db at once).
   */
  announceExisting?: boolean
}

export class SessionWatcher {
  private conn: Database.Database | null = null
  /** The file `conn` has open (`dev:ino`); null with no connection (no state.db yet, or it was deleted). */
  private fileId: string | null = null
  private started = false
  private fsw: FSWatcher | null = null
  private tick: NodeJS.Timeout | null = null
  private window: NodeJS.Timeout | null = null
  private probes: NodeJS.Timeout[] = []
  private busyRetry: NodeJS.Timeout | null = null
  private trailing = false
  private version = -1
  private maxMessageId = 0
  private prints: VisiblePrints | null = null
  /** Where the WAL stood before the last diff's snapshot (null: not a WAL home, or unknown: compare every row). */
  private wal: WalMark | null = null
  /** Descriptors on the connection's file and its -shm (closed when the store closes: see WalFiles). */
  private walFiles: WalFiles | null = null
  /** The store connection whose list rows this watcher keeps current (list-kept.ts). */
  private keptDb: Database.Database | null = null
  /**
   * A file change whose new file could not be read once the old connection was gone: its kind and the old file's
   * sessions, named with the new file's by the reopen that succeeds.
   */
  private unfinished: { change: Exclude<FileChange, 'same'>; ids: string[] } | null = null
  /** delegation_id → "state|updated_at" and its parent, as last seen (the table is pruned upstream: small). */
  private delegations = new Map<string, { print: string; parent: string | null }>()
  private changedDelegations: DelegationsChanged['delegations'] = []
  private unsubscribe: (() => void) | null = null
  /** Unregisters this watcher's SessionStore.beforeMove hook on the file it is installed on. */
  private leaveOnMove: (() => void) | null = null
  /**
   * Counters for tests and the bench: version changes seen vs callbacks emitted; `rowDiffs`: diffs that compared only
   * the rows the WAL's new frames hold (the others compared every session).
   */
  readonly stats = { checks: 0, versionChanges: 0, emits: 0, rowDiffs: 0 }
  private readonly coalesceMs: number
  private readonly fallbackMs: number | null
  private readonly onDelegations: ((e: DelegationsChanged) => void) | null
  private readonly onFile: WatcherOptions['onFile']
  private readonly announceExisting: boolean

  constructor(
    private readonly store: SessionStore,
    private readonly onChange: (e: SessionsChanged) => void,
    opts: WatcherOptions = {}
  ) {
    this.onDelegations = opts.onDelegations ?? null
    this.coalesceMs = Math.max(1, opts.coalesceMs ?? 50)
    this.fallbackMs = opts.fallbackMs === undefined ? null : Math.max(1000, opts.fallbackMs)
    this.onFile = opts.onFile
    this.announceExisting = opts.announceExisting === true
  }

  start(): this {
    if (this.started) return this
    this.started = true
    if (!this.announceExisting) this.openConn(openFileOf(this.store))
    const dbName = basename(this.store.path)
    try {
      this.fsw = watch(dirname(this.store.path), { persistent: false }, (_event, file) => {
        if (!file || file === dbName || file === `${dbName}-wal`) this.onFileEvent()
      })
      this.fsw.on('error', () => {
        this.fsw?.close()
        this.fsw = null
      }) // fall back to the tick alone
    } catch {
      this.fsw = null // no watch on this file system: the tick alone (at its shorter interval)
    }
    this.tick = setInterval(() => this.trigger(), this.fallbackMs ?? (this.fsw ? 15_000 : 2000))
    this.tick.unref()
    const offLocal = this.store.onLocalChange(() => this.trigger())
    // a new copy of a home read from one is whole (taken off the loop since the last look): followed now
    const offCopy = this.store.onCopyReady(() => this.trigger())
    this.unsubscribe = () => {
      offLocal()
      offCopy()
    }
    if (this.announceExisting) this.trigger()
    // rows the store found unchecked at its open (written while nobody watched) are rechecked while this watches
    this.store.noteRowsWritten([])
    return this
  }

  /** Opens the watcher's connection on the file the store has open (none while the profile has no state.db). */
  private openConn(storeFile: string | null): void {
    const conn = this.connect(storeFile)
    if (conn) this.install(conn, storeFile!)
  }

  /**
   * A connection on the file the store has open (`storeFile`), or null when there is none or the path names another
   * file by now (a second swap since the store reopened: the next check's `syncFile` follows it, and both land on
   * the same file). Throws when what is there cannot be opened (a lock, a half-written file).
   */
  private connect(storeFile: string | null): Database.Database | null {
    // The file the store reads: state.db, or the private copy read in its place (read-copy.ts).
    const path = readPathOf(this.store)
    if (storeFile === null || fileAt(path)?.id !== storeFile) return null
    const conn = new Database(path, sqliteOptions(bindingOf(this.store), { fileMustExist: true }))
    // Checked again once connected: the path named the store's file before and after the open, so it is the one
    // the connection has.
    if (fileAt(path)?.id !== storeFile) {
      conn.close()
      return null
    }
    return conn
  }

  /** The watcher's state on `conn`, whose file is the store's (`storeFile`). */
  private install(conn: Database.Database, storeFile: string): void {
    this.conn = conn
    this.fileId = storeFile
    const files = (this.walFiles = new WalFiles(readPathOf(this.store), storeFile))
    // Closed once the store's connection is, never while it may hold SQLite's locks on these files.
    this.store.onClose(() => files.close())
    this.leaveOnMove?.()
    this.leaveOnMove = this.store.beforeMove(() => this.letGo())
    // Never sleep on the event loop for a foreign lock (a rollback-journal home blocks readers during a write):
    // a locked check fails at once and is retried on a timer.
    conn.pragma('busy_timeout = 0')
    conn.pragma('temp_store = MEMORY') // the visible-columns snapshot lives in a TEMP table on this connection
    this.prints = new VisiblePrints(conn)
    this.version = this.dataVersion()
    try {
      this.snapshot()
    } catch {
      /* a stale read-only DB: checks will keep returning [] rather than crash */
    }
    try {
      this.keptDb = sqliteOf(this.store)
      keepListRows(this.keptDb, () => walMark(files), this.wal)
    } catch {
      this.keptDb = null // no connection to keep rows for: every list reads the file
    }
  }

  /**
   * The store is about to open a replacement file beside this file's -wal/-shm (SessionStore.beforeMove): this
   * watcher's connection and descriptors on the old file go first, and the sessions it showed are named once the
   * watcher is on the new file (followFile), as for any replacement.
   */
  private letGo(): void {
    if (!this.conn) return
    const ids = this.oldFileIds()
    const files = this.walFiles
    this.closeConn()
    files?.close()
    this.unfinished = { change: 'replaced', ids }
  }

  /** Every session the file being left showed: those a failed move still owes, and the snapshot's. */
  private oldFileIds(): string[] {
    const ids = this.unfinished?.ids ?? []
    try {
      return [...new Set([...ids, ...(this.prints?.ids() ?? [])])]
    } catch {
      return ids // the old snapshot is unreadable: the new file's sessions are still named
    }
  }

  private closeConn(): void {
    try {
      this.conn?.close()
    } catch {
      /* already closed */
    }
    // The store has moved to another file (a swap, a delete): no connection of this process is left on this one, so
    // its descriptors go now. Still on it (a stop): they wait for the store's close.
    if (this.walFiles && openFileOf(this.store) !== this.walFiles.fileId) this.walFiles.close()
    if (this.keptDb) releaseListRows(this.keptDb)
    this.keptDb = null
    this.conn = null
    this.fileId = null
    this.prints = null
    this.wal = null
    this.walFiles = null
    this.maxMessageId = 0
    this.version = -1
  }

  /**
   * The store's file changed (replaced, appeared, deleted): both reopen, and the ids to name are every session
   * the old file showed and every one the new file holds. Null when the file is the same one, or when the new file
   * cannot be opened yet: the old connection and its sessions are kept until a reopen succeeds, so the next check
   * still calls it a replacement and names the sessions only the old file held.
   */
  private followFile(): string[] | null {
    try {
      this.store.syncFile()
    } catch {
      // What is there cannot be opened yet: a copy in progress, or the old file's -wal/-shm still beside the new one
      // (upstream's snapshot restore leaves them). The wait ends without an event here, so look again shortly rather
      // than at the slow tick.
      this.retrySoon()
      return null
    }
    const storeFile = openFileOf(this.store)
    // After letGo this watcher is on no file, like the store after a delete: the move it owes is still to be named.
    if (storeFile === this.fileId && !this.unfinished) return null
    const change: Exclude<FileChange, 'same'> =
      storeFile === null ? 'deleted' : (this.unfinished?.change ?? (this.conn === null ? 'appeared' : 'replaced'))
    let next: Database.Database | null = null
    if (storeFile !== null) {
      try {
        next = this.connect(storeFile)
      } catch {
        return null // a lock or a half-written file: the next check opens it
      }
      if (!next) return null // the path has moved on again: the next check follows the store there
    }
    let ids = this.oldFileIds()
    this.closeConn()
    if (next) {
      try {
        this.install(next, storeFile!)
        ids = [...new Set([...ids, ...this.prints!.ids()])]
      } catch {
        // The new file cannot be read yet: the next check opens it, and still names the old file's sessions.
        this.closeConn()
        this.unfinished = { change, ids }
        return null
      }
    }
    this.unfinished = null
    this.stats.versionChanges++
    try {
      this.onFile?.(change)
    } catch {
      /* listener bugs stay theirs */
    }
    return ids
  }

  stop(): void {
    this.started = false
    this.leaveOnMove?.()
    this.leaveOnMove = null
    this.unsubscribe?.()
    this.unsubscribe = null
    this.fsw?.close()
    this.fsw = null
    if (this.tick) clearInterval(this.tick)
    if (this.window) clearTimeout(this.window)
    for (const t of this.probes) clearTimeout(t)
    if (this.busyRetry) clearTimeout(this.busyRetry)
    this.busyRetry = null
    this.probes = []
    this.tick = this.window = null
    this.closeConn()
  }

  /**
   * Leading edge runs now; anything arriving inside the window gets one trailing check. The window opens
   * only after a check that saw a commit: a check that found nothing costs one pragma, so it needs no
   * throttle — and the commit's own file event, arriving a moment later, is then handled immediately.
   */
  trigger(): void {
    if (!this.started) return
    if (this.window) {
      this.trailing = true
      return
    }
    const seen = this.stats.versionChanges
    this.check()
    if (this.stats.versionChanges === seen) return
    this.window = setTimeout(() => {
      this.window = null
      if (this.trailing) {
        this.trailing = false
        this.trigger()
      }
    }, this.coalesceMs)
    this.window.unref()
  }

  /**
   * A commit writes WAL frames (a file event) and only then publishes them in the mmapped -shm index,
   * which inotify never sees — so a check right on the event can still read the old data_version. Two
   * cheap follow-up probes close that gap instead of leaving it to the fallback tick.
   */
  private onFileEvent(): void {
    this.trigger()
    if (this.probes.length) return
    for (const ms of [10, 40]) {
      const t = setTimeout(() => {
        this.probes = this.probes.filter((p) => p !== t)
        this.trigger()
      }, ms)
      t.unref()
      this.probes.push(t)
    }
  }

  /** Settle pending work, then check once more (tests and shutdown). */
  async flush(): Promise<void> {
    while (this.window) await new Promise((r) => setTimeout(r, this.coalesceMs))
    this.check()
  }

  /**
   * The list's rows this watcher keeps current (list-kept.ts): pages they answered since this file was opened, and
   * sessions read from the file for them, ahead of a page or by it.
   */
  get listRows(): { pages: number; read: number } {
    const k = this.keptDb ? keptFor(this.keptDb) : undefined
    return { pages: k?.pages ?? 0, read: k?.read ?? 0 }
  }

  /** Returns the changed ids it emitted ([] when nothing visible changed). */
  check(): string[] {
    if (!this.started) return []
    this.stats.checks++
    const changed = this.followFile() ?? this.committed()
    if (changed === null) return []
    this.advanceList()
    if (this.keptDb) readAheadKept(this.keptDb)
    if (changed.length) {
      this.stats.emits++
      try {
        this.onChange({ profile: this.store.profile, sessionIds: changed })
      } catch {
        /* listener bugs stay theirs */
      }
    }
    const delegations = this.changedDelegations
    this.changedDelegations = []
    if (delegations.length && this.onDelegations)
      try {
        this.onDelegations({ profile: this.store.profile, delegations })
      } catch {
        /* listener bugs stay theirs */
      }
    return changed
  }

  /** Ids a commit changed since the last check (null: no commit, or a locked moment retried shortly). */
  private committed(): string[] | null {
    if (!this.conn) return null
    try {
      const v = this.dataVersion()
      if (v === this.version) return null
      const changed = this.diff()
      this.version = v // only once the diff succeeded: a locked moment must not lose the change
      this.stats.versionChanges++
      return changed
    } catch {
      // A locked/corrupt moment: retry shortly (a foreign lock's release may bring no file event we watch).
      if (this.conn) this.retrySoon()
      return null
    }
  }

  /** One check again in 250 ms: a moment that will pass without a file event this watcher hears. */
  private retrySoon(): void {
    if (this.busyRetry || !this.started) return
    this.busyRetry = setTimeout(() => {
      this.busyRetry = null
      this.trigger()
    }, 250)
    this.busyRetry.unref()
  }

  /**
   * A commit moved the file: the store's list index (activity-index.ts) catches up now, before listeners hear of
   * it, so the list request that follows pays only its "is it current" check. Best effort: on failure (a foreign
   * lock) the request path catches up itself.
   */
  private advanceList(): void {
    try {
      advanceActivity(sqliteOf(this.store))
    } catch {
      /* the next list read catches up */
    }
  }

  /** This connection reads through a WAL (a rollback-journal home's commits leave no frames to read). */
  private inWal(): boolean {
    return String(this.conn!.pragma('journal_mode', { simple: true })) === 'wal'
  }

  private dataVersion(): number {
    return Number(this.conn!.pragma('data_version', { simple: true }))
  }

  private snapshot(): void {
    const conn = this.conn!
    this.wal = null
    const mark = walMark(this.walFiles!)
    conn.transaction(() => {
      this.maxMessageId = Number(
        conn.prepare<unknown[], number>('SELECT COALESCE(MAX(id), 0) FROM messages').pluck().get()
      )
      this.prints!.reset()
      if (this.onDelegations) this.delegations = this.readDelegations()
    })()
    this.wal = mark
  }

  /** Every durable delegation's print; none when the table does not exist (a home no delegation ever touched). */
  private readDelegations(): Map<string, { print: string; parent: string | null }> {
    const out = new Map<string, { print: string; parent: string | null }>()
    let rows: DelegationPrint[]
    try {
      rows = this.conn!.prepare<unknown[], DelegationPrint>(
        'SELECT delegation_id, parent_session_id, state, updated_at FROM async_delegations'
      )
        .raw()
        .all()
    } catch (err) {
      if (/no such table/i.test(errorMessage(err))) return out
      throw err // locked: the whole check retries
    }
    for (const [id, parent, state, updated] of rows) out.set(id, { print: `${state}|${updated}`, parent })
    return out
  }

  private diffDelegations(): void {
    const now = this.readDelegations()
    const changed: DelegationsChanged['delegations'] = []
    for (const [id, row] of now) {
      const was = this.delegations.get(id)
      if (!was || was.print !== row.print) changed.push({ delegationId: id, parentSessionId: row.parent })
    }
    for (const [id, row] of this.delegations)
      if (!now.has(id)) changed.push({ delegationId: id, parentSessionId: row.parent })
    this.delegations = now
    this.changedDelegations = changed
  }

  private diff(): string[] {
    const conn = this.conn!
    const ids = new Set<string>()
    // Read before the snapshot begins: the next diff reads the frames after it (some of them again, which only widens).
    const mark = walMark(this.walFiles!)
    let written: number[] | null = null
    conn.transaction(() => {
      const fresh = conn
        .prepare<unknown[], [Message['session_id'], Message['id']]>(
          'SELECT session_id, id FROM messages WHERE id > ? ORDER BY id'
        )
        .raw()
        .all(this.maxMessageId)
      for (const [sid, id] of fresh) {
        ids.add(sid)
        this.maxMessageId = Math.max(this.maxMessageId, Number(id))
      }
      // The snapshot is fixed by the read above: the frames committed by now include every one it sees.
      const rows = this.wal && this.inWal() ? rowidsWritten(this.walFiles!, this.wal) : null
      if (rows) this.stats.rowDiffs++
      // rows rewritten in place are re-read by the short-text index (short-index.ts Rechecks); null: it cannot tell
      this.store.noteRowsWritten(rows)
      for (const id of this.prints!.diff(rows ?? undefined)) ids.add(id)
      written = rows
      if (this.onDelegations) this.diffDelegations()
    })()
    if (this.keptDb) keptRowsCommitted(this.keptDb, this.wal, mark, written, ids)
    this.wal = mark
    return [...ids]
  }
}
