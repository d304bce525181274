/**
 * Cross-process change detection for one store. A dedicated connection polls `PRAGMA data_version` —
 * which moves only when ANOTHER connection commits (other processes and this process's writer alike) —
 * woken by fs.watch on the DB folder (-wal/db writes), by own commits via `store.onLocalChange`, and by
 * a slow fallback tick. An idle DB costs one tiny pragma per tick. On a version change the watcher diffs
 * new message ids and the visible session columns (a TEMP-table snapshot, watcher-prints.ts), so a write
 * that changes nothing visible emits nothing. Wake-ups are coalesced (leading + trailing edge) into one callback per burst.
 */
import Database from 'better-sqlite3'
import { sqliteOptions } from './open'
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'
import { sqliteOf, type SessionStore } from './session-store'
import { advanceActivity } from './activity-index'
import { VisiblePrints } from './watcher-prints'

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
}

export class SessionWatcher {
  private conn: Database.Database | null = null
  private fsw: FSWatcher | null = null
  private tick: NodeJS.Timeout | null = null
  private window: NodeJS.Timeout | null = null
  private probes: NodeJS.Timeout[] = []
  private busyRetry: NodeJS.Timeout | null = null
  private trailing = false
  private version = -1
  private maxMessageId = 0
  private prints: VisiblePrints | null = null
  /** delegation_id → "state|updated_at" and its parent, as last seen (the table is pruned upstream: small). */
  private delegations = new Map<string, { print: string; parent: string | null }>()
  private changedDelegations: DelegationsChanged['delegations'] = []
  private unsubscribe: (() => void) | null = null
  /** Counters for tests and the bench: version changes seen vs callbacks emitted. */
  readonly stats = { checks: 0, versionChanges: 0, emits: 0 }
  private readonly coalesceMs: number
  private readonly fallbackMs: number | null
  private readonly onDelegations: ((e: DelegationsChanged) => void) | null

  constructor(
    private readonly store: SessionStore,
    private readonly onChange: (e: SessionsChanged) => void,
    opts: WatcherOptions = {}
  ) {
    this.onDelegations = opts.onDelegations ?? null
    this.coalesceMs = Math.max(1, opts.coalesceMs ?? 50)
    this.fallbackMs = opts.fallbackMs === undefined ? null : Math.max(1000, opts.fallbackMs)
  }

  start(): this {
    if (this.conn) return this
    this.conn = new Database(this.store.path, sqliteOptions({ fileMustExist: true }))
    // Never sleep on the event loop for a foreign lock (a rollback-journal home blocks readers during a write):
    // a locked check fails at once and is retried on a timer.
    this.conn.pragma('busy_timeout = 0')
    this.conn.pragma('temp_store = MEMORY') // the visible-columns snapshot lives in a TEMP table on this connection
    this.prints = new VisiblePrints(this.conn)
    this.version = this.dataVersion()
    try {
      this.snapshot()
    } catch {
      /* a stale read-only DB: checks will keep returning [] rather than crash */
    }
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
      this.fsw = null
    }
    this.tick = setInterval(() => this.trigger(), this.fallbackMs ?? (this.fsw ? 15_000 : 2000))
    this.tick.unref()
    this.unsubscribe = this.store.onLocalChange(() => this.trigger())
    return this
  }

  stop(): void {
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
    this.conn?.close()
    this.conn = null
    this.prints = null
  }

  /**
   * Leading edge runs now; anything arriving inside the window gets one trailing check. The window opens
   * only after a check that saw a commit: a check that found nothing costs one pragma, so it needs no
   * throttle — and the commit's own file event, arriving a moment later, is then handled immediately.
   */
  trigger(): void {
    if (!this.conn) return
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

  /** Returns the changed ids it emitted ([] when nothing visible changed). */
  check(): string[] {
    if (!this.conn) return []
    let changed: string[]
    try {
      this.stats.checks++
      const v = this.dataVersion()
      if (v === this.version) return []
      changed = this.diff()
      this.version = v // only once the diff succeeded: a locked moment must not lose the change
      this.stats.versionChanges++
    } catch {
      // A locked/corrupt moment: retry shortly (a foreign lock's release may bring no file event we watch).
      if (!this.busyRetry && this.conn) {
        this.busyRetry = setTimeout(() => {
          this.busyRetry = null
          this.trigger()
        }, 250)
        this.busyRetry.unref()
      }
      return []
    }
    this.advanceList()
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

  private dataVersion(): number {
    return Number(this.conn!.pragma('data_version', { simple: true }))
  }

  private snapshot(): void {
    const conn = this.conn!
    conn.transaction(() => {
      this.maxMessageId = Number(
        (conn.prepare('SELECT COALESCE(MAX(id), 0) AS m FROM messages').get() as { m: number }).m
      )
      this.prints!.reset()
      if (this.onDelegations) this.delegations = this.readDelegations()
    })()
  }

  /** Every durable delegation's print; none when the table does not exist (a home no delegation ever touched). */
  private readDelegations(): Map<string, { print: string; parent: string | null }> {
    const out = new Map<string, { print: string; parent: string | null }>()
    let rows: Array<[string, string | null, string, number]>
    try {
      rows = this.conn!.prepare('SELECT delegation_id, parent_session_id, state, updated_at FROM async_delegations')
        .raw()
        .all() as Array<[string, string | null, string, number]>
    } catch (err) {
      if (/no such table/i.test(String((err as Error).message))) return out
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
    conn.transaction(() => {
      const fresh = conn
        .prepare('SELECT session_id, id FROM messages WHERE id > ? ORDER BY id')
        .raw()
        .all(this.maxMessageId) as Array<[string, number]>
      for (const [sid, id] of fresh) {
        ids.add(sid)
        this.maxMessageId = Math.max(this.maxMessageId, Number(id))
      }
      for (const id of this.prints!.diff()) ids.add(id)
      if (this.onDelegations) this.diffDelegations()
    })()
    return [...ids]
  }
}
