/**
 * SessionStore: the one face over a profile's state.db. Writes go through `write()` (BEGIN IMMEDIATE; a busy
 * DB is retried off the event loop, see write-queue.ts); every write reports the session ids it touched to
 * `onLocalChange` listeners after COMMIT (never after a rollback). Reads never take the write lock (WAL).
 */
import type Database from 'better-sqlite3'
import {
  DEFAULT_PRUNE_DAYS,
  type MessagePage,
  type MessageText,
  type SessionDetail,
  type SessionPage,
  type SessionSummary
} from '@shared/contract'
import { ownerProfileForDb } from './owner'
import type { ConversationMessage, CreateSessionOptions, NewMessage, SessionRecord, UsageReport } from './types'
import { toSessionRecord } from './session-record'
import {
  abortWriteTx,
  beginWriteTx,
  endWriteTx,
  fileAt,
  noFileYet,
  openImportConnection,
  openStateDb,
  prepareForWrite,
  refreshShape,
  type FileChange,
  type OpenOptions,
  type StateDb
} from './open'
import { dropCopy, sourcePrint } from './read-copy'
import { CopyPending, CopyRefresh } from './read-copy-refresh'
import type { HomeShape } from './shape'
import { invalid, requireId, StoreClosedError } from './errors'
import { appendRows } from './message-write'
import {
  acquireCompressionLock,
  messageWatermark,
  publishCompressionChild,
  refreshCompressionLock,
  releaseCompressionLock,
  type CompressionHandoff
} from './compression-publish'
import { hasIdentity, storedUids } from './message-identity'
import { currentColumns, existingColumns } from './reconcile'
import { endSessionRow, reopenSessionRow, setFlag, upsertSession, writeSystemPrompt } from './session-write'
import { writeTitle, type TitleSource } from './titles'
import {
  archiveCandidates,
  archiveRows,
  deleteSessionRows,
  olderThan,
  pruneCandidates,
  pruneRows,
  type PruneFilter
} from './session-delete'
import { exportRecords, resolveSessionId, type ExportRecord } from './session-transfer'
import { expandSegments, parseJsonlChunked, type ImportSummary } from './session-import'
import { importInBatches } from './import-batches'
import { moveUsageRows, recordUsageRows } from './usage'
import {
  branchesOf,
  compressionChain,
  sessionsOpeningWith,
  sessionsReplyingWith,
  sessionsWithReply,
  lineageRoot,
  resumeTip
} from './lineage'
import { listSessionPage, listSessionRows, sessionSources, type ListOptions, type SortValue } from './read-list'
import { sessionDetail, storedSystemPrompt } from './read-detail'
import { summaryById } from './read-summary'
import { conversation, messagePage, type PageOptions } from './read-messages'
import { FieldReader, type TextField } from './read-message-text'
import { searchMessages, type RawHit, type SearchFilters, type TitleHit } from './search'
import { isBusy, WriteQueue } from './write-queue'
import { readRetrying } from './read-retry'
import {
  markVerified,
  Rechecks,
  recheckSlice,
  changedSinceVerified,
  blindRewritten,
  regram,
  shortIndexState,
  shortIndexStep,
  shortIndexVerified,
  SLICE_STEP,
  WRITE_STEP
} from './short-index'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { sessions } from './schema'
import { liveUpstreamGateway, type GatewayHeartbeat } from './gateway-heartbeats'
import { txDb, WriteTx, type Orm } from './write-tx'
// The repositories import this module's sqliteOf/ormOf and run them per call: the cycle is never walked at load time.
import { delegationRepo, type DelegationRepo } from './delegation-repo'
import { costRepo, type CostRepo } from './cost-repo'
import { memoryEventsRepo, type MemoryEventsRepo } from './memory-events-repo'
import { pendingNoticesRepo, type PendingNoticesRepo } from './pending-notices-repo'
import { checkFile, optimizeFile, type FileHealth } from './maintenance'

export { WriteTx }
/** What `sessionCounters` reads: the agent-cache guard's columns. */
type SessionCounters = Pick<SessionRecord, 'messageCount' | 'endedAt'> & {
  rewindCount: (typeof sessions.$inferSelect)['rewind_count'] | null
}

export type LocalChangeListener = (change: { profile: string; sessionIds: string[] }) => void

const handles = new WeakMap<SessionStore, StateDb>()
/** Each store's guarded read connection (its private `db`), for the repositories' `sqliteOf`. */
const readers = new WeakMap<SessionStore, () => Database.Database>()
/**
 * How long a replaced file's old -wal/-shm may stay beside it before the store opens the new file beside them (the old
 * WAL is emptied, and the old file let go of, at once).
 */
const STALE_SIDECARS_MS = 2000
/** How long the store waits for a transaction on the old file that keeps its WAL from being emptied. */
const STALE_SIDECARS_GIVE_UP_MS = 30_000

/**
 * Moves the WAL's frames into the file `old` has open (the one a restore renamed away) and empties the WAL: a
 * TRUNCATE checkpoint through the old connection, without waiting on a lock. The -wal/-shm beside the new file are
 * then an empty log, which a connection on the new file reads as nothing to apply. False when it could not finish
 * (another connection is mid-transaction on the old file) or the old file is not in WAL mode with frames to move.
 */
function emptyOldWal(old: Database.Database): boolean {
  let before = 0
  try {
    before = Number(old.pragma('busy_timeout', { simple: true })) || 0
    old.pragma('busy_timeout = 0') // never sleep on the host's thread for another process's lock
    const [r] = old.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>
    return r !== undefined && r.busy === 0 && r.log >= 0 && r.checkpointed === r.log
  } catch {
    return false // a lock or an I/O error on the old file: the caller waits as for any busy moment
  } finally {
    try {
      old.pragma(`busy_timeout = ${before}`)
    } catch {
      /* closed */
    }
  }
}
/**
 * Between two catch-up slices of the short-text index: the event loop's, so a slice (SLICE_STEP's 8 ms) takes at most
 * a quarter of the thread while the index catches up (a 500k-message home: about a minute) and none once current.
 */
const INDEX_SLICE_GAP_MS = 24
/** After another program's lock turned a slice away. */
const INDEX_BUSY_GAP_MS = 250

/** What a write reads of the short-text index around its own rows; never throws (the index is a cache, the write is not). */
function indexFacts(db: Database.Database, shape: HomeShape): { has: boolean; verified: boolean } {
  try {
    return { has: shortIndexState(db, shape) !== null, verified: shortIndexVerified(db) }
  } catch {
    // unreadable: nothing known of it, so nothing is taken as verified
    return { has: false, verified: false }
  }
}

