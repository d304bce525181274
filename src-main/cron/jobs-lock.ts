/**
 * Upstream's jobs.json lock: an exclusive `flock` on `<cron dir>/.jobs.lock`, so `hermes cron` (and upstream's
 * gateway ticker) and this app never rewrite jobs.json at the same time (the helper-process flock is scope's
 * `withFlock`). The wait is bounded (upstream waits 30 s too); past it the edit is refused, never made without
 * the lock.
 */
import { join } from 'node:path'
import { withFlock } from '../scope'

/** Upstream's bound; CADUCEUS_CRON_LOCK_WAIT_MS overrides it (tests, slow shared disks). */
export const LOCK_WAIT_MS = 30_000
const waitDefault = () => Number(process.env.CADUCEUS_CRON_LOCK_WAIT_MS) || LOCK_WAIT_MS
export const lockFileOf = (cronDir: string) => join(cronDir, '.jobs.lock')

export class JobsLockError extends Error {}

/** Run `fn` holding the exclusive lock on `<cronDir>/.jobs.lock`; refuse after `waitMs` of someone else holding it. */
export async function withJobsLock<T>(cronDir: string, fn: () => T | Promise<T>, waitMs = waitDefault()): Promise<T> {
  const lockFile = lockFileOf(cronDir)
  return withFlock(lockFile, fn, {
    waitMs,
    onTimeout: () =>
      new JobsLockError(
        `jobs.json is locked by another process (${lockFile}) for more than ${Math.round(waitMs / 1000)} s; not changing it — try again`
      ),
    onFailure: (why) => new JobsLockError(`could not take the cron jobs lock ${lockFile}: ${why}`)
  })
}

/** Another scheduler's tick holds `<cron dir>/.tick.lock` now. */
class TickBusy extends Error {}

/**
 * Upstream's tick lock: `hermes cron tick` and its gateway's ticker hold an exclusive, non-blocking flock on
 * `<cron dir>/.tick.lock` from their due scan until the due jobs have had next_run_at advanced — a recurring job
 * inside its grace window is found due under the jobs lock but advanced in a later, separate one. A claim made here
 * in between would find the job still due and run it a second time, so each claim of ours holds this lock too.
 * Not waited for (upstream's ticks skip when it is held, and so does ours): `fn` is not called and null is returned.
 */
export async function withTickLock<T>(cronDir: string, fn: () => Promise<T>): Promise<T | null> {
  const lockFile = join(cronDir, '.tick.lock')
  try {
    return await withFlock(lockFile, fn, {
      waitMs: 0,
      mode: 0o644, // as upstream's open(…, "w") leaves it under the usual umask
      onTimeout: () => new TickBusy(),
      onFailure: (why) => new JobsLockError(`could not take the cron tick lock ${lockFile}: ${why}`)
    })
  } catch (err) {
    if (err instanceof TickBusy) return null
    throw err
  }
}
