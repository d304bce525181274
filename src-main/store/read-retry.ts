/**
 * Reads that wait out another program's commit. On a rollback-journal home (config `database.journal_mode: delete`,
 * or a header that is not WAL) a foreign writer's commit holds PENDING/EXCLUSIVE for milliseconds and blocks readers;
 * the store's read connections there have busy_timeout 0 (open.ts), since SQLite's busy handler would sleep on the
 * event loop. So a read that must not fail for that (a turn's) runs through `readRetrying`: tried again on timers
 * (jittered 5 → 200 ms, as writes are) for up to 10 s, then refused as locked by another program. A WAL home's
 * readers are never blocked: there the first try answers.
 */
import { CaduceusError } from '@shared/contract'
import { backoffMs, isBusy } from './write-queue'

const READ_RETRY_MS = 10_000

/** The home stayed locked by another program for the whole budget; nothing was read. */
class ReadBusyError extends CaduceusError {
  constructor(readonly waitedMs: number) {
    super(
      'unavailable',
      `The home's session database (state.db) is locked by another program (waited ${Math.round(waitedMs / 1000)} s). Try again when that program has finished.`
    )
    this.name = 'ReadBusyError'
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * Runs `fn` (which only reads, so it can run again from the start) until it answers without SQLITE_BUSY.
 * `onWait` is called once, at the first SQLITE_BUSY, with that error: the caller can say at once what it waits for
 * (another program's lock, or a state.db replaced under the store: `code` SQLITE_BUSY_SWAP, session-store.ts).
 */
export async function readRetrying<T>(
  fn: () => T | Promise<T>,
  budgetMs = READ_RETRY_MS,
  onWait?: (busy: unknown) => void
): Promise<T> {
  const started = Date.now()
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn()
    } catch (err) {
      if (!isBusy(err)) throw err
      if (attempt === 0) onWait?.(err)
      const left = started + budgetMs - Date.now()
      if (left <= 0) throw new ReadBusyError(Date.now() - started)
      await sleep(Math.min(left, backoffMs(attempt)))
    }
  }
}
