/**
 * The upstream cron schedule grammar (hermes-channels §3), tried in upstream's order: "every 30m" (interval), a cron
 * expression (5 fields, 6 with croniter's trailing seconds field, 7 with its year after that), an ISO timestamp
 * (once; a naive time is read in the profile's zone, an explicit offset is kept), "30m" / "2h" / "1d" (once, after
 * that long). Every time is written as upstream's `isoformat()` writes it: in the profile's zone with that zone's
 * offset — upstream reads a stored cron time whose offset differs from its clock's as a timezone move and skips that
 * run. Cron expressions are read as croniter reads them (cron-fields.ts) and then parsed by `cron-parser`, not by hand.
 */
import { CronExpressionParser } from 'cron-parser'
import { cronParserExpr } from './cron-fields'
import { IsoRefusal, parseIsoTime, type IsoParts } from './iso-time'

export type Schedule =
  | { kind: 'once'; run_at: string; display: string }
  | { kind: 'interval'; minutes: number; display: string }
  | { kind: 'cron'; expr: string; display: string }

export const SCHEDULE_FORMS = [
  '"30m" / "2h" / "1d" — once, after that long',
  '"every 30m" / "every 2h" — repeating interval',
  '"0 9 * * *" — cron expression (5 fields; a 6th is seconds)',
  '"2026-02-03T14:00" / "2026-02-03" — once, at that time (Z or +05:30 after it: in that zone)'
]

/** A past one-shot is refused at creation unless it is within this grace window. */
export const PAST_GRACE_MS = 120_000

/** A job input refused: its schedule, or (`field: 'prompt'`) a prompt upstream's check refuses (prompt-guard.ts). */
export class ScheduleError extends Error {
  constructor(
    message: string,
    readonly field: 'schedule' | 'prompt' = 'schedule'
  ) {
    super(message)
  }
}

const DURATION = /^(\d+)\s*(m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)$/i

function minutesOf(amount: string, unit: string): number {
  const n = Number(amount)
  const u = unit[0]!.toLowerCase()
  return u === 'd' ? n * 1440 : u === 'h' ? n * 60 : n
}

const pad = (n: number) => String(n).padStart(2, '0')

/** The latest instant written (Python's `datetime` ends in year 9999; a day spare for any offset). */
const LATEST_MS = Date.parse('9999-12-30T00:00:00Z')
const EARLIEST_MS = Date.parse('0001-01-02T00:00:00Z')
/** Whether `ms` is a time a job can be given: finite and within Python's years. */
const inRange = (ms: number) => Number.isFinite(ms) && ms >= EARLIEST_MS && ms <= LATEST_MS

/** `ms` as the wall time at a fixed UTC offset, `2026-12-06T09:00:00-05:00` (Python's `isoformat()`, no fraction). */
function isoAtOffset(ms: number, offsetMinutes: number): string {
  const wall = new Date(Math.floor(ms / 1000) * 1000 + offsetMinutes * 60_000).toISOString().slice(0, 19)
  const a = Math.abs(offsetMinutes)
  return `${wall}${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`
}

