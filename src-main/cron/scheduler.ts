/**
 * The in-host cron scheduler. Each tick, per profile: stand down while an upstream gateway heartbeats for
 * it (that gateway runs the profile's jobs); otherwise CLAIM due jobs under the jobs.json lock (a recurring
 * job's next_run_at advanced, a one-shot stamped with upstream's run_claim), then run them. Claiming first is
 * what makes two schedulers (two app windows, the CLI, a second machine on a shared home) run a due job once: the
 * second one finds it no longer due.
 *
 * Catch-up rule (jobs missed while the app was closed): a job whose time passed runs ONCE at the next
 * tick, however many occurrences were missed; its next time is then computed from now. Missed runs of an
 * interval or cron job are not replayed one by one (a laptop waking up must not fire a day of jobs).
 *
 * Run now (runJobNow) claims the job it runs by hand the same way, as upstream's `hermes cron run` claims it (plus a
 * one-shot's run_claim), so neither program's tick fires it during or right after that run.
 *
 * The scheduler starts at most MAX_PARALLEL_JOBS at once across profiles (Run now counts toward them), and no more
 * of one profile's jobs than its `cron.max_parallel_jobs` (upstream's limit, e.g. 1 for jobs that must not overlap);
 * a job still running is not started again, by a tick or by Run now:
 * only as many jobs as there are free slots are claimed, so the rest stay due (untouched in jobs.json)
 * for the next tick instead of being claimed and then lost if the app quits while they wait.
 */
import { CaduceusError } from '@shared/contract'
import type { LogFn } from '@shared/contract/log'
import { existsSync } from 'node:fs'
import { cronDir, jobsPath, readJobs, updateJobs, type RawJob } from './jobs-file'
import { withTickLock } from './jobs-lock'
import { timeZoneOf } from './time-zone'
import { claimHeartbeatMs, profileParallelCap, runClaimTtlMs } from './claim-ttl'
import { claimOneShot, freshClaim, heartbeatClaims, kindOf, runsUsedUp, timeOf } from './claims'
import { runJobNow } from './run-now'
import { isoWithOffset, nextRunAfter, offsetAt, offsetOfText } from './schedule'
import { errorMessage } from '@shared/contract/errors'

export interface SchedulerProfile {
  name: string
  home: string
}

export interface CronSchedulerOptions {
  profiles(): SchedulerProfile[]
  /** Run one claimed job (the host: `runCronJob` on the gateway). */
  run(profile: SchedulerProfile, job: RawJob): Promise<unknown>
  /** True while an upstream gateway is alive for the profile. */
  upstreamLive(profile: SchedulerProfile): boolean
  clock?: () => number
  intervalMs?: number
  /** How often a running one-shot's run_claim is refreshed (default: claimHeartbeatMs()). */
  claimHeartbeatMs?: number
  log?: LogFn
}

export interface SchedulerStatus {
  enabled: boolean
  lastTickAt: number | null
  /** Profiles whose jobs an upstream gateway runs right now. */
  standingDown: string[]
  running: number
}

/** Turns at once from the scheduler (each is a full agent turn with provider calls). */
const MAX_PARALLEL_JOBS = 3

/** Upstream's one-shot grace and the age past which another scheduler's run claim is stale (`HERMES_CRON_TIMEOUT`). */
const ONESHOT_GRACE_MS = 120_000

/** The wall-clock time a stored ISO text names, as if it were UTC (the offset dropped). */
const wallOfText = (text: string) => Date.parse(`${text.replace(/(Z|[+-]\d{2}:?\d{2})$/i, '')}Z`)

/**
 * Upstream's due scan (`get_due_jobs`), so both programs agree on what is due in one jobs.json: only a disabled job
 * is skipped (a job left in `state: error` runs again); a one-shot another scheduler claimed less than the claim TTL
 * ago is skipped; a missing or unreadable next_run_at is recomputed (a one-shot within its grace window, a recurring
 * job from now); a cron time stored with another offset whose wall time is still ahead was written before a
 * timezone change and is recomputed, not run. A due recurring job's next time is advanced before it runs (a crash
 * loses a run rather than repeating it); a due one-shot is claimed with `run_claim` and, when finite, one run is
 * counted (upstream's `claim_dispatch`); a one-shot whose runs are used up is removed instead of run again.
 * Returns whether the job is due; `changed` when the job was rewritten or is to be removed (`remove`). Throws for a
 * due recurring job whose next time cannot be computed (the caller skips that job alone).
 */