const sidecarOf = (path: string) => {
  try {
    return fileAt(path)?.id
  } catch {
    return undefined // one this process cannot stat is no sidecar it could compare (SQLite's own open says why)
  }
}
const sidecarsOf = (path: string) => [sidecarOf(`${path}-wal`), sidecarOf(`${path}-shm`)]

/** The open state.db of a store (module-private; `sqliteOf` is the store/-internal way to its connection). */
function stateDbOf(store: SessionStore): StateDb {
  const h = handles.get(store)
  if (!h) throw new Error('not a SessionStore')
  return h
}

/** The better-sqlite3 addon build the store's connections load (its OpenOptions'; store/-internal, for the watcher). */
export function bindingOf(store: SessionStore): string | undefined {
  return stateDbOf(store).nativeBinding
}

/**
 * The better-sqlite3 connection of a store, read per call: the first write of a lazily opened profile swaps in
 * the newly created file, so never hold on to it.
 */
export function sqliteOf(store: SessionStore): Database.Database {
  const read = readers.get(store)
  if (!read) throw new Error('not a SessionStore')
  return read()
}

/** The file the store's connection reads: state.db, or the private copy read in its place (read-copy.ts). */
export function readPathOf(store: SessionStore): string {
  return stateDbOf(store).readCopy?.file ?? store.path
}

/** Which file the store's connection has open (`dev:ino`; null while no state.db exists); store/-internal. */
export function openFileOf(store: SessionStore): string | null {
  return stateDbOf(store).fileId
}

/** Typed drizzle queries on the store's current connection (store/-internal; read per call, like `sqliteOf`). */
export function ormOf(store: SessionStore): Orm {
  sqliteOf(store) // the same refusal after close, the same wait during a swap
  return stateDbOf(store).orm
}

export class SessionStore {
  readonly path: string
  readonly profile: string
  /** Owner stamped on new rows: derived from the path, or the explicit profile given to the constructor. */
  readonly owner: string | null
  /** The open state.db; store/-internal (see `sqliteOf`): other folders use typed repository functions. */
  private readonly handle: StateDb
  private listeners = new Set<LocalChangeListener>()
  private closers = new Set<() => void>()
  private movers = new Set<() => void>()
  private copyListeners = new Set<() => void>()
  /** The next private copy of a home read from one (read-copy.ts), taken off the event loop. */
  private readonly copies = new CopyRefresh(() => {
    for (const fn of this.copyListeners)
      try {
        fn()
      } catch {
        /* a listener's bug stays its own */
      }
  })
  private pending = new Set<string>()
  private depth = 0
  /**
   * Held directly (not via stmt-cache): the gateway's cache guard reads it on every turn. Prepared for one shape:
   * another program's migration (adding `rewind_count`) makes a new shape, and the statement is derived again.
   */
  private countersStmt: Database.Statement<unknown[], SessionCounters> | null = null
  private countersShape: HomeShape | null = null
  private readonly queue: WriteQueue
  private fieldReader = new FieldReader()
  private readBusyMs: number
  private readonly openOpts: OpenOptions
  /** The -wal/-shm identities last seen beside the open file, and since when old ones sit beside a new file. */
  private sidecars: Array<string | undefined> = []
  private staleSince: number | null = null
  /** Whether the replaced file's WAL was emptied into it (while its -wal/-shm sit beside the new file). */
  private oldWalEmptied = false
  /**
   * Set once the store has let go of a file whose -wal/-shm still sit beside the one at the path now (the new file not
   * opened yet): the store reads as a home without state.db until it opens what is there.
   */
  private leftOldFile = false
  /** The running write's handle (nested writes reuse it); null outside `write()`. */
  private tx: WriteTx | null = null
  /** Set by close(): no write, and no reopen of what is at the path (which would create a missing file), after it. */
  private closed = false
  /** Told at each refused write after close (the registry logs the first). */
  private readonly onClosedUse?: (err: StoreClosedError) => void
  /** The next catch-up slice of the short-text index (short-index.ts), while a write left it behind. */
  private indexTimer: ReturnType<typeof setTimeout> | null = null
  /** Rows another program may have rewritten since the short-text index read them, and the next recheck slice. */
  private readonly rechecks = new Rechecks()
  private recheckTimer: ReturnType<typeof setTimeout> | null = null
  private regramming = false
  /**
   * Since when (this connection's `data_version`, which only another connection's commit moves) the short-text index
   * is known to match `messages`: its mark matched at open or at a write's start, or a full recheck ended. While no
   * other program has committed since, close() records the mark of what this process left (short-index.ts
   * markVerified), so the next process, a one-shot CLI's too, can trust the index without reading a row. Null:
   * not known, and nothing is recorded.
   */
  private verified: { conn: Database.Database; dv: number } | null = null
  /** A recheck of every indexed row under way, and the `data_version` it started at. */
  private fullRecheck: { conn: Database.Database; dv: number } | null = null

  /**
   * `sessions optimize` on a state.db file: each FTS index's segments merged (FTS5 'optimize': layout only, no row
   * tokenized again), then VACUUM. Returns how many indexes were merged.
   */
  static optimizeFile(path: string): { indexes: number } {
    return optimizeFile(path)
  }

  /** `sessions repair --check-only`: whether a state.db file is healthy, checked on a connection of its own. */
  static checkFile(path: string): FileHealth {
    return checkFile(path)
  }

  constructor(
    path: string,
    opts: OpenOptions & {
      profile?: string
      writeRetryMs?: number | (() => number | undefined)
      onClosedUse?: (err: StoreClosedError) => void
    } = {}
  ) {
    this.openOpts = opts
    this.onClosedUse = opts.onClosedUse
    this.handle = openStateDb(path, opts)
    this.path = this.handle.path
    this.sidecars = sidecarsOf(this.path)
    if (this.handle.pending && opts.lazyCreate !== true) this.prepareWrite()
    this.owner = opts.profile ?? ownerProfileForDb(this.path)
    this.profile = this.owner ?? 'default'
    this.readBusyMs = Number(this.conn.pragma('busy_timeout', { simple: true })) || 0
    this.queue = new WriteQueue(() => this.profile, opts.writeRetryMs)
    handles.set(this, this.handle)
    readers.set(this, () => this.db)
    this.checkShortIndex()
  }

  private dataVersion(): number {
    return Number(this.conn.pragma('data_version', { simple: true }))
  }

