/**
 * Off-loop write acquisition for a profile's state.db (issue 10 item 2).
 *
 * Why a queue + async backoff and not a worker thread: a write is a synchronous better-sqlite3 transaction
 * whose callback runs arbitrary caller code against this process's connection (read-then-write upserts,
 * the delegation registry's guarded UPDATEs). A worker would need its own connection and every callback
 * moved into it as serialisable SQL — a rewrite of every writer, plus a message hop on every uncontended
 * write (~50–100 µs) for the rare foreign lock. Instead the write connection never waits inside SQLite
 * (busy_timeout 0 while acquiring), so a foreign lock costs one failed BEGIN (~µs) per try, and the retry
 * sleeps on a timer. Measured (bench/write-lock-bench.ts): event-loop max delay while another process
 * holds the lock for 8 s stays in the low milliseconds instead of the old 1 s busy_timeout × 10 stalls.
 *
 * Ordering: in-process writes run strictly in call order. An uncontended write with nothing queued runs
 * right away (same tick, so its effects are visible before the returned promise even settles); anything
 * else joins the per-store FIFO.
 */
import { CaduceusError } from '@shared/contract'

/** Default budget of off-loop retries before a write gives up (issue 10: at least 60 s). */
export const DEFAULT_WRITE_RETRY_MS = 60_000
const MAX_BACKOFF_MS = 200

export const isBusy = (e: unknown) =>
  typeof (e as { code?: unknown })?.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test((e as { code: string }).code)

/** The database stayed locked by another connection for the whole retry budget; nothing was written. */
class WriteBusyError extends CaduceusError {
  constructor(
    readonly profile: string,
    readonly waitedMs: number
  ) {
    super(
      'unavailable',
      `The session database of profile '${profile}' is locked by another program (waited ${Math.round(waitedMs / 1000)} s); nothing was saved. Try again when that program has finished.`
    )
    this.name = 'WriteBusyError'
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Jittered exponential backoff, capped: ~5, 10, 20 … 200 ms (× 0.5–1.5). */
export const backoffMs = (attempt: number) =>
  Math.min(MAX_BACKOFF_MS, 5 * 2 ** Math.min(attempt, 8)) * (0.5 + Math.random())

export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private waiting = 0
  /** Busy retries seen so far (diagnostics, bench). */
  busyRetries = 0

  /** `budget` may be a function: it is read only when a write actually meets a lock (config can change). */
  constructor(
    private readonly profile: () => string,
    public budget: number | (() => number | undefined) = DEFAULT_WRITE_RETRY_MS
  ) {}

  get budgetMs(): number {
    const v = typeof this.budget === 'function' ? this.budget() : this.budget
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : DEFAULT_WRITE_RETRY_MS
  }

  /** Pending writes (queued or backing off). */
  get size(): number {
    return this.waiting
  }

  /** `attempt` runs one whole transaction synchronously and throws SQLITE_BUSY when the lock is taken. */
  run<T>(attempt: () => T): Promise<T> {
    if (this.waiting === 0) {
      try {
        return Promise.resolve(attempt())
      } catch (err) {
        if (!isBusy(err)) return Promise.reject(err)
        this.busyRetries++
        return this.enqueue(attempt, Date.now(), 1)
      }
    }
    return this.enqueue(attempt, null, 0)
  }

  private enqueue<T>(attempt: () => T, startedAt: number | null, tries: number): Promise<T> {
    this.waiting++
    const job = this.tail.then(() => this.retry(attempt, startedAt ?? Date.now(), tries))
    this.tail = job.catch(() => undefined)
    return job.finally(() => {
      this.waiting--
    })
  }

  private async retry<T>(attempt: () => T, startedAt: number, tries: number): Promise<T> {
    let budget: number | null = null
    for (;;) {
      if (tries > 0) {
        budget ??= this.budgetMs
        const left = startedAt + budget - Date.now()
        if (left <= 0) throw new WriteBusyError(this.profile(), Date.now() - startedAt)
        await sleep(Math.min(left, backoffMs(tries)))
      }
      try {
        return attempt()
      } catch (err) {
        if (!isBusy(err)) throw err
        this.busyRetries++
        tries++
      }
    }
  }
}
