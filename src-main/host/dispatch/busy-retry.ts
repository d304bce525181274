/**
 * A profile's state.db locked by another program (issue 21 item 4). In a rollback-journal home (upstream's
 * fallback where WAL is unavailable) a foreign write blocks readers too; the store's connections then fail
 * fast with SQLITE_BUSY instead of sleeping on the event loop, and the dispatcher retries read requests here,
 * on timers, until the lock is gone. Anything else, and a read still locked after the budget, is refused
 * with a message that names the cause — never "not found", never an internal error.
 */
import { CaduceusError, type EventPayload } from '@shared/contract'
import { isBusy, readRetrying } from '../../store'

/** Requests that only read: safe to run again from the start. */
const READ_REQUESTS: ReadonlySet<string> = new Set([
  'app.info',
  'profiles.list',
  'sessions.list',
  'sessions.get',
  'sessions.messages',
  'sessions.search',
  'gateway.state',
  'settings.get',
  'subagents.list',
  'subagents.estimate',
  'costs.session',
  'costs.summary',
  'memory.events',
  'memory.entries',
  'memory.health',
  'memory.providers',
  'cron.list',
  'cron.preview',
  'channels.status',
  'prices.get'
])

const READ_RETRY_MS = 30_000

const lockedError = () =>
  new CaduceusError(
    'unavailable',
    'The session database is locked by another program; nothing was changed. Try again when that program has finished.'
  )

/** What a read request waiting on another program's lock reports: it began to wait, the lock went, or it gave up. */
export type LockWait = EventPayload<'store.lockChanged'>['state']
/** What it waits for: another program's lock, or a state.db replaced under the store (reopened after a short grace). */
export type LockCause = EventPayload<'store.lockChanged'>['cause']

/** The store throws SQLITE_BUSY_SWAP while a replaced state.db's old -wal/-shm may still go (session-store.ts). */
const causeOf = (busy: unknown): LockCause =>
  (busy as { code?: unknown } | null)?.code === 'SQLITE_BUSY_SWAP' ? 'replaced' : 'locked'

/**
 * Runs `fn`; a read request that meets SQLITE_BUSY is run again on the store's read retry (timers, jittered
 * 5 → 200 ms) for up to `budgetMs`. A write, or a read still locked at the end, is refused as locked. `onLock`
 * hears a read's wait as it starts (the first SQLITE_BUSY) and how it ended, so a page can say at once why it is
 * still loading instead of showing "Loading…" for the whole budget, and why (`cause`: a lock, or a restore).
 */
export async function withBusyRetry<T>(
  name: string,
  fn: () => Promise<T> | T,
  budgetMs = READ_RETRY_MS,
  onLock?: (state: LockWait, cause: LockCause) => void
): Promise<T> {
  let waited = false
  let cause: LockCause = 'locked'
  const tell = (state: LockWait) => {
    try {
      onLock?.(state, cause)
    } catch {
      // a listener's failure is no reason to fail the read
    }
  }
  try {
    const out = READ_REQUESTS.has(name)
      ? await readRetrying(fn, budgetMs, (busy) => {
          waited = true
          cause = causeOf(busy)
          tell('waiting')
        })
      : await fn()
    if (waited) tell('cleared')
    return out
  } catch (err) {
    const gaveUp = isBusy(err) || (err as Error | undefined)?.name === 'ReadBusyError'
    // any other outcome after a wait (a failure of its own): the lock itself is gone
    if (waited) tell(gaveUp ? 'gave_up' : 'cleared')
    if (gaveUp) throw lockedError()
    throw err
  }
}
