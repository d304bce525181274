/**
 * `caduceus sessions prune` flags, read the way upstream's `hermes sessions prune` reads them: a point in
 * time is a duration ago (`5h`, `30m`, `2d`, `1w`, a bare number = days) or an ISO timestamp (naive = local);
 * `--older-than`/`--before` bound `started_at` from above, `--newer-than`/`--after` from below (the tighter
 * wins); an empty window is an error. A bare prune means "older than 90 days"; any filter drops that cutoff, so
 * `--source cron` selects every ended cron session whatever its age (upstream's CLI rule; the archived flags do not
 * count as filters). Upstream asks before deleting; `--yes` skips that.
 */
import { CaduceusError, DEFAULT_PRUNE_DAYS, isBarePrune, type PruneFilterInput } from '@shared/contract'
import { UsageError } from './run-args'

const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }
const DURATION = /^(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?)$/

// Python's datetime.fromisoformat (3.11, upstream's oldest Python) as upstream's parse_point_in_time calls it: a
// date YYYY-MM-DD or YYYYMMDD, then optionally 'T', 't' or ' ' and a time HH[:MM[:SS[.f]]] or HH[MM[SS[.f]]], then
// optionally Z or ±HH[[:]MM]. (Python also takes ISO week dates and any separator character; those are refused.)
const ISO_DATE = /^(\d{4})(?:-(\d{2})-(\d{2})|(\d{2})(\d{2}))(?:[Tt ](.+))?$/
const ISO_TIME =
  /^(\d{2})(?:(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)|(?:(\d{2})(?:(\d{2})(?:[.,](\d+))?)?))?(Z|[+-]\d{2}(?::?\d{2})?)?$/

/** Epoch seconds of an ISO timestamp as fromisoformat reads it (naive = local time), or null where it refuses. */
function isoTimestamp(s: string): number | null {
  const d = ISO_DATE.exec(s)
  if (!d) return null
  const [y, mo, day] = [Number(d[1]), Number(d[2] ?? d[4]), Number(d[3] ?? d[5])]
  let [h, mi, sec, micro, tz] = [0, 0, 0, 0, undefined as string | undefined]
  if (d[6] !== undefined) {
    const t = ISO_TIME.exec(d[6])
    if (!t) return null
    h = Number(t[1])
    mi = Number(t[2] ?? t[5] ?? 0)
    sec = Number(t[3] ?? t[6] ?? 0)
    const frac = t[4] ?? t[7]
    micro = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0 // Python keeps microseconds
    tz = t[8]
  }
  const monthDays = [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] ?? 0
  if (y < 1 || mo < 1 || mo > 12 || day < 1 || day > monthDays || h > 23 || mi > 59 || sec > 59) return null
  if (tz === undefined) {
    const local = new Date(2000, 0, 1)
    local.setFullYear(y, mo - 1, day)
    local.setHours(h, mi, sec, 0)
    return local.getTime() / 1000 + micro / 1e6
  }
  const utc = new Date(0)
  utc.setUTCFullYear(y, mo - 1, day)
  utc.setUTCHours(h, mi, sec, 0)
  let offset = 0
  const o = /^([+-])(\d{2}):?(\d{2})?$/.exec(tz)
  if (o) {
    const [oh, om] = [Number(o[2]), Number(o[3] ?? 0)]
    if (oh > 23 || om > 59) return null
    offset = (o[1] === '-' ? -1 : 1) * (oh * 3600 + om * 60)
  }
  return utc.getTime() / 1000 + micro / 1e6 - offset
}
const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0

function pointInTime(value: string, flag: string, now: number): number {
  const s = value.trim().toLowerCase()
  if (/^\d+(\.\d+)?$/.test(s)) return now - Number(s) * 86400
  const m = DURATION.exec(s)
  if (m) return now - Number(m[1]) * UNIT[m[2]![0]!]!
  const t = isoTimestamp(value.trim())
  if (t === null || !Number.isFinite(t))
    throw new CaduceusError(
      'invalid_input',
      `Invalid value for ${flag}: '${value}'. Use a duration like '5h', '30m', '2d', '1w', a bare number of days, or an ISO timestamp like '2026-07-05' or '2026-07-05 14:30'.`,
      flag
    )
  return t
}

/**
 * A count flag as argparse's `type=int` reads it (digits, `_` between them, surrounding space) or a cost as
 * `type=float` does (decimal or exponent form, inf, nan). Text argparse refuses is a usage error (exit 2, as
 * upstream's); a negative or non-finite number, which upstream would take, is refused as well (exit 1).
 */
