/**
 * A job as the Cron page and `caduceus cron list` show it, read as upstream's list_jobs reads a job: a missing name,
 * schedule display or state filled in the way upstream fills them, `deliver` as upstream normalises it, and the latest
 * run's outcome. jobs.json itself is never changed by reading it.
 */
import type { CronJob } from '@shared/contract'
import type { RawJob } from './jobs-file'
import { jobSkills } from './job-fields'

const str = (v: unknown) => (typeof v === 'string' ? v : null)
const num = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : null)

const text = (v: unknown) => (v == null ? '' : String(v))

/** The name upstream shows for a job whose name was left out: its prompt, first skill, script or id (50 chars). */
function nameOf(j: RawJob): string {
  const name = text(j.name).trim()
  if (name) return name
  const source = text(j.prompt) || jobSkills(j)[0] || text(j.script).trim() || text(j.id) || 'cron job'
  return source.slice(0, 50).trim() || 'cron job'
}

/** The schedule as upstream shows it when `schedule_display` is missing: the schedule's own display, expression or time. */
function scheduleDisplayOf(j: RawJob): string {
  const shown = text(j.schedule_display).trim()
  if (shown) return shown
  const s = j.schedule
  if (s && typeof s === 'object' && !Array.isArray(s)) {
    const o = s as Record<string, unknown>
    for (const k of ['display', 'value', 'expr', 'run_at']) if (text(o[k]).trim()) return text(o[k]).trim()
  } else if (s != null) return String(s)
  return '?'
}

/** Where a job's output goes, as upstream reads `deliver` (a list is its comma-joined targets; nothing is local). */
function deliverOf(j: RawJob): string {
  const d = j.deliver
  if (Array.isArray(d))
    return (
      d
        .map((p) => String(p).trim())
        .filter(Boolean)
        .join(',') || 'local'
    )
  return d == null || d === '' ? 'local' : String(d)
}

export function jobDto(j: RawJob): CronJob {
  const repeat = (j.repeat && typeof j.repeat === 'object' ? j.repeat : {}) as Record<string, unknown>
  return {
    id: j.id,
    name: nameOf(j),
    prompt: str(j.prompt) ?? '',
    scheduleDisplay: scheduleDisplayOf(j),
    state: str(j.state) || (j.enabled === false ? 'paused' : 'scheduled'),
    enabled: j.enabled !== false,
    nextRunAt: str(j.next_run_at),
    lastRunAt: str(j.last_run_at),
    lastStatus: str(j.last_status),
    lastError: str(j.last_error),
    repeatTimes: num(repeat.times),
    repeatCompleted: num(repeat.completed) ?? 0,
    model: str(j.model) || null,
    deliver: deliverOf(j),
    lastDeliveryError: str(j.last_delivery_error),
    lastSessionId: str(j.last_session_id),
    lastWarnings: Array.isArray(j.last_warnings)
      ? j.last_warnings.filter((w): w is string => typeof w === 'string')
      : [],
    // what the job runs besides (or instead of) its prompt: a skill-only job and a script watchdog have none
    skills: jobSkills(j),
    script: text(j.script).trim() || null,
    noAgent: Boolean(j.no_agent),
    workdir: text(j.workdir).trim() || null
  }
}