  /**
   * On opening a file: is the short-text index still what `messages` hold? Another program may have rewritten rows
   * while no Caduceus watched (the app closed, or only the CLI ran): no watcher named them, and their grams would
   * answer for their old text. Unless the index's mark says nobody wrote a message since it was last known to match,
   * every indexed row is read by its text until a recheck has compared them (short-index.ts Rechecks), as when the
   * watcher cannot tell which rows a commit wrote.
   */
  private checkShortIndex(): void {
    if (this.handle.pending) return
    this.verified = null
    try {
      if (shortIndexState(this.conn, this.handle.shape) === null) return
      if (shortIndexVerified(this.conn)) {
        this.verified = { conn: this.conn, dv: this.dataVersion() }
        // rows whose rewrite no FTS index shows (short-index.ts blindRows; a few): compared with their text now, and
        // any that differ read by it until a write reads them again
        for (const id of blindRewritten(this.conn, this.handle.shape)) this.rechecks.changed.add(id)
        return
      }
      // the rows written since it last matched, from upstream's FTS index (an upstream session's turns, its deletes,
      // a hand edit): only those are read by their text, and their recheck verifies the index again
      const changed = changedSinceVerified(this.conn)
      if (changed) return this.reread(changed, true)
    } catch {
      // unreadable now (a lock): not known to match
    }
    // Searches read the rows by text from now on. The recheck that re-reads their grams (a write) is left to a store
    // that is watched (the app, `serve`: the watcher's start asks for it): a one-shot CLI search writes nothing.
    this.reread(null)
  }

  /** After a recheck slice or a re-read: a full recheck that ended with no other commit since it began verifies. */
  private settleRecheck(): void {
    const full = this.fullRecheck
    if (!full || this.rechecks.pending || this.rechecks.changed.size) return
    this.fullRecheck = null
    try {
      if (full.conn === this.conn && this.conn.open && this.dataVersion() === full.dv) this.verified = full
    } catch {
      // not known: the next open rechecks
    }
  }

  /** At close: the index's mark for what this process leaves, when it knows the index matches it (`verified`). */
  private recordVerified(): void {
    const v = this.verified
    if (!v || v.conn !== this.conn || !this.conn.open || this.conn.readonly || this.handle.readonly) return // (a read copy too)
    if (this.rechecks.pending || this.rechecks.changed.size) return
    try {
      if (this.dataVersion() !== v.dv) return // another program committed since: the next open reads the rows again
      this.conn.pragma('busy_timeout = 0') // never wait at close: unrecorded, the next open only rechecks
      this.conn.transaction(() => markVerified(this.conn)).immediate()
    } catch {
      // locked or read-only: not recorded, and the next open rechecks
    }
  }

  /** A handle for one transaction; its connection is read per call (the first write may swap in the new file). */
  private mintTx(): WriteTx {
    const handle = this.handle
    return new WriteTx(
      () => handle.sqlite,
      () => handle.orm,
      (ids) => {
        for (const id of ids) if (id) this.pending.add(id)
      }
    )
  }

  /** The current connection (swapped once when the first write creates a missing state.db), unguarded: lifecycle use. */
  private get conn(): Database.Database {
    return this.handle.sqlite
  }
  /**
   * The connection a read uses. Closed: refused as a write is (not better-sqlite3's "connection is not open"). Between
   * letting go of a replaced file and opening the new one (syncFile) the handle is a placeholder that reads as a home
   * without sessions, so a read looks again: during the grace that throws SQLITE_BUSY_SWAP, which a read request waits
   * out as it waits out a lock (busy-retry.ts, the lock banner); after it, the new file opens and is read.
   */
  private get db(): Database.Database {
    if (this.closed) this.refuseIfClosed('read')
    if (this.leftOldFile) this.syncFile()
    return this.handle.sqlite
  }
  /** True while the profile has no state.db file yet (created by the first write). */
  get pendingCreate(): boolean {
    return this.handle.pending
  }
  /** The home's shape, re-detected when another process changed the schema. */
  get shape(): HomeShape {
    return refreshShape(this.handle)
  }
  /** Typed SQL for async_delegations, delegation_child_usage and the delivery checks on messages (camelCase records). */
  delegationRepo(): DelegationRepo {
    return delegationRepo(this)
  }
  /** The session and usage rows behind the cost views. */
  costRepo(): CostRepo {
    return costRepo(this)
  }
  /** cad_memory_events, the memory activity log. */
  memoryEventsRepo(): MemoryEventsRepo {
    return memoryEventsRepo(this)
  }
  /** cad_pending_notices, follow-up notices not appended yet. */
  pendingNoticesRepo(): PendingNoticesRepo {
    return pendingNoticesRepo(this)
  }
  /** A notice to show with this profile's data (e.g. a newer upstream schema), or null. */
  get notice(): string | null {
    refreshShape(this.handle)
    return this.handle.notice
  }
  /** Creates the file if missing and prepares the connection for writes (WAL); for raw bulk writers in store/. */
  prepareWrite(): void {
    this.refuseIfClosed()
    prepareForWrite(this.handle)
    if (!this.handle.reconciled) {
      this.conn.transaction(() => endWriteTx(this.handle, beginWriteTx(this.handle), true)).immediate()
      this.handle.reconciled = true
    }
  }

  /** Off-loop retry budget (ms) for a write that meets a foreign lock (default 60 s; the host reads config). */
  get writeRetryMs(): number {
    return this.queue.budgetMs
  }
  set writeRetryMs(ms: number) {
    if (Number.isFinite(ms) && ms >= 0) this.queue.budget = ms
  }
  /** Writes waiting for the lock or queued behind one (diagnostics). */
  get pendingWrites(): number {
    return this.queue.size
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.recordVerified()
    if (this.indexTimer) clearTimeout(this.indexTimer)
    this.indexTimer = null
    if (this.recheckTimer) clearTimeout(this.recheckTimer)
    this.recheckTimer = null
    if (this.conn.open) this.conn.close()
    for (const fn of this.closers) fn()
    this.closers.clear()
    this.copies.close()
    if (this.handle.readCopy) dropCopy(this.handle.readCopy)
  }

  private refuseIfClosed(use: 'write' | 'read' = 'write'): void {
    if (!this.closed) return
    const err = new StoreClosedError(this.profile, use)
    try {
      this.onClosedUse?.(err)
    } catch {
      /* the refusal is thrown all the same */
    }
    throw err
  }

  /**
   * Runs `fn` once this store has closed its connection (the watcher's descriptors on state.db and its -shm: closing
   * one drops every POSIX lock this process holds on the file, SQLite's included, so they stay open until then).
   */
  onClose(fn: () => void): () => void {
    this.closers.add(fn)
    return () => {
      this.closers.delete(fn)
    }
  }

  /**
   * Runs `fn` when the store lets go of a file another one was put in place of, beside the old file's -wal/-shm
   * (upstream's snapshot restore leaves them): once the old log is emptied, well before the new file opens. The two
   * files then share one -shm, and POSIX drops every lock this process holds on it when any of its descriptors on it
   * closes — a handle on the old file closed after the new file's connection opened would leave that connection
   * without its locks (another program would then take itself for the -shm's only user and truncate and rebuild it
   * under this process's mapping). And a handle kept on the old file keeps the old wal-index header alive for the
   * next program to open the new file (syncFile). So every handle on the old file goes first, and at once.
   */
  beforeMove(fn: () => void): () => void {
    this.movers.add(fn)
    return () => {
      this.movers.delete(fn)
    }
  }

