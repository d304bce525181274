/**
 * Cron job operations on a profile's jobs.json (upstream field names, hermes-channels §3): create, edit,
 * pause/resume, remove, list. Only the fields an operation is about are touched, the rest kept (an edit also leaves
 * `skills` and the legacy `skill` agreeing, as every upstream update does).
 */
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { cronDir, readJobs, updateJobs, type JobsFile, type RawJob } from './jobs-file'
import { isoWithOffset, nextRunAfter, parseSchedule, PAST_GRACE_MS, ScheduleError } from './schedule'
import { timeZoneOf } from './time-zone'
import { loadConfig, readSection } from '../config'
import { customProviderNames, providerIdentity } from './provider-identity'
import { promptRefusal } from './prompt-guard'
import { jobSkills, normalSkills, validScript, validWorkdir, type JobFields } from './job-fields'

export class JobNotFoundError extends Error {}

export interface JobInput extends JobFields {
  schedule: string
  prompt: string
  name?: string
  /** How many runs before the job completes (null: forever; one-shots default to 1). */
  repeat?: number | null
  model?: string | null
  /** Where output goes, as upstream stores a CLI's `--deliver` (trimmed; empty: `local` on create, none on edit). */
  deliver?: string
}

/**
 * The job a reference names, as upstream's resolve_job_ref reads one (so `caduceus cron pause NAME` works as
 * `hermes cron pause NAME` does): an exact id first, else the one job whose name matches ignoring case; a name two
 * jobs share is refused with their ids.
 */
export function findJob(file: JobsFile, ref: string): RawJob {
  const byId = file.jobs.find((j) => j.id === ref)
  if (byId) return byId
  const wanted = String(ref ?? '').toLowerCase()
  const named = wanted ? file.jobs.filter((j) => typeof j.name === 'string' && j.name.toLowerCase() === wanted) : []
  if (named.length > 1)
    throw new Error(
      `Job name '${ref}' matches ${named.length} jobs: ${named.map((j) => j.id).join(', ')}; use the job id instead`
    )
  if (named[0]) return named[0]
  throw new JobNotFoundError(`No cron job with id or name ${ref}`)
}

const newJobId = () => randomBytes(6).toString('hex')

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null)

/**
 * What upstream's create_job (and an edit of a job's model) notes for its spend guard (run-job.ts): for each of model
 * and provider the job does not pin, the profile's setting now — the config.yaml default model, and the provider
 * config.yaml names, as upstream names it (provider-identity.ts; upstream resolves an automatic pick itself; that axis
 * is then left unnoted, which upstream reads as "not guarded"). A script-only job gets neither.
 */
function inferenceSnapshots(
  home: string,
  job: RawJob
): { provider_snapshot: string | null; model_snapshot: string | null } {
  if (job.no_agent) return { provider_snapshot: null, model_snapshot: null }
  const raw = loadConfig(home).raw
  const m = raw.model
  const section = readSection(raw, 'model')
  const model = typeof m === 'string' ? text(m) : (text(section.default) ?? text(section.model))
  const named = text(section.provider)
  const provider = named ? providerIdentity(named, customProviderNames(raw)) : null
  return {
    provider_snapshot: text(job.provider) || provider === 'auto' ? null : provider,
    model_snapshot: text(job.model) ? null : model
  }
}

function validPrompt(prompt: string): string {
  const p = String(prompt ?? '').trim()
  if (!p) throw new Error('A cron job needs a prompt')
  // As upstream's create and update refuse it (its run would be refused too: prompt-guard.ts).
  const refused = promptRefusal(p)
  if (refused) throw new ScheduleError(refused, 'prompt')
  return p
}

const runsWithoutPrompt = (job: RawJob) =>
  jobSkills(job).length > 0 || Boolean(job.no_agent && typeof job.script === 'string' && job.script.trim())

export function listJobs(home: string): RawJob[] {
  return readJobs(home).jobs
}

