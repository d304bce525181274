/**
 * Memory activity log of ONE profile: every memory event (tool call, recall, sync, write, hook, refusal,
 * error) is stored in that profile's `state.db` (Caduceus-only table `cad_memory_events`) with bounded
 * retention, and pushed to listeners as contract `MemoryEvent`s. A failing DB never fails a memory hook.
 */
import { MemoryEventQuery, readRecallSummary, type MemoryEvent, type ProviderHealth } from '@shared/contract/memory'
import type { MemoryActivityInput, MemoryActivitySink } from './activity-types'
import { MANAGER_LOGGER, memoryLogger, type MemoryLogger, type MemoryLogSink } from './log'
import { clip } from './manager-support'
import { LAST_RESORT, type MemoryRedactor } from './redact'
import { isBusy, type SessionStore } from '../store'
import { rowToEvent } from './activity-schema'
import { errorMessage } from '@shared/contract/errors'

/** The table's typed SQL (store/memory-events-repo.ts) and the write handle its write functions take. */
type MemoryEventsRepo = ReturnType<SessionStore['memoryEventsRepo']>
type WriteTx = Parameters<MemoryEventsRepo['insert']>[0]

export const ACTIVITY_RETENTION = 10_000
const MAX_BATCH = 500
let lastAt = 0
/** Epoch seconds, strictly increasing across the process so merged multi-profile feeds keep recording order. */
function eventTime(): number {
  lastAt = Math.max(Date.now() / 1000, lastAt + 0.000001)
  return lastAt
}

export interface ActivityLogOptions {
  /** Newest events kept (default 10,000). */
  retention?: number
  /** Prune after about this many inserts (default 100); the table holds at most retention + pruneEvery + one batch. */
  pruneEvery?: number
  /**
   * The store's `write` (BEGIN IMMEDIATE, busy retried off the event loop). Without it inserts run as the log's own
   * plain synchronous transactions on the connection (`ownWrite`) — which block the event loop for the connection's
   * busy timeout while another process holds the write lock, so the host always passes it.
   */
  writer?: SessionStore['write']
  /** Where a failed insert or read is reported (the host's log); without one, stderr. */
  log?: MemoryLogSink
  /** The host's secret mask for the summaries it records; without one, the process's last resort. */
  mask?: MemoryRedactor
}

export type MemoryEventListener = (event: MemoryEvent) => void

export class MemoryActivityLog implements MemoryActivitySink {
  private readonly listeners = new Set<MemoryEventListener>()
  private readonly retention: number
  private readonly pruneEvery: number
  private sincePrune = 0
  private offlineId = 0
  private pending: Array<Omit<MemoryEvent, 'id'>> = []
  private scheduled: NodeJS.Immediate | null = null
  private readonly writer: ActivityLogOptions['writer']
  private readonly log: MemoryLogger
  private readonly mask: MemoryRedactor

  /** The table's typed SQL (store/memory-events-repo.ts); it follows the store when the first write swaps connections. */
  constructor(
    private readonly events: MemoryEventsRepo,
    readonly profile: string,
    options: ActivityLogOptions = {}
  ) {
    this.retention = Math.max(1, options.retention ?? ACTIVITY_RETENTION)
    this.pruneEvery = Math.max(1, options.pruneEvery ?? 100)
    this.writer = options.writer
    this.log = memoryLogger(MANAGER_LOGGER, options.log)
    this.mask = options.mask ?? LAST_RESORT
    // Nothing on open: the table is created by the first insert and pruned after inserts, both inside
    // Caduceus's own writes, so a home that only upstream wrote stays byte-identical while it is only read.
  }

  onEvent(listener: MemoryEventListener): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Queue one event. Events are written in ONE transaction per event-loop turn (a synchronous commit per
   * hook would fsync on the main thread several times a turn) and pushed to listeners once they have ids.
   */
  record(input: MemoryActivityInput): void {
    this.pending.push({
      profile: this.profile,
      provider: String(input.provider).slice(0, 200),
      kind: input.kind,
      name: String(input.name).slice(0, 200),
      sessionId: input.sessionId ?? null,
      turnId: input.turnId ?? null,
      ok: input.ok,
      latencyMs: typeof input.latencyMs === 'number' && Number.isFinite(input.latencyMs) ? input.latencyMs : null,
      summary: clip(this.mask.redact(input.summary ?? ''), 300),
      size: typeof input.size === 'number' && Number.isFinite(input.size) ? Math.round(input.size) : null,
      at: eventTime()
    })
    if (this.pending.length >= MAX_BATCH) this.flush()
    else if (!this.scheduled) {
      this.scheduled = setImmediate(() => this.flush())
      this.scheduled.unref?.()
    }
  }

