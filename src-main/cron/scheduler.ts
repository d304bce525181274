/**
 * The in-host cron scheduler. Each tick, per profile: stand down while an upstream gateway heartbeats for
 * it (that gateway runs the profile's jobs); otherwise CLAIM due jobs by advancing `next_run_at` under the
 * jobs.json lock, then run them. Claiming first is what makes two schedulers (two app windows, the CLI,
 * a second machine on a shared home) run a due job once: the second one finds it no longer due.
 *
 * Catch-up rule (jobs missed while the app was closed): a job whose time passed runs ONCE at the next
 * tick, however many occurrences were missed; its next time is then computed from now. Missed runs of an
 * interval or cron job are not replayed one by one (a laptop waking up must not fire a day of jobs).
 *
 * The scheduler starts at most MAX_PARALLEL_JOBS at once across profiles (Run now counts toward them), and a
 * job still running is not started again, by a tick or by Run now:
 * only as many jobs as there are free slots are claimed, so the rest stay due (untouched in jobs.json)
 * for the next tick instead of being claimed and then lost if the app quits while they wait.
 */
import { CaduceusError } from '@shared/contract'
import type { LogFn } from '@shared/contract/log'
import { existsSync } from 'node:fs'
import { jobsPath, updateJobs, type RawJob } from './jobs-file'
import { timeZoneOf } from './jobs'
import { nextRunAfter } from './schedule'
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

const isDue = (job: RawJob, now: number) => {
  if (job.enabled === false || (job.state !== undefined && job.state !== 'scheduled')) return false
  const at = typeof job.next_run_at === 'string' ? Date.parse(job.next_run_at) : NaN
  return Number.isFinite(at) && at <= now
}

/**
 * Claim up to `limit` due jobs of one profile (skipping ids in `busy`): advance next_run_at under the lock;
 * returns what this caller must run.
 */
async function claimDueJobs(
  home: string,
  now: number,
  limit = Infinity,
  busy: ReadonlySet<string> = new Set()
): Promise<RawJob[]> {
  // No jobs.json, nothing due: a tick must not create the cron folder or its lock file in a home it only reads.
  if (!existsSync(jobsPath(home))) return []
  const timeZone = timeZoneOf(home)
  return updateJobs(home, (file, changed) => {
    const claimed: RawJob[] = []
    for (const job of file.jobs) {
      if (claimed.length >= limit) break
      if (!isDue(job, now) || busy.has(`${home}\0${String(job.id)}`)) continue
      job.next_run_at =
        (job.schedule as { kind?: string } | null)?.kind === 'once'
          ? null
          : nextRunAfter(job.schedule, now, { timeZone })
      claimed.push(structuredClone(job))
      changed()
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

  status(): SchedulerStatus {
    return {
      enabled: this.timer !== null,
      lastTickAt: this.lastTickAt,
      standingDown: [...this.standingDown],
      running: this.running
    }
  }

  /**
   * "Run now" (Cron page, `caduceus cron run`): refused while the scheduler (or another Run now) is running
   * the same job; it counts toward the running jobs, so a tick meanwhile claims fewer. Never refused for the
   * cap itself — the user asked for this one.
   */
  async runNow<T>(home: string, jobId: string, run: () => Promise<T>): Promise<T> {
    const key = `${home}\0${jobId}`
    if (this.busy.has(key))
      throw new CaduceusError('conflict', `cron job ${jobId} is running now; try again when it ends`)
    this.busy.add(key)
    this.running++
    try {
      return await run()
    } finally {
      this.running--
      this.busy.delete(key)
    }
  }

  /** One pass over every profile; resolves when the jobs it claimed have finished. */
  async tick(): Promise<{ ran: string[] }> {
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
          const free = MAX_PARALLEL_JOBS - this.running
          if (free <= 0) continue
          for (const job of await claimDueJobs(p.home, now, free, this.busy)) {
            const key = `${p.home}\0${String(job.id)}`
            this.running++
            this.busy.add(key)
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