function dueScan(
  job: RawJob,
  now: number,
  timeZone: string | undefined,
  runningHere: boolean
): { due: boolean; changed: boolean; remove?: boolean } {
  if (job.enabled === false) return { due: false, changed: false }
  const kind = kindOf(job)
  let changed = false
  if (kind === 'once' && freshClaim(job.run_claim, now, runClaimTtlMs())) return { due: false, changed: false }
  let at = timeOf(job.next_run_at)
  if (!Number.isFinite(at)) {
    let next: string | null = null
    if (kind === 'once') {
      const runAt = timeOf((job.schedule as { run_at?: unknown }).run_at)
      if (!job.last_run_at && runAt >= now - ONESHOT_GRACE_MS)
        next = String((job.schedule as { run_at: string }).run_at)
    } else if (kind === 'cron' || kind === 'interval') next = nextRunAfter(job.schedule, now, { timeZone })
    if (next === null) {
      if (job.next_run_at === undefined || job.next_run_at === null) return { due: false, changed: false }
      delete job.next_run_at // unreadable: upstream strips it
      return { due: false, changed: true }
    }
    job.next_run_at = next
    at = Date.parse(next)
    changed = true
  }
  if (at > now) return { due: false, changed }
  const nowIso = isoWithOffset(now, timeZone)
  // Caduceus up to the release that brought this rewrite wrote every time in UTC (`+00:00`); upstream writes the
  // zone's offset. Such a cron time in a zone that is not at UTC then is the same instant, not one written before a
  // timezone move: read as a move below, it would be recomputed to its next occurrence and the run lost.
  if (kind === 'cron' && offsetOfText(String(job.next_run_at)) === 0 && offsetAt(at, timeZone) !== 0) {
    job.next_run_at = isoWithOffset(at, timeZone)
    changed = true
  }
  const stored = String(job.next_run_at)
  if (
    kind === 'cron' &&
    offsetOfText(stored) !== null &&
    offsetOfText(stored) !== offsetOfText(nowIso) &&
    wallOfText(stored) > wallOfText(nowIso)
  ) {
    job.next_run_at = nextRunAfter(job.schedule, now, { timeZone })
    return { due: false, changed: true }
  }
  if (kind === 'cron' || kind === 'interval') {
    const next = nextRunAfter(job.schedule, now, { timeZone })
    // Not run without a next time to advance to: a crash would run it again, and so would every tick.
    if (next === null) throw new Error(`its next run time cannot be computed from ${JSON.stringify(job.schedule)}`)
    job.next_run_at = next
    return { due: true, changed: true }
  }
  if (kind === 'once') {
    if (runsUsedUp(job)) {
      if (runningHere) return { due: false, changed }
      return { due: false, changed: true, remove: true }
    }
    claimOneShot(job, nowIso)
    return { due: true, changed: true }
  }
  return { due: false, changed }
}

/**
 * Claim up to `limit` due jobs of one profile (skipping ids in `busy`) under the jobs.json lock, as upstream's
 * ticker claims them (dueScan); returns what this caller must run.
 */
