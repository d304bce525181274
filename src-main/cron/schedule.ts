/**
 * The upstream cron schedule grammar (hermes-channels §3): "30m" / "2h" / "1d" (once, after that long),
 * "every 30m" (interval), a 5-field cron expression, or an ISO timestamp (once; a naive time is read in
 * the configured timezone). Cron expressions are parsed by `cron-parser`, not by hand.
 */
import { CronExpressionParser } from 'cron-parser'

export type Schedule =
  | { kind: 'once'; run_at: string; display: string }
  | { kind: 'interval'; minutes: number; display: string }
  | { kind: 'cron'; expr: string; display: string }

export const SCHEDULE_FORMS = [
  '"30m" / "2h" / "1d" — once, after that long',
  '"every 30m" / "every 2h" — repeating interval',
  '"0 9 * * *" — 5-field cron expression',
  '"2026-02-03T14:00" — once, at that time'
]

/** A past one-shot is refused at creation unless it is within this grace window. */
export const PAST_GRACE_MS = 120_000

export class ScheduleError extends Error {}

const DURATION = /^(\d+)\s*(m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)$/i
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i

function minutesOf(amount: string, unit: string): number {
  const n = Number(amount)
  const u = unit[0]!.toLowerCase()
  return u === 'd' ? n * 1440 : u === 'h' ? n * 60 : n
}

const compact = (minutes: number) =>
  minutes % 1440 === 0 ? `${minutes / 1440}d` : minutes % 60 === 0 ? `${minutes / 60}h` : `${minutes}m`

/** ISO 8601 with an explicit offset (upstream writes offsets, never a bare local time). */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00')
}

/** Milliseconds of a naive wall-clock time in `timeZone` (or this machine's zone when none is set). */
function zonedWallTime(text: string, timeZone: string | undefined): number {
  const naive = text.replace(' ', 'T')
  const asUtc = Date.parse(`${naive.length === 10 ? `${naive}T00:00` : naive}Z`)
  if (!timeZone) return Date.parse(naive.length === 10 ? `${naive}T00:00` : naive)
  // The zone's offset at that instant, from Intl (correct across DST for all but the skipped hour).
  const w = wallFields(asUtc, timeZone)
  const wallOfUtc = Date.UTC(+w.y, +w.mo - 1, +w.d, +w.h, +w.mi, +w.s)
  return asUtc - (wallOfUtc - asUtc)
}

function refuse(text: string): never {
  throw new ScheduleError(`Invalid schedule ${JSON.stringify(text)}. Use one of:\n  ${SCHEDULE_FORMS.join('\n  ')}`)
}

export function parseSchedule(input: string, opts: { now?: number; timeZone?: string } = {}): Schedule {
  const now = opts.now ?? Date.now()
  const text = String(input ?? '').trim()
  if (!text) refuse(text)
  const once = DURATION.exec(text)
  if (once) {
    const minutes = minutesOf(once[1]!, once[2]!)
    if (minutes <= 0) refuse(text)
    return { kind: 'once', run_at: isoWithOffset(now + minutes * 60_000), display: `once in ${compact(minutes)}` }
  }
  const every = /^every\s+(.+)$/i.exec(text)
  if (every) {
    const d = DURATION.exec(every[1]!.trim())
    if (!d) refuse(text)
    const minutes = minutesOf(d[1]!, d[2]!)
    if (minutes <= 0) refuse(text)
    return { kind: 'interval', minutes, display: `every ${compact(minutes)}` }
  }
  if (ISO.test(text)) {
    const ms = /Z|[+-]\d{2}:?\d{2}$/i.test(text)
      ? Date.parse(text.replace(' ', 'T'))
      : zonedWallTime(text, opts.timeZone)
    if (!Number.isFinite(ms)) refuse(text)
    if (ms < now - PAST_GRACE_MS)
      throw new ScheduleError(`The time ${text} is already past; give a future time (or a duration like "30m").`)
    return { kind: 'once', run_at: isoWithOffset(ms), display: `once at ${text}` }
  }
  if (text.split(/\s+/).length === 5) {
    try {
      CronExpressionParser.parse(text, { currentDate: new Date(now), ...(opts.timeZone ? { tz: opts.timeZone } : {}) })
    } catch {
      refuse(text)
    }
    return { kind: 'cron', expr: text, display: text }
  }
  refuse(text)
}

/** When a job on `schedule` runs next after `afterMs` (null: a one-shot already run, or an unusable schedule). */
export function nextRunAfter(
  schedule: unknown,
  afterMs: number,
  opts: { timeZone?: string; lastRunMs?: number | null } = {}
): string | null {
  const s = schedule as Partial<Schedule> & Record<string, unknown>
  if (s?.kind === 'once') {
    if (opts.lastRunMs != null) return null
    return typeof s.run_at === 'string' ? s.run_at : null
  }
  if (s?.kind === 'interval' && typeof s.minutes === 'number' && s.minutes > 0)
    return isoWithOffset(afterMs + s.minutes * 60_000)
  if (s?.kind === 'cron' && typeof s.expr === 'string') {
    try {
      return isoWithOffset(
        CronExpressionParser.parse(s.expr, {
          currentDate: new Date(afterMs),
          ...(opts.timeZone ? { tz: opts.timeZone } : {})
        })
          .next()
          .getTime()
      )
    } catch {
      return null
    }
  }
  return null
}

/** The next `count` run times of a schedule string, for the Cron page's preview. */
export function previewRuns(
  input: string,
  count = 5,
  opts: { now?: number; timeZone?: string } = {}
): { schedule: Schedule; runs: string[] } {
  const now = opts.now ?? Date.now()
  const schedule = parseSchedule(input, opts)
  const runs: string[] = []
  if (schedule.kind === 'once') return { schedule, runs: [schedule.run_at] }
  let at = now
  for (let i = 0; i < count; i++) {
    const next = nextRunAfter(schedule, at, opts)
    if (!next) break
    runs.push(next)
    at = Date.parse(next)
  }
  return { schedule, runs }
}

/** The wall-clock fields (two-digit strings, year four) of the instant `ms` in `timeZone` (this machine's when unset). */
export function wallFields(
  ms: number,
  timeZone: string | undefined
): Record<'y' | 'mo' | 'd' | 'h' | 'mi' | 's', string> {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit'
  }).formatToParts(new Date(ms))
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00'
  return { y: get('year'), mo: get('month'), d: get('day'), h: get('hour'), mi: get('minute'), s: get('second') }
}
