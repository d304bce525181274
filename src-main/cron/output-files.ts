/**
 * Where a cron run's output goes, named as upstream names it: `cron/output/<job id>/%Y-%m-%d_%H-%M-%S.md` in the
 * profile's wall-clock time (upstream's `hermes_time.now()`: `HERMES_TIMEZONE`, else config.yaml `timezone`, else
 * the machine's zone), so a reverse name sort is newest first; past `cron.output_retention` (default 50; 0 or less
 * keeps all) the oldest files go. The run's session id uses the same clock (`cron_<id>_%Y%m%d_%H%M%S`).
 */
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig, readSection } from '../config'
import { timeZoneOf } from './time-zone'
import { wallFields } from './schedule'

const DEFAULT_KEEP = 50

/** The wall-clock fields of `ms` in the profile's zone. */
function wallClock(ms: number, home: string): ReturnType<typeof wallFields> {
  return wallFields(ms, timeZoneOf(home))
}

/** `2026-12-05_01-02-03.md` (upstream's `save_job_output`). */
export function outputFileName(ms: number, home: string): string {
  const c = wallClock(ms, home)
  return `${c.y}-${c.mo}-${c.d}_${c.h}-${c.mi}-${c.s}.md`
}

/** `2026-12-05 01:02:03`, the **Run Time** of an output file (upstream's `%Y-%m-%d %H:%M:%S`, no zone named). */
export function runTimeText(ms: number, home: string): string {
  const c = wallClock(ms, home)
  return `${c.y}-${c.mo}-${c.d} ${c.h}:${c.mi}:${c.s}`
}

/** `20261205_010203` (upstream's cron session id stamp). */
export function sessionStamp(ms: number, home: string): string {
  const c = wallClock(ms, home)
  return `${c.y}${c.mo}${c.d}_${c.h}${c.mi}${c.s}`
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/**
 * The title a run's session gets, as upstream titles it when the run ends: the job's name with its whitespace runs
 * made single spaces, cut at 60 characters (`cron <id>` when nothing is left), then ` · Dec 06 22:01` on the profile's
 * clock — the minute keeps it apart from the job's earlier runs.
 */
export function runTitle(name: string, jobId: string, ms: number, home: string): string {
  const base = Array.from(name.split(/\s+/).filter(Boolean).join(' ')).slice(0, 60).join('').trim() || `cron ${jobId}`
  const c = wallClock(ms, home)
  return `${base} · ${MONTHS[Number(c.mo) - 1]} ${c.d} ${c.h}:${c.mi}`
}

function retention(home: string): number {
  const raw = readSection(loadConfig(home).raw, 'cron').output_retention
  const n = typeof raw === 'string' && raw.trim() ? Number(raw) : raw
  return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : DEFAULT_KEEP
}

/** Upstream's `_prune_job_output`: keep the newest `cron.output_retention` `*.md` files; failures never break a run. */
export function pruneOutputs(dir: string, home: string): void {
  const keep = retention(home)
  if (keep <= 0) return
  try {
    const files = readdirSync(dir, { withFileTypes: true })
      .filter((f) => f.isFile() && f.name.endsWith('.md'))
      .map((f) => f.name)
      .sort()
      .reverse()
    for (const stale of files.slice(keep)) rmSync(join(dir, stale), { force: true })
  } catch {
    /* pruning is best effort, as upstream's */
  }
}