/** The UTC offset of `timeZone` (this machine's zone when unset) at the instant `ms`, in minutes. */
export function offsetAt(ms: number, timeZone: string | undefined): number {
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
 * The instant a naive wall-clock time names in `timeZone` and the offset upstream writes it with (Python's
 * `replace(tzinfo=ZoneInfo(...))`, fold=0): the offset in effect at that real instant, not at the wall time read as
 * UTC (an hour off near a change). A time in the hour a spring-forward skips keeps the offset from before the change
 * (New York `02:30` → `02:30-05:00`); a time in the hour a fall-back repeats is its first occurrence (`01:30-04:00`).
 * Without a zone, this machine's clock reads it (`Date.parse`).
 */
function zonedWallTime(text: string, timeZone: string | undefined): { ms: number; offset: number | null } {
  const naive = text.replace(' ', 'T')
  const full = naive.length === 10 ? `${naive}T00:00` : naive
  if (!timeZone) return { ms: Date.parse(full), offset: null }
  const asUtc = Date.parse(`${full}Z`)
  if (!Number.isFinite(asUtc)) return { ms: NaN, offset: null }
  const DAY = 86_400_000
  const before = offsetAt(asUtc - DAY, timeZone)
  // Each offset in effect near that wall time that reads it back: two in a repeated hour, none in a skipped one.
  const fits = [...new Set([before, offsetAt(asUtc, timeZone), offsetAt(asUtc + DAY, timeZone)])].filter(
    (o) => offsetAt(asUtc - o * 60_000, timeZone) === o
  )
  // fold=0: the first occurrence (the larger offset, the earlier instant); in a gap, the offset from before it.
  const offset = fits.length ? Math.max(...fits) : before
  return { ms: asUtc - offset * 60_000, offset }
}

function refuse(text: string): never {
  throw new ScheduleError(`Invalid schedule ${JSON.stringify(text)}. Use one of:\n  ${SCHEDULE_FORMS.join('\n  ')}`)
}

/** Upstream's cron test: at least five fields, the first five written only with digits, `*`, `-`, `,` and `/`. */
const CRON_FIELD = /^[\d*\-,/]+$/

export function parseSchedule(input: string, opts: { now?: number; timeZone?: string } = {}): Schedule {
  const now = opts.now ?? Date.now()
  const text = String(input ?? '').trim()
  if (!text) refuse(text)
  // Upstream's order: "every " (one space, any case), a cron expression, a timestamp, a duration.
  if (text.toLowerCase().startsWith('every ')) {
    const d = DURATION.exec(text.slice(6).trim())
    if (!d) refuse(text)
    const minutes = minutesOf(d[1]!, d[2]!)
    // "every 0m" is upstream's too: due at once, and again on every tick after each run.
    if (!inRange(now + minutes * 60_000)) refuse(text)
    return { kind: 'interval', minutes, display: `every ${minutes}m` }
  }
  const fields = text.split(/\s+/)
  if (fields.length >= 5) {
    if (fields.slice(0, 5).every((f) => CRON_FIELD.test(f))) return cronSchedule(text, fields, now, opts.timeZone)
    // Names and the like in what is clearly meant as a cron expression get a message that says why.
    if (fields.length <= 7 && fields.slice(0, 5).filter((f) => CRON_FIELD.test(f)).length >= 3)
      throw new ScheduleError(
        `Invalid schedule ${JSON.stringify(text)}: upstream's cron reads the five time fields as numbers only (digits, *, -, / and ,), so names, ?, L and # are refused: write "0 9 * * 1" for Mondays at 9:00, "0 9 * * 1-5" for weekdays.`
      )
  }
  if (text.includes('T') || /^\d{4}-\d{2}-\d{2}/.test(text)) return onceAt(text, now, opts.timeZone)
  const once = DURATION.exec(text)
  if (once) {
    const minutes = minutesOf(once[1]!, once[2]!)
    if (!inRange(now + minutes * 60_000)) refuse(text)
    return { kind: 'once', run_at: isoWithOffset(now + minutes * 60_000, opts.timeZone), display: `once in ${text}` }
  }
  refuse(text)
}

function cronSchedule(text: string, fields: string[], now: number, timeZone: string | undefined): Schedule {
  // croniter reads 5 to 7 fields (seconds, then year); more is refused.
  if (fields.length > 7) refuse(text)
  const parsed = cronParserExpr(text)
  if (!parsed) refuse(text)
  try {
    CronExpressionParser.parse(parsed.expr, { currentDate: new Date(now), ...(timeZone ? { tz: timeZone } : {}) })
  } catch {
    refuse(text) // cron-parser's own refusal: the user's text is named in ours
  }
  return { kind: 'cron', expr: text, display: text }
}

/** A one-shot at the time `text` names, as upstream's `datetime.fromisoformat` reads it (iso-time.ts). */
function onceAt(text: string, now: number, timeZone: string | undefined): Schedule {
  let parts: IsoParts | null
  try {
    parts = parseIsoTime(text)
  } catch (err) {
    if (err instanceof IsoRefusal) throw new ScheduleError(`Invalid time ${JSON.stringify(text)}: ${err.message}.`)
    throw err
  }
  if (!parts)
    throw new ScheduleError(
      `Invalid time ${JSON.stringify(text)}: not a date and time upstream can read. Write it as 2026-02-03T14:00 (or 2026-02-03, 2026-02-03T14, 2026-02-03T14:00:30), optionally with Z or an offset such as +05:30.`
    )
  const naive = parts.offset === null ? zonedWallTime(parts.wall, timeZone) : null
  const offset = parts.offset ?? naive?.offset ?? null
  const ms = naive ? naive.ms : Date.parse(`${parts.wall}Z`) - parts.offset! * 60_000
  if (!inRange(ms)) refuse(text)
  const fine = ms + parts.micro / 1000
  if (fine < now - PAST_GRACE_MS)
    throw new ScheduleError(`The time ${text} is already past; give a future time (or a duration like "30m").`)
  // Upstream keeps the wall time as written, a given offset as written, and gives a naive time the profile's zone.
  const at = offset !== null ? isoAtOffset(ms, offset) : isoWithOffset(ms, timeZone)
  const runAt = parts.micro ? `${at.slice(0, 19)}.${String(parts.micro).padStart(6, '0')}${at.slice(19)}` : at
  return { kind: 'once', run_at: runAt, display: `once at ${runAt.slice(0, 10)} ${runAt.slice(11, 16)}` }
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
  // Upstream's `every 0m` is due again at each run's own time: it runs on every tick.
  if (s?.kind === 'interval' && typeof s.minutes === 'number' && s.minutes >= 0) {
    const at = afterMs + s.minutes * 60_000
    // A hand-edited `"minutes": 1e12` (or 1e400, read as Infinity) names no time Python or Date can write.
    return inRange(at) ? isoWithOffset(at, opts.timeZone) : null
  }
  if (s?.kind === 'cron' && typeof s.expr === 'string') {
    const parsed = cronParserExpr(s.expr)
    if (!parsed) return null
    try {
      const at = nextCronTime(parsed, afterMs, opts.timeZone)
      return at === null ? null : isoWithOffset(at, opts.timeZone)
    } catch {
      return null // cron-parser finds no next run (a date that never comes): the job has none
    }
  }
  return null
}

const DAY_MS = 86_400_000
const MINUTE_MS = 60_000
/**
 * A bound on the wall times read for one answer: past any daylight-saving change for a job of every second (two
 * hours of them, Troll's change); any other job needs a few.
 */
const MAX_WALL_STEPS = 8000

/**
 * The first instant after `afterMs` the expression names on the zone's wall clock. cron-parser reads the fields over
 * wall time with no zone at all (UTC); each wall time it names is then placed in the zone here, as Python's zoneinfo
 * places it (zonedWallTime): a time the clock skips runs at the instant it names with the offset from before (New
 * York's 02:30 on the spring change is 03:30 EDT, as upstream stores it: 02:30-05:00), once per skipped stretch
 * (none once a later wall time has run); a time the clock repeats runs at its first occurrence, and at the second
 * too for an hour field written from `*` (every hour: each real hour runs). cron-parser's own zone arithmetic found
 * no time at all after Lord Howe's half-hour fall-back, skipped Nuuk's 23:30 that the spring change skips and ran
 * Troll's 02:15 twice in its two-hour fall-back. croniter's seventh field (the year) is the wall time's year.
 */
function nextCronTime(
  parsed: NonNullable<ReturnType<typeof cronParserExpr>>,
  afterMs: number,
  timeZone: string | undefined
): number | null {
  const offset = (ms: number) => offsetAt(ms, timeZone) * MINUTE_MS
  const offsets = (ms: number) => [offset(ms - DAY_MS), offset(ms), offset(ms + DAY_MS)]
  const afterOffset = offset(afterMs)
  const afterWall = afterMs + afterOffset
  const from = (ms: number) => CronExpressionParser.parse(parsed.expr, { currentDate: new Date(ms), tz: 'UTC' })
  const inYears = (wall: number) => !parsed.years || parsed.years.includes(new Date(wall).getUTCFullYear())
  let best = Infinity
  // The wall times after `after`'s own, each placed in the zone, until no later one can come sooner.
  let walls = from(afterWall)
  for (let step = 0; step < MAX_WALL_STEPS; step++) {
    let wall: number
    try {
      wall = walls.next().getTime()
    } catch {
      break // no later time at all
    }
    if (!inYears(wall)) {
      const later = parsed.years!.find((y) => y > new Date(wall).getUTCFullYear())
      if (later === undefined) break
      walls = from(Date.UTC(later, 0, 1) - 1000)
      continue
    }
    // the offsets in effect near that wall time that read it back: none in a skipped stretch, two in a repeated one
    const near = offsets(wall)
    const fits = [...new Set(near)].filter((o) => offset(wall - o) === o)
    // First occurrences keep the wall clock's order (a skipped stretch's times do not: they come after the real times
    // that follow them), so once one is later than the best found, no later wall time comes sooner.
    if (fits.length && wall - Math.max(...fits) > best) break
    const instants = !fits.length
      ? [wall - near[0]!]
      : fits.length > 1 && parsed.everyHour
        ? [wall - Math.max(...fits), wall - Math.min(...fits)]
        : [wall - Math.max(...fits)]
    for (const at of instants) if (at > afterMs && at < best) best = at
    // no change of offset within a day of it: nothing later comes sooner (the common case, one wall time read)
    if (best === instants[0] && near[0] === near[1] && near[1] === near[2]) break
  }
  // An every-hour job in the stretch a fall-back is about to repeat: the repeat of a wall time already passed comes
  // again. The first such wall time after `after`'s own less the change names the soonest.
  const back = parsed.everyHour ? fallBackWithin(offset, afterMs, afterOffset - Math.min(...offsets(afterMs))) : null
  if (back) {
    const repeated = from(Math.max(afterMs + back.offset, back.at + back.offset - 1))
    try {
      const wall = repeated.next().getTime()
      const at = wall - back.offset
      if (wall < back.at + afterOffset && inYears(wall) && at > afterMs && at < best) best = at
    } catch {
      // no later time at all
    }
  }
  return best === Infinity ? null : best
}

/** The instant within `span` after `afterMs` the clock goes back to a smaller offset (and that offset), else null. */
function fallBackWithin(
  offset: (ms: number) => number,
  afterMs: number,
  span: number
): { at: number; offset: number } | null {
  const before = offset(afterMs)
  if (span <= 0 || offset(afterMs + span) >= before) return null
  let lo = afterMs
  let hi = afterMs + span
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2)
    if (offset(mid) === before) lo = mid
    else hi = mid
  }
  // clocks change on a whole minute: the one in (lo, hi]
  const at = Math.floor(lo / MINUTE_MS) * MINUTE_MS + MINUTE_MS
  return { at, offset: offset(at) }
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
    // `every 0m` names no later time: it is due on every tick, shown once.
    if (!next || (runs.length && Date.parse(next) <= at)) break
    runs.push(next)
    at = Date.parse(next)
  }
  return { schedule, runs }
}

/**
 * One formatter per named zone: making one costs far more than using it, and a cron time asks for several. The
 * machine's zone (none named) gets a fresh one each time, so a change of TZ in the process is read.
 */
const formatters = new Map<string, Intl.DateTimeFormat>()
function formatterFor(timeZone: string | undefined): Intl.DateTimeFormat {
  let f = timeZone === undefined ? undefined : formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit'
    })
    if (timeZone !== undefined) formatters.set(timeZone, f)
  }
  return f
}

/** The wall-clock fields (two-digit strings, year four) of the instant `ms` in `timeZone` (this machine's when unset). */
export function wallFields(
  ms: number,
  timeZone: string | undefined
): Record<'y' | 'mo' | 'd' | 'h' | 'mi' | 's', string> {
  const parts = formatterFor(timeZone).formatToParts(new Date(ms))
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00'
  return { y: get('year'), mo: get('month'), d: get('day'), h: get('hour'), mi: get('minute'), s: get('second') }
}