  /**
   * A new private copy of the original is whole (read-copy-refresh.ts): the next `syncFile` opens it. The watcher
   * looks at once instead of at its next tick.
   */
  onCopyReady(fn: () => void): () => void {
    this.copyListeners.add(fn)
    return () => {
      this.copyListeners.delete(fn)
    }
  }

  onLocalChange(fn: LocalChangeListener): () => void {
    this.listeners.add(fn)
    return () => {
      this.listeners.delete(fn)
    }
  }

  /**
   * Runs `fn` in one BEGIN IMMEDIATE transaction. IMMEDIATE takes the write lock up front, so a busy DB fails
   * at BEGIN — before `fn` ran — and the whole call is retried later, off the event loop, in call order.
   * `fn` stays synchronous inside the transaction; only acquiring the lock is asynchronous.
   * Nested calls (from inside a running `fn`) become savepoints, run at once, and throw into the outer `fn`.
   */
  write<T>(fn: (tx: WriteTx) => T): Promise<T> {
    const tx = this.tx
    if (this.depth > 0 && tx) return Promise.resolve(this.conn.transaction(() => fn(tx))())
    return this.queue.run(() => this.attempt(fn))
  }

  private attempt<T>(fn: (tx: WriteTx) => T, index: Parameters<typeof shortIndexStep>[2] = WRITE_STEP): T {
    this.refuseIfClosed() // also a write that queued (or backed off from a lock) before close() and runs after it
    this.syncFile() // never into a file that was replaced or deleted under the open connection
    this.prepareConnection() // first write of this open: create a missing file, switch to WAL
    // busy_timeout 0 while acquiring: SQLite must never sleep on this thread waiting for another process.
    this.conn.pragma('busy_timeout = 0')
    this.depth++
    let began: { views: string[] | undefined } | null = null // set once BEGIN IMMEDIATE holds the lock
    let behind = 0
    let known: number | null = null // the data_version at which the index is known to match (see `verified`)
    const tx = (this.tx = this.mintTx())
    try {
      // First write reconciles in the same transaction; the read views go only once the lock is held and come
      // back before COMMIT, so a write waiting on a foreign lock (or rolled back) changes nothing readers see.
      const first = !this.handle.reconciled
      const result = this.conn
        .transaction(() => {
          began = { views: beginWriteTx(this.handle) }
          // before this write's own rows: does the index match what every program left? (no other program can
          // commit while this transaction holds the write lock, so the data_version read here covers all of it)
          const dv = this.dataVersion()
          const wasVerified = this.verified?.conn === this.conn && this.verified.dv === dv
          // (the facts cost several reads of the FTS structure: only asked when this connection's mark is not enough)
          const before = wasVerified ? null : indexFacts(this.conn, this.handle.shape)
          const settled = !this.rechecks.pending && !this.rechecks.changed.size
          const exact = wasVerified || (settled && before!.verified)
          const out = fn(tx)
          // Caduceus's short CJK/emoji index: a write indexes a short backlog (its own rows), the slices a long one
          behind = shortIndexStep(this.conn, this.handle.shape, index)
          // an index this write created was read from the rows as they are: it matches them
          if (exact || (!before!.has && indexFacts(this.conn, this.handle.shape).has)) known = dv
          endWriteTx(this.handle, began.views, first)
          return out
        })
        .immediate()
      this.handle.reconciled = true
      if (known !== null) this.verified = { conn: this.conn, dv: known }
      this.depth--
      this.flush()
      if (behind > 0) this.scheduleIndexSlice()
      return result
    } catch (err) {
      this.depth--
      this.pending.clear()
      if (began) abortWriteTx(this.handle, (began as { views: string[] | undefined }).views)
      throw err
    } finally {
      tx.close()
      if (this.tx === tx) this.tx = null
      if (this.conn.open) this.conn.pragma(`busy_timeout = ${this.readBusyMs}`)
    }
  }

  /**
   * The short-text index's catch-up off the write path: one slice (SLICE_STEP: a few ms) in a transaction of its own
   * per timer tick, with the event loop free between ticks, until the index is current. A write waiting (queued, or
   * backing off from another program's lock) goes first; a lock another program holds puts the slice off.
   */
  private scheduleIndexSlice(delayMs = INDEX_SLICE_GAP_MS): void {
    if (this.indexTimer || !this.conn.open) return
    this.indexTimer = setTimeout(() => {
      this.indexTimer = null
      if (!this.conn.open) return
      if (this.queue.size > 0) return this.scheduleIndexSlice()
      try {
        this.attempt(() => undefined, SLICE_STEP)
      } catch (err) {
        if (isBusy(err)) this.scheduleIndexSlice(INDEX_BUSY_GAP_MS)
      }
    }, delayMs)
    this.indexTimer.unref?.()
  }

  /**
   * The rows a commit wrote, as the watcher read them from the WAL (null: it cannot tell): the short-text index
   * compares those it holds with their text again, off the write path (short-index.ts Rechecks), and a search reads
   * them by their text until then.
   */
  noteRowsWritten(rowids: number[] | null): void {
    this.reread(rowids)
    if (this.rechecks.pending || this.rechecks.changed.size) this.scheduleRecheck()
  }

  /**
   * What noteRowsWritten notes, without starting the recheck slices (a store nobody watches runs none: below).
   * `all`: `rowids` are every row that can differ from its grams, so their recheck ending verifies the index.
   */
  private reread(rowids: number[] | null, all = false): void {
    if (this.rechecks.note(rowids) || all) {
      this.verified = null
      try {
        this.fullRecheck = this.conn.open ? { conn: this.conn, dv: this.dataVersion() } : null
      } catch {
        this.fullRecheck = null // unreadable now: this recheck verifies nothing, the next open checks again
      }
    }
  }

  /**
   * One recheck slice per timer tick: a read (no lock) comparing rows with their grams; rows found changed are
   * re-read into the index by a write of their own, once they are known (never by a turn's write).
   */
  private scheduleRecheck(delayMs = INDEX_SLICE_GAP_MS): void {
    if (this.recheckTimer || !this.conn.open) return
    this.recheckTimer = setTimeout(() => {
      this.recheckTimer = null
      if (!this.conn.open) return
      let more = false
      try {
        more = recheckSlice(this.conn, this.handle.shape, this.rechecks, SLICE_STEP.budgetMs)
      } catch (err) {
        // a locked or replaced file: tried again on the next tick
        more = isBusy(err) || this.rechecks.pending
      }
      if (this.rechecks.changed.size && !this.regramming) {
        const ids = [...this.rechecks.changed]
        this.regramming = true
        this.write((tx) => regram(txDb(tx), this.handle.shape, ids))
          .then(() => {
            for (const id of ids) this.rechecks.changed.delete(id)
          })
          .catch(() => undefined) // left in `changed`: the search keeps reading them by text, the next slice retries
          .finally(() => {
            this.regramming = false
            if (this.rechecks.changed.size) this.scheduleRecheck()
            this.settleRecheck()
          })
      }
      if (more) this.scheduleRecheck()
      else this.settleRecheck()
    }, delayMs)
    this.recheckTimer.unref?.()
  }