const DIGITS = String.raw`\d+(?:_\d+)*`
const INT = new RegExp(String.raw`^\s*[-+]?${DIGITS}\s*$`)
const FLOAT = new RegExp(
  String.raw`^\s*[-+]?(?:(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:e[+-]?${DIGITS})?|inf(?:inity)?|nan)\s*$`,
  'i'
)
function num(v: string | true | undefined, flag: string, integer = true): number | undefined {
  if (v === undefined) return undefined
  const what = `${flag} needs ${integer ? 'a whole number' : 'a number'} >= 0`
  if (v === true || !(integer ? INT : FLOAT).test(v)) throw new UsageError(`${what}, not '${v === true ? '' : v}'`)
  const n = Number(v.trim().replace(/_/g, ''))
  if (!Number.isFinite(n) || n < 0) throw new CaduceusError('invalid_input', what, flag)
  return n
}

/** The time flags: each bounds `started_at`, replacing the cutoff. */
export const PRUNE_TIME_FLAGS = ['older-than', 'newer-than', 'before', 'after']
/** The other value flags: filters, any of which drops the bare prune's cutoff (`--model` is read by args.ts). */
export const PRUNE_FILTER_FLAGS = [
  'source',
  'title',
  'end-reason',
  'cwd',
  'provider',
  'user',
  'chat-id',
  'chat-type',
  'branch',
  'min-messages',
  'max-messages',
  'min-tokens',
  'max-tokens',
  'min-cost',
  'max-cost',
  'min-tool-calls',
  'max-tool-calls'
]
/** Both, as typed on the command line: the value flags prune (and export, archive) read. */
export const PRUNE_VALUE_FLAGS = [...PRUNE_TIME_FLAGS, ...PRUNE_FILTER_FLAGS].map((f) => `--${f}`)

export function pruneFilter(
  flags: Record<string, string | true>,
  model: string | undefined,
  now = Date.now() / 1000
): PruneFilterInput & { dryRun: boolean; yes: boolean } {
  const str = (k: string) => (typeof flags[k] === 'string' ? (flags[k] as string) : undefined)
  let before: number | undefined
  let after: number | undefined
  for (const k of ['older-than', 'before']) {
    const v = str(k)
    if (v !== undefined) before = Math.min(before ?? Infinity, pointInTime(v, `--${k}`, now))
  }
  for (const k of ['newer-than', 'after']) {
    const v = str(k)
    if (v !== undefined) after = Math.max(after ?? -Infinity, pointInTime(v, `--${k}`, now))
  }
  if (before !== undefined && after !== undefined && after >= before)
    throw new CaduceusError(
      'invalid_input',
      'Empty time window: --after/--newer-than is not earlier than --before/--older-than'
    )
  if ([flags.archived, flags['no-archived'], flags['include-archived']].filter(Boolean).length > 1)
    throw new CaduceusError('invalid_input', 'use one of --include-archived, --archived and --no-archived')
  const filter: PruneFilterInput = {
    ...(before !== undefined ? { startedBefore: before } : {}),
    ...(after !== undefined ? { startedAfter: after } : {}),
    source: str('source'),
    titleLike: str('title'),
    endReason: str('end-reason'),
    cwdPrefix: str('cwd'),
    modelLike: model,
    provider: str('provider'),
    userId: str('user'),
    chatId: str('chat-id'),
    chatType: str('chat-type'),
    branchLike: str('branch'),
    archived: flags.archived ? true : flags['no-archived'] ? false : undefined,
    includeArchived: flags['include-archived'] ? true : undefined,
    minMessages: num(flags['min-messages'], '--min-messages'),
    maxMessages: num(flags['max-messages'], '--max-messages'),
    minTokens: num(flags['min-tokens'], '--min-tokens'),
    maxTokens: num(flags['max-tokens'], '--max-tokens'),
    minCost: num(flags['min-cost'], '--min-cost', false),
    maxCost: num(flags['max-cost'], '--max-cost', false),
    minToolCalls: num(flags['min-tool-calls'], '--min-tool-calls'),
    maxToolCalls: num(flags['max-tool-calls'], '--max-tool-calls')
  }
  return {
    ...filter,
    olderThanDays: isBarePrune(filter) ? DEFAULT_PRUNE_DAYS : null,
    dryRun: flags['dry-run'] === true,
    yes: flags.yes === true
  }
}
