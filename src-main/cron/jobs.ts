/**
 * Cron job operations on a profile's jobs.json (upstream field names, hermes-channels §3): create, edit,
 * pause/resume, remove, list. Only the fields an operation is about are touched; the rest are kept.
 */
import { randomBytes } from 'node:crypto'
import { readJobs, updateJobs, type JobsFile, type RawJob } from './jobs-file'
import { isoWithOffset, nextRunAfter, parseSchedule, PAST_GRACE_MS, ScheduleError } from './schedule'
import { timeZoneOf } from './time-zone'

export class JobNotFoundError extends Error {}

export interface JobInput {
  schedule: string
  prompt: string
  name?: string
  /** How many runs before the job completes (null: forever; one-shots default to 1). */
  repeat?: number | null
  model?: string | null
}

export function findJob(file: JobsFile, id: string): RawJob {
  const job = file.jobs.find((j) => j.id === id)
  if (!job) throw new JobNotFoundError(`No cron job with id ${id}`)
  return job
}

const newJobId = () => randomBytes(6).toString('hex')

function validPrompt(prompt: string): string {
  const p = String(prompt ?? '').trim()
  if (!p) throw new Error('A cron job needs a prompt')
  return p
}

export function listJobs(home: string): RawJob[] {
  return readJobs(home).jobs
}

export async function createJob(home: string, input: JobInput, now = Date.now()): Promise<RawJob> {
  const timeZone = timeZoneOf(home)
  const schedule = parseSchedule(input.schedule, { now, timeZone })
  const prompt = validPrompt(input.prompt)
  const times = input.repeat !== undefined ? input.repeat : schedule.kind === 'once' ? 1 : null
  const job: RawJob = {
    id: newJobId(),
    name: input.name?.trim() || prompt.slice(0, 50),
    prompt,
    skills: [],
    model: input.model ?? null,
    provider: null,
    base_url: null,
    script: null,
    no_agent: false,
    schedule,
    schedule_display: schedule.display,
    repeat: { times, completed: 0 },
    enabled: true,
    state: 'scheduled',
    paused_at: null,
    paused_reason: null,
    created_at: isoWithOffset(now, timeZone),
    next_run_at: nextRunAfter(schedule, now, { timeZone }),
    last_run_at: null,
    last_status: null,
    last_error: null,
    last_delivery_error: null,
    deliver: 'local',
    origin: null,
    enabled_toolsets: null,
    workdir: null
  }
  await updateJobs(home, (file, changed) => {
    file.jobs.push(job)
    changed()
  })
  return job
}

export async function editJob(home: string, id: string, patch: Partial<JobInput>, now = Date.now()): Promise<RawJob> {
  const timeZone = timeZoneOf(home)
  const schedule = patch.schedule !== undefined ? parseSchedule(patch.schedule, { now, timeZone }) : null
  const prompt = patch.prompt !== undefined ? validPrompt(patch.prompt) : null
  return updateJobs(home, (file, changed) => {
    const job = findJob(file, id)
    if (schedule) {
      job.schedule = schedule
      job.schedule_display = schedule.display
      if (job.state !== 'paused') job.next_run_at = nextRunAfter(schedule, now, { timeZone })
      if (job.state === 'completed' && schedule.kind !== 'once')
        Object.assign(job, { state: 'scheduled', enabled: true })
    }
    if (prompt !== null) job.prompt = prompt
    if (patch.name !== undefined) job.name = patch.name.trim() || job.name
    if (patch.model !== undefined) job.model = patch.model || null
    if (patch.repeat !== undefined)
      job.repeat = { ...(isObj(job.repeat) ? job.repeat : {}), times: patch.repeat, completed: completedOf(job) }
    changed()
    return job
  })
}

export async function setPaused(
  home: string,
  id: string,
  paused: boolean,
  reason: string | null = null,
  now = Date.now()
): Promise<RawJob> {
  const timeZone = timeZoneOf(home)
  return updateJobs(home, (file, changed) => {
    const job = findJob(file, id)
    if (paused)
      Object.assign(job, {
        enabled: false,
        state: 'paused',
        paused_at: isoWithOffset(now, timeZone),
        paused_reason: reason
      })
    else {
      // Resuming recomputes from now: the pause does not leave a backlog of runs to catch up. A one-shot whose
      // time passed (beyond the grace window) is refused as upstream's resume_job refuses it: re-armed, it would
      // fire at once in both programs.
      const schedule = job.schedule as { kind?: unknown; run_at?: unknown } | null
      const last = typeof job.last_run_at === 'string' ? Date.parse(job.last_run_at) : null
      const next = nextRunAfter(job.schedule, now, { timeZone, lastRunMs: last })
      if (schedule?.kind === 'once') {
        const at = next === null ? NaN : Date.parse(next)
        if (!(at >= now - PAST_GRACE_MS))
          throw new ScheduleError(
            `Cannot resume: one-shot time ${String(schedule.run_at ?? 'unknown')} is in the past (grace window: ${PAST_GRACE_MS / 1000}s) and will never fire.`
          )
      }
      Object.assign(job, { enabled: true, state: 'scheduled', paused_at: null, paused_reason: null, next_run_at: next })
    }
    changed()
    return job
  })
}

export async function removeJob(home: string, id: string): Promise<RawJob> {
  return updateJobs(home, (file, changed) => {
    const job = findJob(file, id)
    file.jobs = file.jobs.filter((j) => j !== job)
    changed()
    return job
  })
}

const isObj = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v)
export const completedOf = (job: RawJob) =>
  isObj(job.repeat) && typeof job.repeat.completed === 'number' ? job.repeat.completed : 0
export const timesOf = (job: RawJob) =>
  isObj(job.repeat) && typeof job.repeat.times === 'number' ? job.repeat.times : null