  /**
   * Follows the file behind the path. A backup restored by a rename over state.db (or a file deleted outright)
   * leaves the connection on the old, unlinked inode: reads would stay stale for good and writes would land in a
   * file nobody can open again. So the watcher calls this at each check and every write before it begins: when
   * the path names another file (or none, or one appeared where none was), the connection is reopened on what is
   * there now — a deleted file leaves the store as a profile without state.db (empty; the next write creates
   * it). A file another program is just creating is left until its sessions table is committed. Throws (the old
   * connection kept, the check repeated next time) when the file there cannot be opened, so a write fails
   * clearly instead of going to the old inode.
   */
  syncFile(): FileChange {
    // Closed: it follows nothing. Opening what is at the path now would make a deleted home's state.db again.
    if (this.closed) return 'same'
    const h = this.handle
    const at = fileAt(this.path)
    let id = at && (!h.pending || at.size > 0) ? at.id : null
    // Read from a copy (read-copy.ts): the copy is the open file; another print of the original is a new file.
    if (h.readCopy && id !== null) id = sourcePrint(this.path) === h.readCopy.print ? h.fileId : `${id}:changed`
    const sidecars = sidecarsOf(this.path)
    if (id === h.fileId) {
      this.sidecars = sidecars
      this.staleSince = null
      this.oldWalEmptied = false
      this.leftOldFile = false // (let go of, then deleted too: the home without state.db it already reads as)
      return 'same'
    }
    const change: FileChange =
      id === null ? 'deleted' : this.leftOldFile ? 'replaced' : h.pending ? 'appeared' : 'replaced'
    // (A copy's connection never used the original's -wal/-shm.)
    const sharedSidecars =
      !h.readCopy && change !== 'appeared' && sidecars.some((s, i) => s !== undefined && s === this.sidecars[i])
    if (sharedSidecars) {
      // The old file's -wal/-shm are still beside the new one: opening now would read the old file's WAL over the
      // new file, and a close could checkpoint it into it. So the old WAL's frames go into the old file and the log is
      // emptied at once, before anyone writes to the new file through those same -wal/-shm (upstream's snapshot
      // restore leaves them there, and a process that reopens writes its frames into them: emptied later, those would
      // go to the old file and be lost). A restore that renames first and then removes them gets STALE_SIDECARS_MS to
      // finish — as a busy moment, so a write is retried off the loop; past that they stay, and the new file opens
      // beside the emptied log. While another connection's transaction on the old file keeps the log from being
      // emptied, this waits on, up to STALE_SIDECARS_GIVE_UP_MS.
      // A file deleted with its -wal/-shm left (`rm state.db`, or the unlink before upstream's restore moves its copy
      // over) is the same hazard: the next state.db created there, by this store's next write or by another program,
      // would take the old file's frames for its own and bring back what was deleted. Nothing is coming to replace the
      // sidecars there, so no grace period: only the wait for the log to be emptied.
      // Once the log is emptied, every handle on the old file goes at once, grace or not: the emptying checkpoint
      // resets the wal-index header's frame count and salts but leaves its page count (nPage) at the old file's, and
      // while a connection keeps the -shm mapped (holding its lock there) the next program to open the new file
      // trusts that header rather than rebuild it from the empty log: a restored file larger than the old one then
      // reads as "database disk image is malformed" (and upstream's SessionDB sets about repairing it). With no
      // handle of this process on the -shm, that program is its first user again and rebuilds the index. During the
      // grace the store reads as a home without state.db. (A foreign program still holding the old file keeps that
      // header alive whatever this store does.)
      this.staleSince ??= Date.now()
      if (!this.leftOldFile) this.oldWalEmptied ||= emptyOldWal(h.sqlite)
      const waited = Date.now() - this.staleSince
      const grace = change === 'replaced' && waited < STALE_SIDECARS_MS
      const wait = grace || (!this.oldWalEmptied && waited < STALE_SIDECARS_GIVE_UP_MS)
      // Let go once, kept through a failed open of the new file (the next look opens it without another wait).
      if (!this.leftOldFile && (this.oldWalEmptied || !wait)) {
        this.letGoOfOldFile()
        this.leftOldFile = true
      }
      if (wait)
        throw Object.assign(new Error(`${this.path} was replaced; waiting for its old -wal/-shm to go`), {
          code: 'SQLITE_BUSY_SWAP'
        })
    }
    const old = h.sqlite // the old file's connection, or the placeholder that stood in for it since the let-go
    // openStateDb reads the path again: a second swap since the stat above just shows up as the next change.
    let fresh: StateDb
    try {
      fresh = openStateDb(this.path, this.openOpts, this.copies.take)
    } catch (err) {
      // A new copy of a home read from one is on its way (off the loop): the last copy is read until it is whole.
      if (err instanceof CopyPending) return 'same'
      throw err
    }
    if (!fresh.readCopy) this.copies.drop() // read in place again (its owner holds it open): a copy due is not wanted
    if (change === 'appeared' && !fresh.shape.tables.has('sessions')) {
      // Another program is creating it (tables not committed yet): reads would be shimmed to empty views for good.
      fresh.sqlite.close()
      return 'same'
    }
    const oldCopy = h.readCopy
    Object.assign(h, fresh)
    h.readCopy = fresh.readCopy
    this.leftOldFile = false
    this.oldWalEmptied = false
    this.staleSince = null
    this.checkShortIndex() // another file: its index is checked as at an open
    this.sidecars = sidecarsOf(this.path)
    this.countersStmt = null
    this.fieldReader = new FieldReader()
    this.readBusyMs = Number(h.sqlite.pragma('busy_timeout', { simple: true })) || 0
    // SQLite sees the old file was unlinked or moved and neither checkpoints it nor deletes the -wal by name
    // (which would now be the new file's): closing it only drops the old inode.
    this.closeQuietly(old)
    if (oldCopy) dropCopy(oldCopy)
    return change
  }

  /**
   * Every handle of this process on the old file closes (beforeMove hooks, then the store's connection) before the new
   * file's connection opens; until it does, the store is a home without state.db (the next look opens it).
   */
  private letGoOfOldFile(): void {
    for (const fn of this.movers) fn()
    this.closeQuietly(this.handle.sqlite)
    Object.assign(this.handle, noFileYet(this.path, this.openOpts))
    this.countersStmt = null
  }

