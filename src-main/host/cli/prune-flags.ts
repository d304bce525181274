/**
 * `caduceus sessions prune` flags, read the way upstream's `hermes sessions prune` reads them: a point in
 * time is a duration ago (`5h`, `30m`, `2d`, `1w`, a bare number = days) or an ISO timestamp (naive = local);
 * `--older-than`/`--before` bound `started_at` from above, `--newer-than`/`--after` from below (the tighter
 * wins); an empty window is an error. A bare prune means "older than 90 days"; any filter drops that cutoff, so
 * `--source cron` selects every ended cron session whatever its age (upstream's CLI rule; the archived flags do not
 * count as filters). Upstream asks before deleting; `--yes` skips that.
 */
import { CaduceusError, type PruneFilterInput } from '@shared/contract'

const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }
const DURATION = /^(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?)$/

function pointInTime(value: string, flag: string, now: number): number {
  const s = value.trim().toLowerCase()
  if (/^\d+(\.\d+)?$/.test(s)) return now - Number(s) * 86400
  const m = DURATION.exec(s)
  if (m) return now - Number(m[1]) * UNIT[m[2]![0]!]!
  const t = Date.parse(
    /^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? `${value.trim()}T00:00` : value.trim().replace(' ', 'T')
  )
  if (!Number.isFinite(t))
    throw new CaduceusError(
      'invalid_input',
      `Invalid value for ${flag}: '${value}'. Use a duration like '5h', '30m', '2d', '1w', a bare number of days, or an ISO timestamp like '2026-07-05'.`,
      flag
    )
  return t / 1000
}

function int(v: string | true | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined
  const n = Number(v)
  if (v === true || !Number.isFinite(n) || n < 0)
    throw new CaduceusError('invalid_input', `${flag} needs a number >= 0`, flag)
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
  const bare =
    before === undefined &&
    after === undefined &&
    model === undefined &&
    !PRUNE_FILTER_FLAGS.some((k) => flags[k] !== undefined)
  return {
    olderThanDays: bare ? 90 : null,
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
    minMessages: int(flags['min-messages'], '--min-messages'),
    maxMessages: int(flags['max-messages'], '--max-messages'),
    minTokens: int(flags['min-tokens'], '--min-tokens'),
    maxTokens: int(flags['max-tokens'], '--max-tokens'),
    minCost: int(flags['min-cost'], '--min-cost'),
    maxCost: int(flags['max-cost'], '--max-cost'),
    minToolCalls: int(flags['min-tool-calls'], '--min-tool-calls'),
    maxToolCalls: int(flags['max-tool-calls'], '--max-tool-calls'),
    dryRun: flags['dry-run'] === true,
    yes: flags.yes === true
  }
}
