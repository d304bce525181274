/**
 * The upstream cron schedule grammar (hermes-channels §3), tried in upstream's order: "every 30m" (interval), a cron
 * expression (5 fields, or 6 with croniter's trailing seconds field), an ISO timestamp (once; a naive time is read
 * in the profile's zone, an explicit offset is kept), "30m" / "2h" / "1d" (once, after that long). Every time is
 * written as upstream's `isoformat()` writes it: in the profile's zone with that zone's offset — upstream reads a
 * stored cron time whose offset differs from its clock's as a timezone move and skips that run. Cron expressions are
 * parsed by `cron-parser`, not by hand.
 */
import { CronExpressionParser } from 'cron-parser'

export type Schedule =
  | { kind: 'once'; run_at: string; display: string }
  | { kind: 'interval'; minutes: number; display: string }
  | { kind: 'cron'; expr: string; display: string }

export const SCHEDULE_FORMS = [
  '"30m" / "2h" / "1d" — once, after that long',
  '"every 30m" / "every 2h" — repeating interval',
  '"0 9 * * *" — cron expression (5 fields; a 6th is seconds)',
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

const pad = (n: number) => String(n).padStart(2, '0')

/** `ms` as the wall time at a fixed UTC offset, `2026-12-06T09:00:00-05:00` (Python's `isoformat()`, no fraction). */
function isoAtOffset(ms: number, offsetMinutes: number): string {
  const wall = new Date(Math.floor(ms / 1000) * 1000 + offsetMinutes * 60_000).toISOString().slice(0, 19)
  const a = Math.abs(offsetMinutes)
  return `${wall}${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`
}

/** The UTC offset of `timeZone` (this machine's zone when unset) at the instant `ms`, in minutes. */
function offsetAt(ms: number, timeZone: string | undefined): number {
  const w = wallFields(ms, timeZone)
  const wall = Date.UTC(+w.y, +w.mo - 1, +w.d, +w.h, +w.mi, +w.s)
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000)
}

/** ISO 8601 in the profile's zone with its offset there (upstream writes `hermes_time.now()`-based times so). */
export function isoWithOffset(ms: number, timeZone?: string): string {
  return isoAtOffset(ms, offsetAt(ms, timeZone))
}

/** The explicit offset of an ISO text (`Z` is +00:00), in minutes; null for a naive time. */
export function offsetOfText(text: string): number | null {
  const m = /(Z|([+-])(\d{2}):?(\d{2}))$/i.exec(text)
  if (!m) return null
  if (m[1]!.toUpperCase() === 'Z') return 0
  return (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]))
}

/**
 * croniter reads a 6th field as seconds, after the minutes' five; cron-parser reads 6 fields with seconds first.
 * Returns the expression cron-parser reads as croniter does, or null when it has neither 5 nor 6 fields.
 */
function forCronParser(expr: string): string | null {
  const f = expr.trim().split(/\s+/)
  if (f.length === 5) return f.join(' ')
  if (f.length === 6) return [f[5], ...f.slice(0, 5)].join(' ')
  return null
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
  const every = /^every\s+(.+)$/i.exec(text)
  if (every) {
    const d = DURATION.exec(every[1]!.trim())
    if (!d) refuse(text)
    const minutes = minutesOf(d[1]!, d[2]!)
    if (minutes <= 0) refuse(text)
    return { kind: 'interval', minutes, display: `every ${minutes}m` }
  }
  const fields = text.split(/\s+/)
  if (fields.length === 5 || fields.length === 6) {
    // croniter (upstream's reader) has no `L` for a weekday (`5L`): a job upstream could never schedule.
    if (/L/i.test(fields[4]!)) refuse(text)
    try {
      CronExpressionParser.parse(forCronParser(text)!, {
        currentDate: new Date(now),
        ...(opts.timeZone ? { tz: opts.timeZone } : {})
      })
    } catch {
      refuse(text)
    }
    return { kind: 'cron', expr: text, display: text }
  }
  if (ISO.test(text)) {
    const explicit = offsetOfText(text)
    const ms = explicit !== null ? Date.parse(text.replace(' ', 'T')) : zonedWallTime(text, opts.timeZone)
    if (!Number.isFinite(ms)) refuse(text)
    if (ms < now - PAST_GRACE_MS)
      throw new ScheduleError(`The time ${text} is already past; give a future time (or a duration like "30m").`)
    // Upstream keeps a given offset as written and gives a naive time the profile's zone.
    const runAt = explicit !== null ? isoAtOffset(ms, explicit) : isoWithOffset(ms, opts.timeZone)
    return { kind: 'once', run_at: runAt, display: `once at ${runAt.slice(0, 10)} ${runAt.slice(11, 16)}` }
  }
  const once = DURATION.exec(text)
  if (once) {
    const minutes = minutesOf(once[1]!, once[2]!)
    if (minutes <= 0) refuse(text)
    return { kind: 'once', run_at: isoWithOffset(now + minutes * 60_000, opts.timeZone), display: `once in ${text}` }
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
    return isoWithOffset(afterMs + s.minutes * 60_000, opts.timeZone)
  if (s?.kind === 'cron' && typeof s.expr === 'string') {
    const expr = forCronParser(s.expr)
    if (!expr) return null
    try {
      return isoWithOffset(
        CronExpressionParser.parse(expr, {
          currentDate: new Date(afterMs),
          ...(opts.timeZone ? { tz: opts.timeZone } : {})
        })
          .next()
          .getTime(),
        opts.timeZone
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