  private closeQuietly(db: Database.Database): void {
    try {
      if (db.open) db.close()
    } catch {
      /* already closed */
    }
  }

  /** First write of this open: file + WAL (outside the transaction); a swapped connection drops cached statements. */
  private prepareConnection(): void {
    const before = this.handle.sqlite
    prepareForWrite(this.handle)
    if (this.handle.sqlite !== before) this.countersStmt = null
  }

  private flush(): void {
    if (this.pending.size === 0) return
    const sessionIds = [...this.pending]
    this.pending.clear()
    for (const fn of this.listeners) {
      try {
        fn({ profile: this.profile, sessionIds })
      } catch {
        /* a listener's bug must not fail the committed write */
      }
    }
  }

  // ---- session rows ----
  // Validation runs inside the write callback: a nested call (inside another write) throws into the outer
  // transaction; a top-level call rejects its promise. Either way nothing half-written survives.
  createSession(id: string, source: string, opts: CreateSessionOptions = {}): Promise<string> {
    return this.write((tx) => {
      requireId(id)
      upsertSession(txDb(tx), this.owner, id, source, opts)
      tx.touch(id)
      return id
    })
  }
  ensureSession(id: string, source = 'unknown', opts: CreateSessionOptions = {}): Promise<string> {
    return this.createSession(id, source, opts)
  }
  endSession(id: string, reason: string, at?: number): Promise<boolean> {
    return this.write((tx) => {
      requireId(id)
      const ok = endSessionRow(txDb(tx), id, reason, at)
      if (ok) tx.touch(id)
      return ok
    })
  }
  reopenSession(id: string): Promise<boolean> {
    return this.write((tx) => {
      requireId(id)
      const ok = reopenSessionRow(txDb(tx), id)
      if (ok) tx.touch(id)
      return ok
    })
  }
  setTitle(id: string, title: string | null, source: TitleSource = 'user'): Promise<boolean> {
    return this.write((tx) => {
      requireId(id)
      const ok = writeTitle(txDb(tx), id, title, source)
      if (ok) tx.touch(id)
      return ok
    })
  }
  /** The highest id among a session's live rows: what a compression starting now stands for (compression-publish.ts). */
  messageWatermark(id: string): number {
    return messageWatermark(this.db, id)
  }
  /**
   * Writes a compression continuation and ends its parent with 'compression' in one transaction, as upstream's
   * publish_compression_child does (compression-publish.ts).
   */
  publishCompressionChild(h: CompressionHandoff): Promise<{ lastHandoffId: number; cloned: number }> {
    return this.write((tx) => {
      requireId(h.parentId, 'parentId')
      requireId(h.childId, 'childId')
      const out = publishCompressionChild(txDb(tx), this.owner, h)
      tx.touch(h.childId)
      tx.touch(h.parentId)
      return out
    })
  }
  /**
   * Upstream's compression lease on a session (`compression_locks`): `acquire` takes it (false: another program is
   * compressing the session), `refresh` extends it (false: it was lost), `release` gives it back. Without the table
   * in the home there is no lease: acquire and refresh answer true.
   */
  compressionLock(op: 'acquire' | 'refresh' | 'release', sessionId: string, holder: string): Promise<boolean> {
    const ttl = 300
    return this.write((tx) => {
      requireId(sessionId)
      if (op === 'acquire') return acquireCompressionLock(txDb(tx), sessionId, holder, ttl)
      if (op === 'refresh') return refreshCompressionLock(txDb(tx), sessionId, holder, ttl)
      releaseCompressionLock(txDb(tx), sessionId, holder)
      return true
    })
  }
  /** Stores the prompt a turn used (upstream's update_system_prompt); a no-op write when unchanged. */
  async setSystemPrompt(id: string, prompt: string): Promise<boolean> {
    if (typeof id !== 'string' || typeof prompt !== 'string') return false
    // Read first so an unchanged prompt takes no write lock; that read waits out a foreign commit like a turn's.
    if ((await readRetrying(() => storedSystemPrompt(this.db, id))) === prompt) return false
    return await this.write((tx) => {
      requireId(id)
      return writeSystemPrompt(txDb(tx), id, String(prompt))
    })
  }
  setArchived(id: string, archived: boolean): Promise<boolean> {
    return this.flag(id, 'archived', archived)
  }
  setPinned(id: string, pinned: boolean): Promise<boolean> {
    return this.flag(id, 'pinned', pinned)
  }
  private flag(id: string, col: 'archived' | 'pinned', on: boolean): Promise<boolean> {
    return this.write((tx) => {
      requireId(id)
      const changed = setFlag(txDb(tx), id, col, on)
      tx.touch(id, ...changed) // the row asked for too, whatever else of its lineage changed
      return changed.length > 0
    })
  }

  /**
   * Deletes a session with its messages (FTS rows follow through the home's triggers) and its delegate runs;
   * other children detached. `deletedIds`: every session row removed (the one asked for and its delegate runs).
   */
  async deleteSession(id: string): Promise<{ deleted: boolean; detachedChildren: number; deletedIds: string[] }> {
    requireId(id)
    return await this.write((tx) => {
      const r = deleteSessionRows(txDb(tx), id)
      tx.touch(...r.ids)
      return { deleted: r.deleted, detachedChildren: r.detachedChildren, deletedIds: r.deletedIds }
    })
  }
  /**
   * A chat UI's background task (title, tags, follow-ups…) that ran in session `from`: its usage is recorded on the
   * conversation `into` as routes of `task` (usage.ts moveUsageRows) and `from` goes with its messages, in one
   * transaction, so no reader sees the task as a conversation of its own or its spend twice. False, with nothing
   * changed, when either session is gone.
   */
  async foldTaskSession(from: string, into: string, task: string): Promise<boolean> {
    requireId(from)
    requireId(into)
    return await this.write((tx) => {
      const db = txDb(tx)
      if (from === into || !stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(from)) return false
      if (!stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(into)) return false
      moveUsageRows(tx, this.handle.shape, from, into, task)
      const r = deleteSessionRows(db, from)
      tx.touch(into, ...r.ids)
      return true
    })
  }

  /**
   * Marks a session hidden (`hidden = 1`, where the home has the column): the mark upstream gives its internal
   * sessions, which no session list of either program shows. False when nothing changed.
   */
  async hideSession(id: string): Promise<boolean> {
    requireId(id)
    return await this.write((tx) => {
      const db = txDb(tx)
      if (!existingColumns(db, 'sessions').has('hidden')) return false
      const changed = stmt(db, 'UPDATE sessions SET hidden = 1 WHERE id = ? AND hidden IS NOT 1').run(id).changes > 0
      if (changed) tx.touch(id)
      return changed
    })
  }