async function claimDueJobs(
  home: string,
  now: number,
  limit = Infinity,
  busy: ReadonlySet<string> = new Set(),
  log?: LogFn,
  skip: ReadonlySet<string> = new Set()
): Promise<RawJob[]> {
  // No jobs.json, nothing due: a tick must not create the cron folder or its lock file in a home it only reads.
  if (!existsSync(jobsPath(home))) return []
  // The due scan would change nothing (every enabled job's next run still ahead, or a job no tick can run: no schedule,
  // no next run), so neither lock is taken: each is a helper process, an idle app would start two per profile every
  // tick and make both lock files in a home it only reads. Asked of the scan itself, on a copy of each job; a job the
  // scan cannot read is left to it (it names the job in the log). A stale read only waits for a later tick.
  const timeZone = timeZoneOf(home)
  const idle = (j: RawJob) => {
    if (j.enabled === false || timeOf(j.next_run_at) > now) return true
    try {
      const r = dueScan(structuredClone(j), now, timeZone, busy.has(`${home}\0${String(j.id)}`))
      return !r.due && !r.changed && !r.remove
    } catch {
      return false // a job the scan cannot read: the locked scan skips it and names it in the log
    }
  }
  if (readJobs(home).jobs.every(idle)) return []
  // Under upstream's tick lock as well (jobs-lock.ts: withTickLock); while another tick holds it, nothing is claimed.
  const claimed = await withTickLock(cronDir(home), () =>
    claimUnderJobsLock(home, now, timeZone, limit, busy, log, skip)
  )
  return claimed ?? []
}

function claimUnderJobsLock(
  home: string,
  now: number,
  timeZone: string | undefined,
  limit: number,
  busy: ReadonlySet<string>,
  log: LogFn | undefined,
  skip: ReadonlySet<string>
): Promise<RawJob[]> {
  return updateJobs(home, (file, changed) => {
    const claimed: RawJob[] = []
    for (const job of [...file.jobs]) {
      // Past the limit the scan goes on as upstream's does (a missing next run recovered, a used-up one-shot removed,
      // a timezone move recomputed), but a job found due is left as it was, due for a later tick.
      const full = claimed.length >= limit
      if (skip.has(String(job.id))) continue
      const key = `${home}\0${String(job.id)}`
      // A job this host runs now is its own business: neither claimed again nor removed under its run.
      if (busy.has(key) && kindOf(job) !== 'once') continue
      // One malformed job is skipped (left as it was) and named, as upstream's due scan does; the others still run.
      const before = structuredClone(job)
      let r: ReturnType<typeof dueScan>
      try {
        r = dueScan(job, now, timeZone, busy.has(key))
      } catch (err) {
        file.jobs = file.jobs.map((j) => (j === job ? before : j))
        log?.('warn', `cron job ${String(job.id)} skipped: ${errorMessage(err)}`)
        continue
      }
      if (full && r.due) {
        file.jobs = file.jobs.map((j) => (j === job ? before : j))
        continue
      }
      if (r.remove) file.jobs = file.jobs.filter((j) => j !== job)
      if (r.changed) changed()
      if (r.due && !busy.has(key)) claimed.push(structuredClone(job))
    }
    return claimed
  })
}

export class CronScheduler {
  private timer: NodeJS.Timeout | null = null
  private lastTickAt: number | null = null
  private standingDown: string[] = []
  private running = 0
  /** `<home>\0<job id>` of jobs running now. */
  private readonly busy = new Set<string>()
  /** A tick is claiming: an overlapping one (slow disk, long lock wait) must not count the same free slots. */
  private claiming = false
  private readonly clock: () => number
  /** Set by close(): no tick or Run now starts after it. */
  private closed = false
  /** Ticks and Run nows under way (a tick resolves when the jobs it claimed have finished): close() awaits them. */
  private readonly inflight = new Set<Promise<unknown>>()