export async function createJob(home: string, input: JobInput, now = Date.now()): Promise<RawJob> {
  const timeZone = timeZoneOf(home)
  const schedule = parseSchedule(input.schedule, { now, timeZone })
  // As upstream's create: a no-agent job is its script; any other needs a prompt or a skill to run.
  const skills = normalSkills(input.skills)
  const noAgent = input.noAgent === true
  const given = String(input.prompt ?? '').trim()
  if (noAgent && !(input.script ?? '').trim())
    throw new Error('A job with --no-agent runs its script and nothing else: it needs --script')
  if (!noAgent && !given && !skills.length) throw new Error('A cron job needs a prompt or at least one skill')
  const prompt = given ? validPrompt(given) : ''
  const script = validScript(home, input.script)
  const workdir = validWorkdir(input.workdir)
  // As upstream's create_job: no count, or one of 0 or less, is forever; a one-shot's forever is one run.
  const times = countOf(input.repeat) ?? (schedule.kind === 'once' ? 1 : null)
  // unnamed: its prompt, else its first skill, else a no-agent job's script (upstream's label)
  const label = prompt || skills[0] || (noAgent ? script : null) || 'cron job'
  const job: RawJob = {
    id: newJobId(),
    name: input.name?.trim() || Array.from(label).slice(0, 50).join('').trim(),
    prompt,
    skills,
    skill: skills[0] ?? null,
    model: input.model ?? null,
    provider: null,
    provider_snapshot: null,
    model_snapshot: null,
    base_url: null,
    script,
    no_agent: noAgent,
    context_from: null,
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
    deliver: input.deliver?.trim() || 'local',
    origin: null,
    enabled_toolsets: null,
    workdir
  }
  Object.assign(job, inferenceSnapshots(home, job))
  await updateJobs(home, (file, changed) => {
    file.jobs.push(job)
    changed()
  })
  return job
}

/**
 * How an edit treats a job that is not running on its schedule (finished, disabled, left in `state: error`) when
 * the schedule changes. Upstream has two answers, one per edit path, and each Caduceus path takes its counterpart's:
 * - `keep` (the Cron page, as upstream's dashboard and API server, which call update_job): enabled and state stay as
 *   they are; only next_run_at follows the new schedule. A finished job stays finished until it is resumed.
 * - `rearm` (`caduceus cron edit`, as `hermes cron edit`, which goes through the cronjob tool's update): a job that
 *   is not paused is enabled and scheduled again, whatever the new schedule's kind.
 * A paused job keeps its pause and its next_run_at either way (resuming recomputes it).
 */
export type EditMode = 'keep' | 'rearm'

/**
 * An edit: each field given changes. `skills` replaces the list; without it, `removeSkills` then `addSkills` change
 * it, and `clearSkills` empties it whatever else is given (`hermes cron edit --skill|--remove-skill|--add-skill|
 * --clear-skills`). `script` and `workdir` empty clear theirs; `noAgent` false is `--agent`.
 */
export interface JobEdit extends Partial<JobInput> {
  addSkills?: string[]
  removeSkills?: string[]
  clearSkills?: boolean
}

/** The skills list an edit leaves (null: the edit leaves skills alone), as upstream's `cron edit` works it out. */
function editedSkills(job: RawJob, patch: JobEdit): string[] | null {
  if (patch.clearSkills) return []
  if (patch.skills !== undefined) return normalSkills(patch.skills)
  const add = normalSkills(patch.addSkills)
  const remove = new Set(normalSkills(patch.removeSkills))
  if (!add.length && !remove.size) return null
  // from the skills as upstream reads the job (an empty `skills` is none, even beside a legacy `skill`)
  const kept = jobSkills(job).filter((s) => !remove.has(s))
  return [...kept, ...add.filter((s) => !kept.includes(s))]
}

