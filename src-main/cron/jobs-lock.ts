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