  constructor(private readonly opts: CronSchedulerOptions) {
    this.clock = opts.clock ?? Date.now
  }

  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => void this.tick(), this.opts.intervalMs ?? 30_000)
    this.timer.unref?.()
    void this.tick()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /**
   * Host close: no tick or Run now starts, and those under way are awaited — a run records how it ended (its output
   * file, jobs.json) once its turn has stopped, and that must land before the host says it closed, not in a home the
   * user may have moved or deleted by then. The caller stops the runs' turns first. False: some were still under
   * way when `boundMs` passed (a job script past its own timeout).
   */
  async close(boundMs: number): Promise<boolean> {
    this.stop()
    this.closed = true
    let timer: NodeJS.Timeout | undefined
    const bound = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), boundMs)))
    try {
      return await Promise.race([Promise.allSettled([...this.inflight]).then(() => true as const), bound])
    } finally {
      clearTimeout(timer)
    }
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p)
    const done = () => void this.inflight.delete(p)
    p.then(done, done)
    return p
  }

  status(): SchedulerStatus {
    return {
      enabled: this.timer !== null,
      lastTickAt: this.lastTickAt,
      standingDown: [...this.standingDown],
      running: this.running
    }
  }

  /**
   * "Run now" (Cron page): `runJobNow` (claimed in jobs.json as upstream's manual run claims, heartbeated while it
   * runs), refused at once while this scheduler (or another Run now) is running the same job. It counts toward the
   * running jobs, so a tick meanwhile claims fewer; it is never refused for the cap itself — the user asked for this
   * one.
   */
  runNow<T>(home: string, jobId: string, run: (job: RawJob) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new CaduceusError('unavailable', 'The host is shutting down.'))
    return this.track(this.runNowOnce(home, jobId, run))
  }

  private async runNowOnce<T>(home: string, jobId: string, run: (job: RawJob) => Promise<T>): Promise<T> {
    const key = `${home}\0${jobId}`
    if (this.busy.has(key))
      throw new CaduceusError('conflict', `cron job ${jobId} is running now; try again when it ends`)
    this.busy.add(key)
    this.running++
    try {
      return await runJobNow(home, jobId, run, {
        clock: this.clock,
        heartbeatMs: this.opts.claimHeartbeatMs,
        log: this.opts.log
      })
    } finally {
      this.running--
      this.busy.delete(key)
    }
  }

  /**
   * One pass over every profile; resolves when the jobs it claimed have finished. Jobs whose ids are in `skip` are
   * left as they are, due or not (`caduceus cron tick` passes the ones it already ran).
   */
  tick(skip: ReadonlySet<string> = new Set()): Promise<{ ran: string[] }> {
    if (this.closed) return Promise.resolve({ ran: [] })
    return this.track(this.tickOnce(skip))
  }

  private async tickOnce(skip: ReadonlySet<string>): Promise<{ ran: string[] }> {
    const now = this.clock()
    this.lastTickAt = now
    const standingDown: string[] = []
    const runs: Array<Promise<string>> = []
    if (this.claiming) return { ran: [] }
    this.claiming = true
    try {
      for (const p of this.opts.profiles()) {
        try {
          if (this.opts.upstreamLive(p)) {
            standingDown.push(p.name)
            continue
          }
          // The scheduler's cap, and the profile's own (upstream's cron.max_parallel_jobs) counting its jobs running here.
          const mine = [...this.busy].filter((k) => k.startsWith(`${p.home}\0`)).length
          const free = Math.min(MAX_PARALLEL_JOBS - this.running, profileParallelCap(p.home) - mine)
          if (free <= 0) continue
          for (const job of await claimDueJobs(p.home, now, free, this.busy, this.opts.log, skip)) {
            const key = `${p.home}\0${String(job.id)}`
            this.running++
            this.busy.add(key)
            const stopHeartbeat = heartbeatClaims(p.home, job, {
              claims: ['run_claim'],
              everyMs: this.opts.claimHeartbeatMs ?? claimHeartbeatMs(),
              clock: this.clock,
              log: this.opts.log,
              what: `cron job ${String(job.id)} of ${p.name}`
            })
            runs.push(
              this.opts
                .run(p, job)
                .then(
                  () => job.id,
                  (err: unknown) => {
                    this.opts.log?.('warn', `cron job ${job.id} of ${p.name} failed: ${errorMessage(err)}`)
                    return job.id
                  }
                )
                .finally(() => {
                  stopHeartbeat()
                  this.running--
                  this.busy.delete(key)
                })
            )
          }
        } catch (err) {
          // One profile's unreadable jobs.json must not stop the others.
          this.opts.log?.('warn', `cron for ${p.name}: ${errorMessage(err)}`)
        }
      }
    } finally {
      this.claiming = false
    }
    this.standingDown = standingDown
    return { ran: await Promise.all(runs) }
  }
}