export async function editJob(
  home: string,
  id: string,
  patch: JobEdit,
  mode: EditMode,
  now = Date.now()
): Promise<RawJob> {
  const timeZone = timeZoneOf(home)
  const schedule = patch.schedule !== undefined ? parseSchedule(patch.schedule, { now, timeZone }) : null
  const cleared = patch.prompt !== undefined && !String(patch.prompt ?? '').trim()
  const prompt = patch.prompt !== undefined && !cleared ? validPrompt(patch.prompt) : null
  // checked as create checks them, before jobs.json is touched; empty clears
  const script = patch.script !== undefined ? validScript(home, patch.script) : undefined
  const workdir = patch.workdir !== undefined ? validWorkdir(patch.workdir) : undefined
  return updateJobs(home, (file, changed) => {
    const job = findJob(file, id)
    // As upstream's update: no-agent mode runs the job's script, so one must be on the job or in the same edit.
    if (patch.noAgent === true && !(script !== undefined ? script : job.script))
      throw new Error('A job with --no-agent runs its script and nothing else: give it one with --script')
    const agentBefore = Boolean(job.no_agent)
    const modelBefore = text(job.model)
    // Fields are set in the order upstream's update sets them, so a field the job lacked lands where upstream's
    // writes it (after the job's own, in that order).
    if (cleared) job.prompt = ''
    if (prompt !== null) job.prompt = prompt
    if (patch.name !== undefined) job.name = patch.name.trim() || job.name
    if (patch.deliver !== undefined) job.deliver = patch.deliver.trim() || null
    const skills = editedSkills(job, patch)
    if (skills) Object.assign(job, { skills, skill: skills[0] ?? null })
    if (patch.model !== undefined && (patch.model || null) !== modelBefore) job.model = patch.model || null
    if (script !== undefined) job.script = script
    if (workdir !== undefined) job.workdir = workdir
    if (patch.noAgent !== undefined) job.no_agent = patch.noAgent
    if (patch.repeat !== undefined)
      job.repeat = {
        ...(isObj(job.repeat) ? job.repeat : {}),
        times: countOf(patch.repeat),
        completed: completedOf(job)
      }
    if (schedule) {
      job.schedule = schedule
      job.schedule_display = schedule.display
      if (job.state !== 'paused' && mode === 'rearm') Object.assign(job, { state: 'scheduled', enabled: true })
    }
    // Every upstream update leaves `skills` and the legacy `skill` agreeing (an older job gains the list).
    const all = jobSkills(job)
    Object.assign(job, { skills: all, skill: all[0] ?? null })
    if (schedule && job.state !== 'paused') job.next_run_at = nextRunAfter(schedule, now, { timeZone })
    // A job that loads skills, or runs its script with no agent, runs without a prompt (upstream creates such jobs
    // with none, and its edit clears one); any other job would have nothing to do.
    if (cleared && !runsWithoutPrompt(job)) throw new Error('A cron job needs a prompt')
    // the spend guard's notes follow a change of model or of mode, as upstream's update refreshes them
    if (text(job.model) !== modelBefore || Boolean(job.no_agent) !== agentBefore)
      Object.assign(job, inferenceSnapshots(home, job))
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
      // fire at once in both programs. Whether it ran before does not count, as in upstream's resume: a finished
      // job given a new one-shot time (the Cron page's edit leaves it finished) is resumed for that time.
      const schedule = job.schedule as { kind?: unknown; run_at?: unknown } | null
      const next = nextRunAfter(job.schedule, now, { timeZone })
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

/**
 * Removes the job and, as upstream's remove_job does, its run outputs (`cron/output/<id>/`). An id that is not one
 * plain folder name (`..`, a path) never names a folder to delete: the job goes, nothing else does.
 */
export async function removeJob(home: string, id: string): Promise<RawJob> {
  const removed = await updateJobs(home, (file, changed) => {
    const job = findJob(file, id)
    file.jobs = file.jobs.filter((j) => j !== job)
    changed()
    return job
  })
  const name = String(removed.id).trim()
  if (name && name !== '.' && name !== '..' && !/[/\\]/.test(name) && !isAbsolute(name))
    rmSync(join(cronDir(home), 'output', name), { recursive: true, force: true })
  return removed
}

/** A repeat count as upstream stores one: a positive whole count, else null (forever). */
const countOf = (n: number | null | undefined) => (typeof n === 'number' && n > 0 ? n : null)

const isObj = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v)
export const completedOf = (job: RawJob) =>
  isObj(job.repeat) && typeof job.repeat.completed === 'number' ? job.repeat.completed : 0
export const timesOf = (job: RawJob) =>
  isObj(job.repeat) && typeof job.repeat.times === 'number' ? job.repeat.times : null
