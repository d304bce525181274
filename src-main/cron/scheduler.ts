/**
 * The in-host cron scheduler. Each tick, per profile: stand down while an upstream gateway heartbeats for
 * it (that gateway runs the profile's jobs); otherwise CLAIM due jobs by advancing `next_run_at` under the
 * jobs.json lock, then run them. Claiming first is what makes two schedulers (two app windows, the CLI,
 * a second machine on a shared home) run a due job once: the second one finds it no longer due.
 *
 * Catch-up rule (jobs missed while the app was closed): a job whose time passed runs ONCE at the next
 * tick, however many occurrences were missed; its next time is then computed from now. Missed runs of an
 * interval or cron job are not replayed one by one (a laptop waking up must not fire a day of jobs).
 */
import type { LogFn } from '@shared/contract/log'
import { updateJobs, type RawJob } from './jobs-file'
import { timeZoneOf } from './jobs'
import { nextRunAfter } from './schedule'

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

const isDue = (job: RawJob, now: number) => {
  if (job.enabled === false || (job.state !== undefined && job.state !== 'scheduled')) return false
  const at = typeof job.next_run_at === 'string' ? Date.parse(job.next_run_at) : NaN
  return Number.isFinite(at) && at <= now
}

/** Claim every due job of one profile: advance next_run_at under the lock; returns what this caller must run. */
export async function claimDueJobs(home: string, now: number): Promise<RawJob[]> {
  const timeZone = timeZoneOf(home)
  return updateJobs(home, (file, changed) => {
    const claimed: RawJob[] = []
    for (const job of file.jobs) {
      if (!isDue(job, now)) continue
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

  /** One pass over every profile; resolves when the jobs it claimed have finished. */
  async tick(): Promise<{ ran: string[] }> {
    const now = this.clock()
    this.lastTickAt = now
    const standingDown: string[] = []
    const runs: Array<Promise<string>> = []
    for (const p of this.opts.profiles()) {
      try {
        if (this.opts.upstreamLive(p)) {
          standingDown.push(p.name)
          continue
        }
        for (const job of await claimDueJobs(p.home, now)) {
          this.running++
          runs.push(
            this.opts
              .run(p, job)
              .then(
                () => job.id,
                (err: unknown) => {
                  this.opts.log?.('warn', `cron job ${job.id} of ${p.name} failed: ${(err as Error).message}`)
                  return job.id
                }
              )
              .finally(() => {
                this.running--
              })
          )
        }
      } catch (err) {
        // One profile's unreadable jobs.json must not stop the others.
        this.opts.log?.('warn', `cron for ${p.name}: ${(err as Error).message}`)
      }
    }
    this.standingDown = standingDown
    return { ran: await Promise.all(runs) }
  }
}