  /**
   * Prune with upstream's selection (ended sessions only; `olderThanDays` bounds `started_at`, default 90
   * unless a started bound is given, none when null; archived sessions kept unless `archived` or `includeArchived` says otherwise,
   * as `hermes sessions prune` keeps them); `dryRun` only lists the candidates. Children outside are detached.
   * `sessionIds` holds a prune to the sessions a preview listed: only those of them that still match go.
   */
  async pruneSessions(
    f: PruneFilter & {
      olderThanDays?: number | null
      includeArchived?: boolean
      dryRun?: boolean
      sessionIds?: readonly string[]
    }
  ): Promise<{
    deleted: number
    detached?: number
    deletedIds?: string[]
    candidates?: ReturnType<typeof pruneCandidates>
  }> {
    const { olderThanDays, includeArchived, dryRun, sessionIds, ...rest } = f
    const filter: PruneFilter = { ...rest, archived: rest.archived ?? (includeArchived ? undefined : false) }
    const days =
      olderThanDays === undefined && rest.startedBefore === undefined && rest.startedAfter === undefined
        ? DEFAULT_PRUNE_DAYS
        : olderThanDays
    if (typeof days === 'number' && filter.startedBefore === undefined) filter.startedBefore = olderThan(days)
    const only = sessionIds ? new Set(sessionIds) : undefined
    if (dryRun) {
      const candidates = pruneCandidates(this.db, filter)
      return { deleted: 0, candidates: only ? candidates.filter((c) => only.has(c.id)) : candidates }
    }
    return await this.write((tx) => {
      const r = pruneRows(txDb(tx), filter, only)
      tx.touch(...r.ids)
      return { deleted: r.deleted, detached: r.detached, deletedIds: r.deletedIds }
    })
  }

  /**
   * Archive by filter (upstream's `hermes sessions archive`): ended sessions not yet archived, no age cutoff but the
   * filter's, and at least one filter — archiving every ended session is refused; `dryRun` only lists them.
   */
  async archiveSessions(
    f: Omit<PruneFilter, 'archived'> & { dryRun?: boolean }
  ): Promise<{ archived: number; candidates?: ReturnType<typeof pruneCandidates> }> {
    const { dryRun, ...filter } = f
    // Upstream's test: any filter with a truthy value (0 or '' narrows nothing, so it does not count)
    if (!Object.values(filter).some(Boolean))
      throw invalid('archiving every ended session is refused: give at least one filter')
    if (dryRun) return { archived: 0, candidates: archiveCandidates(this.db, filter) }
    return await this.write((tx) => {
      const { matched, changed } = archiveRows(txDb(tx), filter)
      tx.touch(...changed)
      return { archived: matched.length }
    })
  }

  /**
   * Upstream export objects (one per session, or per compression chain with `lineage`), read-only; `floats`: whole
   * REAL values as float PyNumbers (session-transfer.ts), for a JSONL export.
   */
  exportSessions(
    opts: { sessionId?: string; ids?: string[]; lineage?: boolean; floats?: boolean } = {}
  ): Iterable<ExportRecord> {
    return exportRecords(this.db, opts)
  }
  /**
   * What `hermes sessions export` with filter flags covers: upstream's prune selection (ended sessions only, oldest
   * first) with archived sessions included and no age cutoff but the filter's.
   */
  exportCandidates(filter: Omit<PruneFilter, 'archived'>): ReturnType<typeof pruneCandidates> {
    return pruneCandidates(this.db, { ...filter, archived: undefined })
  }
  /** An exact id, or the only session whose id starts with `prefix`; null when none or several do. */
  resolveSessionId(prefix: string): string | null {
    return resolveSessionId(this.db, prefix)
  }
  /**
   * Imports upstream JSONL in bounded batches (import-batches.ts), each its own write; a missing state.db is
   * created (v30) by the first.
   */
  async importJsonl(content: string, maxSessions: number): Promise<ImportSummary> {
    const parsed = await parseJsonlChunked(content, maxSessions)
    const records = expandSegments(parsed.records)
    const summary: ImportSummary = { imported: 0, skipped: 0, detached: 0, errors: parsed.errors, ignoredFields: {} }
    if (records.length === 0) return summary
    await importInBatches(
      {
        write: (fn) => this.write(fn),
        connect: () => openImportConnection(this.path, this.openOpts.nativeBinding),
        retryMs: () => this.queue.budgetMs,
        fileId: () => fileAt(this.path)?.id ?? null,
        beforeMove: (fn) => this.beforeMove(fn)
      },
      records,
      summary
    )
    return summary
  }

  // ---- transcript + usage ----
  appendMessage(sessionId: string, msg: NewMessage): Promise<number> {
    return this.write((tx) => {
      requireId(sessionId)
      const [id] = appendRows(txDb(tx), sessionId, [msg])
      tx.touch(sessionId)
      return id
    })
  }
  appendMessages(sessionId: string, msgs: NewMessage[]): Promise<number[]> {
    return this.write((tx) => {
      requireId(sessionId)
      const ids = appendRows(txDb(tx), sessionId, msgs)
      tx.touch(sessionId)
      return ids
    })
  }
  /** `day` (YYYY-MM-DD) overrides the local-date bucket of session_daily_usage (demo data, tests). */
  recordUsage(sessionId: string, usage: UsageReport, opts: { at?: number; day?: string } = {}): Promise<void> {
    return this.write((tx) => {
      requireId(sessionId)
      recordUsageRows(tx, this.handle.shape, sessionId, usage, opts.at, opts.day)
      tx.touch(sessionId)
    })
  }

