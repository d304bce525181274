/**
 * Run now (the Cron page, `caduceus cron run`): a job run by hand is claimed the way upstream's `hermes cron run`
 * claims it (plus a one-shot's run_claim), so neither program's tick fires it during or right after that run.
 */
import { CaduceusError } from '@shared/contract'
import type { LogFn } from '@shared/contract/log'
import { errorMessage } from '@shared/contract/errors'
import { updateJobs, type RawJob } from './jobs-file'
import { completedOf, findJob, JobNotFoundError, timesOf } from './jobs'
import { timeZoneOf } from './time-zone'
import { FIRE_CLAIM_TTL_MS, runClaimTtlMs, runNowHeartbeatMs } from './claim-ttl'
import { markFailedRun } from './run-job'
import { isoWithOffset, nextRunAfter } from './schedule'
import { claimOneShot, claimOwner, freshClaim, heartbeatClaims, kindOf, runsUsedUp } from './claims'

/**
 * Claim a job for a run by hand, as upstream's manual run claims it (`claim_job_for_fire`, then `run_one_job`'s
 * `claim_dispatch`), under the jobs lock: refused for a paused or disabled job and while a fresh `fire_claim` says
 * another manual run has it; stamped with `fire_claim`; a recurring job's next_run_at advanced from now (the run is
 * this occurrence: neither scheduler fires it again); a finite one-shot's run counted, or, its runs used up, the job
 * removed and not run. Beyond upstream: a one-shot also gets `run_claim`, the claim upstream's due scan honours —
 * upstream's own manual run stamps only `fire_claim`, which its due scan ignores, so a due one-shot run by hand in
 * one program is removed under the run by the other's next tick (or, with no repeat limit, run again). A one-shot
 * another scheduler holds a fresh `run_claim` on is refused, where upstream would remove it under that run.
 */
async function claimRunNow(home: string, jobId: string, now: number): Promise<RawJob> {
  const timeZone = timeZoneOf(home)
  const r = await updateJobs(home, (file, changed) => {
    let job: RawJob
    try {
      job = findJob(file, jobId)
    } catch (err) {
      if (err instanceof JobNotFoundError) throw new CaduceusError('not_found', err.message, 'id')
      throw err
    }
    if (job.enabled === false || job.state === 'paused')
      throw new CaduceusError('conflict', `cron job ${jobId} is paused or disabled; resume it before running it`)
    if (freshClaim(job.fire_claim, now, FIRE_CLAIM_TTL_MS))
      throw new CaduceusError('conflict', `cron job ${jobId} is already being run by hand elsewhere; not run again`)
    const kind = kindOf(job)
    if (kind === 'once' && freshClaim(job.run_claim, now, runClaimTtlMs()))
      throw new CaduceusError('conflict', `cron job ${jobId} is being run by a scheduler now; not run again`)
    if (kind === 'once' && runsUsedUp(job)) {
      file.jobs = file.jobs.filter((j) => j !== job)
      changed()
      return { usedUp: `${completedOf(job)}/${timesOf(job)}` }
    }
    const at = isoWithOffset(now, timeZone)
    job.fire_claim = { at, by: claimOwner() }
    if (kind === 'cron' || kind === 'interval') {
      const next = nextRunAfter(job.schedule, now, { timeZone })
      if (next !== null) job.next_run_at = next
    }
    if (kind === 'once') claimOneShot(job, at)
    changed()
    return { job: structuredClone(job) }
  })
  if ('usedUp' in r)
    throw new CaduceusError('conflict', `cron job ${jobId} had used up its runs (${r.usedUp}): removed, not run`)
  return r.job
}

/**
 * Run a job by hand now ("Run now" on the Cron page, `caduceus cron run`), as upstream's `hermes cron run` does
 * (tools/cronjob_tools.py `_execute_job_now`: run at once, not on the next tick — the dashboard's and API server's
 * `trigger_job` only set next_run_at to now for the next tick): claimed first (claimRunNow), the claims heartbeated
 * while `run` (which does the run's bookkeeping, upstream's `mark_job_run`, clearing both claims) goes on. A run that
 * throws is recorded as failed, as upstream records it, so its claims do not hold the job until they go stale.
 */
export async function runJobNow<T>(
  home: string,
  jobId: string,
  run: (job: RawJob) => Promise<T>,
  opts: { clock?: () => number; heartbeatMs?: number; log?: LogFn } = {}
): Promise<T> {
  const clock = opts.clock ?? Date.now
  const job = await claimRunNow(home, jobId, clock())
  const stop = heartbeatClaims(home, job, {
    claims: ['fire_claim', 'run_claim'],
    everyMs: opts.heartbeatMs ?? runNowHeartbeatMs(),
    clock,
    log: opts.log,
    what: `cron job ${job.id} (run now)`
  })
  try {
    return await run(job)
  } catch (err) {
    stop()
    await markFailedRun(home, job.id, clock(), errorMessage(err)).catch((e: unknown) =>
      opts.log?.('warn', `cron job ${job.id}: could not record its failed run: ${errorMessage(e)}`)
    )
    throw err
  } finally {
    stop()
  }
}