  /** Write queued events now (reads call this first, so they always see everything recorded). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled)
    this.scheduled = null
    if (this.pending.length === 0) return
    const batch = this.pending
    this.pending = []
    if (this.writer) {
      // Uncontended, the store runs this at once (same tick); under a foreign lock, later and off the loop. The
      // callback changes nothing outside the transaction (the store re-runs it when it retries a busy COMMIT): the
      // prune counter moves once the write committed.
      this.writer((tx) => {
        const ids = batch.map((e) => this.events.insert(tx, e))
        const pruned = this.sincePrune + batch.length >= this.pruneEvery
        if (pruned) this.pruneIn(tx)
        return { ids, pruned }
      }).then(
        ({ ids, pruned }) => {
          this.sincePrune = pruned ? 0 : this.sincePrune + batch.length
          this.delivered(batch, ids)
        },
        (err: Error) => {
          this.log.warn(`memory activity log (${this.profile}) insert failed: ${err?.message ?? String(err)}`)
          this.delivered(batch, undefined)
        }
      )
      return
    }
    const ids = this.attempt('insert', () => this.events.ownWrite((tx) => batch.map((e) => this.events.insert(tx, e))))
    if (ids && (this.sincePrune += batch.length) >= this.pruneEvery) this.prune()
    this.delivered(batch, ids)
  }

  private delivered(batch: Array<Omit<MemoryEvent, 'id'>>, ids: number[] | undefined): void {
    for (const [i, event] of batch.entries()) {
      // Still pushed when the DB refused it (negative id): the live view must not go blind on a full disk.
      const full: MemoryEvent = { id: ids?.[i] ?? --this.offlineId, ...event }
      for (const listener of [...this.listeners]) {
        try {
          listener(full)
        } catch {
          // One broken listener must not starve the others.
        }
      }
    }
  }

  /** Newest first. `query.profile` other than this log's profile (or 'all') yields nothing. */
  listEvents(query: MemoryEventQuery = {}): MemoryEvent[] {
    const q = MemoryEventQuery.parse(query)
    this.flush()
    if (q.profile !== 'all' && q.profile !== this.profile) return []
    const rows = this.attempt('query', () => this.events.list(q), true) ?? []
    return rows.map((r) => rowToEvent(r, this.profile))
  }

  /** Per provider: calls, errors, refusals, last error, p95 latency over the retained window. */
  health(): ProviderHealth[] {
    this.flush()
    const stats = this.attempt('health', () => this.events.providerStats(), true) ?? []
    const rows = stats.map((s) => {
      const last = this.events.lastError(s.provider)
      const latencies = this.events.recentLatencies(s.provider).sort((a, b) => a - b)
      const p95 = latencies.length
        ? latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.95) - 1)]!
        : null
      const pre = this.events.lastPrefetch(s.provider)
      const sync = this.events.lastSyncError(s.provider)
      return {
        profile: this.profile,
        provider: s.provider,
        calls: s.calls ?? 0,
        errors: s.errors ?? 0,
        refusals: s.refusals ?? 0,
        lastError: last?.summary ?? null,
        lastErrorAt: last?.at ?? null,
        p95LatencyMs: p95,
        lastPrefetch: pre ? lastRecall(pre) : null,
        lastSyncError: sync ? { at: sync.at, summary: sync.summary } : null,
        syncs: s.syncs ?? 0,
        syncFailures: s.syncFailures ?? 0,
        writes: s.writes ?? 0
      }
    })
    // Failures first: a provider whose last recall failed, then any with errors, then the rest by name.
    const rank = (h: ProviderHealth) => (h.lastPrefetch && !h.lastPrefetch.ok ? 0 : h.errors > 0 ? 1 : 2)
    return rows.sort((a, b) => rank(a) - rank(b) || a.provider.localeCompare(b.provider))
  }

  /** In the log's own transaction (no store writer). */
  private prune(): void {
    this.sincePrune = 0
    this.attempt('prune', () => this.events.ownWrite((own) => this.events.prune(own, this.retention)))
  }

  /** Inside the inserting write; the caller resets the counter once that write committed. */
  private pruneIn(tx: WriteTx): void {
    this.attempt('prune', () => this.events.prune(tx, this.retention))
  }

  /**
   * `fn`, its failure logged and answered with nothing. A read (`read`) that meets another program's lock throws
   * instead: the Memory page's request then waits for the lock and says so, where an empty feed or "no providers
   * have reported yet" told the user something false.
   */
  private attempt<T>(what: string, fn: () => T, read = false): T | undefined {
    try {
      return fn()
    } catch (err) {
      if (read && isBusy(err)) throw err
      this.log.warn(`memory activity log (${this.profile}) ${what} failed: ${errorMessage(err)}`)
      return undefined
    }
  }
}

function lastRecall(pre: NonNullable<ReturnType<MemoryEventsRepo['lastPrefetch']>>) {
  const { query, outcome } = readRecallSummary(pre.summary ?? '')
  return {
    at: pre.at,
    ok: pre.ok === 1,
    latencyMs: pre.latencyMs,
    size: pre.ok === 1 ? pre.size : null,
    query,
    detail: outcome || null
  }
}