  // ---- reads ----
  getSession(id: string): SessionRecord | null {
    if (typeof id !== 'string' || id === '') return null
    return toSessionRecord(stmt(this.db, 'SELECT * FROM sessions WHERE id = ?').get(id))
  }
  /**
   * The columns the agent-cache guard compares (hermes-spec §3.4), without `SELECT *`: rows carry the system
   * prompt and model config, which cost more to copy out than the lookup itself. Values are raw; `rewindCount` is
   * null on a home without the column.
   */
  sessionCounters(id: string): SessionCounters | null {
    if (typeof id !== 'string' || id === '') return null
    const shape = this.shape // one pragma: the schema cookie, re-detected when another program changed the schema
    if (!this.countersStmt || this.countersShape !== shape) {
      this.countersStmt = this.db.prepare<unknown[], SessionCounters>(
        `SELECT message_count AS messageCount, ended_at AS endedAt,
          ${shape.columns.get('sessions')?.has('rewind_count') ? 'rewind_count' : 'NULL'} AS rewindCount
          FROM sessions WHERE id = ?`
      )
      this.countersShape = shape
    }
    return this.countersStmt.get(id) ?? null
  }
  /**
   * The parent of each of `ids` that has one, in one read (`sessions.changed` names them): id → parent id. Ids not
   * in the file (deleted since) or without a parent are absent.
   */
  parentsOf(ids: readonly string[]): Map<string, string> {
    const out = new Map<string, string>()
    const wanted = ids.filter((id) => typeof id === 'string' && id !== '')
    if (!wanted.length) return out
    const rows = stmt<
      ColumnsOf<typeof sessions, 'id'> & {
        parent: NonNullable<(typeof sessions.$inferSelect)['parent_session_id']>
      }
    >(
      this.db,
      `SELECT id, parent_session_id AS parent FROM sessions
        WHERE id IN (SELECT value FROM json_each(?)) AND parent_session_id IS NOT NULL AND parent_session_id != ''`
    ).all(JSON.stringify(wanted))
    for (const r of rows) out.set(String(r.id), String(r.parent))
    return out
  }
  /**
   * Each of `ids`' workspace, as upstream's `workspace_key` reads one (`hermes sessions list --workspace`): its git
   * repo root, else its working directory; sessions with neither are absent.
   */
  workspacesOf(ids: readonly string[]): Map<string, string> {
    const rows = stmt<{ id: string; key: string }>(
      this.db,
      `SELECT id, COALESCE(NULLIF(TRIM(git_repo_root), ''), NULLIF(TRIM(cwd), '')) AS key FROM sessions
        WHERE id IN (SELECT value FROM json_each(?)) AND key IS NOT NULL`
    ).all(JSON.stringify(ids))
    return new Map(rows.map((r) => [String(r.id), String(r.key)]))
  }
  /** Number of session rows (profile list). */
  sessionCount(): number {
    return stmt<number>(this.db, 'SELECT count(*) FROM sessions').pluck().get() ?? 0
  }
  /**
   * `hermes sessions stats`'s numbers, counted as upstream counts them: sessions not archived (in all and by source)
   * and every message row.
   */
  storeStats(): { sessions: number; messages: number; bySource: Record<string, number> } {
    const rows = stmt<{ source: string; n: number }>(
      this.db,
      'SELECT source, count(*) AS n FROM sessions WHERE archived = 0 GROUP BY source ORDER BY n DESC, source'
    ).all()
    const messages = stmt<number>(this.db, 'SELECT count(*) FROM messages').pluck().get() ?? 0
    const bySource = Object.fromEntries(rows.map((r) => [String(r.source), r.n]))
    return { sessions: rows.reduce((t, r) => t + r.n, 0), messages, bySource }
  }
  /** A live upstream gateway heartbeat for this store's profile, or null (cron stands down when one runs). */
  upstreamGateway(nowSec: number, profile = this.profile): GatewayHeartbeat | null {
    return liveUpstreamGateway(this.db, profile, nowSec)
  }
  /** `afterId`: only the rows after that one (the rows a compression cloned into its child after the handoff). */
  getMessagesAsConversation(
    id: string,
    opts: { repairAlternation?: boolean; afterId?: number } = {}
  ): ConversationMessage[] {
    return conversation(this.db, id, opts.repairAlternation === true, opts.afterId ?? 0)
  }
  /**
   * The v31 identity of one stored message of the session (undefined on an older home): for a message another part
   * saved (the user's, a notice) that a turn then holds in memory, so a copy of it keeps its uid.
   */
  messageUids(sessionId: string, messageId: number): ConversationMessage['identity'] {
    return hasIdentity(currentColumns(this.db, 'messages')) ? storedUids(this.db, sessionId, messageId) : undefined
  }
  resolveResumeSessionId(id: string): string {
    return resumeTip(this.db, id)
  }
  /**
   * The ids of the compression chain `id` belongs to, root first (the lineage rows stay inside the store: every
   * caller outside it needs only which sessions make up the conversation).
   */
  compressionChainIds(id: string): string[] {
    return compressionChain(this.db, id).map((r) => r.id)
  }
  getLineageRoot(id: string | null | undefined): string | null {
    return lineageRoot(this.db, id)
  }
  branchesOf(id: string, source: string): string[] {
    return branchesOf(this.db, id, source)
  }
  /** Sessions on `source` whose first user message is `text` (or it with context joined by a line break), newest first. */
  sessionsOpeningWith(text: string, source: string, limit: number): string[] {
    return sessionsOpeningWith(this.db, text, source, limit)
  }
  /** Sessions on `source` whose latest assistant text ends with `tail` (trimmed), newest first. */
  sessionsReplyingWith(tail: string, source: string, limit: number): string[] {
    return sessionsReplyingWith(this.db, tail, source, limit)
  }
  sessionsWithReply(tail: string, source: string, limit: number): string[] {
    return sessionsWithReply(this.db, tail, source, limit)
  }

  listSessions(q: ListOptions = {}): SessionPage {
    return listSessionRows(this.db, this.profile, q)
  }
  /** A list page and, in an order other than the default, its rows' sort values (a merge across profiles needs them). */
  listSessionsKeyed(q: ListOptions = {}): { page: SessionPage; keys: SortValue[] } {
    return listSessionPage(this.db, this.profile, q)
  }
  /** Every source of this profile's sessions but upstream's hidden internal ones, sorted. */
  listSources(): string[] {
    return sessionSources(this.db)
  }
  getSessionDetail(id: string): SessionDetail | null {
    return sessionDetail(this.db, this.profile, id)
  }
  summary(id: string): SessionSummary | null {
    return summaryById(this.db, this.profile, id)
  }
  getMessages(q: { sessionId: string } & PageOptions): MessagePage {
    return messagePage(this.db, q.sessionId, q)
  }

  /** One chunk of a field a page cut ("show all"); null when there is no such message in the session. */
  getMessageText(q: TextField, offset: number, limit: number): MessageText | null {
    return this.fieldReader.read(this.db, q, offset, limit)
  }
  search(q: { query: string; limit?: number; filters?: SearchFilters }): Array<RawHit & { profile: string }> {
    return this.searchFull(q).hits
  }
  /** Hits, title matches, every matching session's count, the fallback used, or the message to show. */
  searchFull(q: { query: string; limit?: number; filters?: SearchFilters }): {
    hits: Array<RawHit & { profile: string }>
    titles: Array<TitleHit & { profile: string }>
    sessions: Map<string, { hits: number; title: string | null }>
    message?: string
    fallback?: string
  } {
    const r = searchMessages(this.db, this.shape, q.query, q.limit, q.filters, this.rechecks.forSearch())
    return {
      hits: r.hits.map((h) => ({ ...h, profile: this.profile })),
      titles: r.titles.map((t) => ({ ...t, profile: this.profile })),
      sessions: r.sessions ?? new Map(),
      ...(r.message ? { message: r.message } : {}),
      ...(r.fallback ? { fallback: r.fallback } : {})
    }
  }
}
