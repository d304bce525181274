/**
 * The claims both schedulers stamp on a job in jobs.json (upstream's `run_claim` on a one-shot a due scan took, the
 * `fire_claim` of a manual run): who owns one, whether it is fresh, and refreshing this host's own while its run goes on.
 */
import type { LogFn } from '@shared/contract/log'
import { errorMessage } from '@shared/contract/errors'
import { hostname } from 'node:os'
import { updateJobs, type RawJob } from './jobs-file'
import { timeZoneOf } from './time-zone'
import { isoWithOffset } from './schedule'
import { completedOf, timesOf } from './jobs'

/** Who a claim names: upstream's machine id where set, else this host and process. */
export const claimOwner = () => process.env.HERMES_MACHINE_ID?.trim() || `${hostname()}:${process.pid}`

export type Kind = 'once' | 'interval' | 'cron' | undefined
export const kindOf = (job: RawJob): Kind => (job.schedule as { kind?: Kind } | null)?.kind
export const timeOf = (v: unknown): number => (typeof v === 'string' ? Date.parse(v) : NaN)

/** A claim `{at, by}` read from a job, and whether it is fresh: younger than `ttl` and not dated in the future. */
export function freshClaim(claim: unknown, now: number, ttl: number): boolean {
  if (!claim || typeof claim !== 'object') return false
  const age = now - timeOf((claim as { at?: unknown }).at)
  return age >= 0 && age < ttl
}

/** A finite one-shot that has run as many times as it may (upstream then removes it instead of running it). */
export function runsUsedUp(job: RawJob): boolean {
  const times = timesOf(job)
  return times !== null && times > 0 && completedOf(job) >= times
}

/** Claims a one-shot for this host's run at `at` (upstream's `run_claim`) and, when finite, counts the run first. */
export function claimOneShot(job: RawJob, at: string): void {
  job.run_claim = { at, by: claimOwner() }
  const times = timesOf(job)
  if (times !== null && times > 0) job.repeat = { ...(job.repeat as object), completed: completedOf(job) + 1 }
}

/**
 * While a job this host claimed runs, refresh the claims it stamped on it (`claims`), under the jobs lock and only
 * while each is still ours (upstream's `heartbeat_run_claim` compare-and-refresh): a one-shot's `run_claim` well
 * inside the run claim TTL, else another Caduceus window or upstream takes a long run's claim for a dead one's and
 * runs the job again or removes it under the run; and the `fire_claim` of a Run now inside its 300 s (upstream never
 * refreshes it, so a run longer than that could be started a second time by `hermes cron run`). Returns the function
 * that stops it; a beat after the run's bookkeeping finds the claims cleared and writes nothing.
 */
export function heartbeatClaims(
  home: string,
  job: RawJob,
  opts: { claims: Array<'run_claim' | 'fire_claim'>; everyMs: number; clock: () => number; log?: LogFn; what: string }
): () => void {
  const byOf = (claim: unknown) => {
    const by = claim && typeof claim === 'object' ? (claim as { by?: unknown }).by : undefined
    return typeof by === 'string' && by ? by : null
  }
  const runBy = opts.claims.includes('run_claim') && kindOf(job) === 'once' ? byOf(job.run_claim) : null
  const fireBy = opts.claims.includes('fire_claim') ? byOf(job.fire_claim) : null
  if (!runBy && !fireBy) return () => {}
  let stopped = false
  const beat = () =>
    updateJobs(home, (file, changed) => {
      if (stopped) return
      const live = file.jobs.find((j) => j.id === job.id)
      if (!live) return
      const at = isoWithOffset(opts.clock(), timeZoneOf(home))
      if (runBy && kindOf(live) === 'once' && byOf(live.run_claim) === runBy) {
        live.run_claim = { ...(live.run_claim as object), at }
        changed()
      }
      if (fireBy && byOf(live.fire_claim) === fireBy) {
        live.fire_claim = { ...(live.fire_claim as object), at }
        changed()
      }
    })
  const timer = setInterval(() => {
    beat().catch((err: unknown) => opts.log?.('warn', `${opts.what}: claim heartbeat failed: ${errorMessage(err)}`))
  }, opts.everyMs)
  timer.unref?.()
  return () => {
    stopped = true
    clearInterval(timer)
  }
}
