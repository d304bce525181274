// The cron expressions upstream's create_job accepts, read as upstream reads them (test/fixtures/upstream/
// cron-schedules, written by scripts/golden/cron_schedules.py with croniter 6.0.0, upstream's pin): Sunday as 7 in a
// list, ranges that wrap, steps from a start, a range from a value to itself, a value named twice, day fields that
// cover every value, and `@daily`-style names in a hand-edited jobs.json. Caduceus creates the job upstream writes and
// computes the same runs after it; a tick runs such a job when due and moves it to upstream's next time.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createJob, CronScheduler, readJobs, ScheduleError, type RawJob } from './index'
import { nextRunAfter, parseSchedule } from './schedule'

interface Case {
  zone: string
  now: string
  schedule: { kind: 'cron'; expr: string; display: string }
  runs: string[]
}
const GOLDEN = resolve(import.meta.dirname, '../../test/fixtures/upstream/cron-schedules/cases.json')
const cases = JSON.parse(readFileSync(GOLDEN, 'utf8')) as {
  created: Case[]
  aliases: Case[]
  refused: Array<{ expr: string; message: string }>
}

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})
function zonedHome(zone: string): string {
  const h = mkdtempSync(join(tmpdir(), 'cad-cron-schedules-'))
  made.push(h)
  writeFileSync(join(h, 'config.yaml'), `timezone: ${zone}\n`)
  return h
}

/** The run after each run, as upstream's mark_job_run computes it from the run's time. */
const runsAfter = (c: Case, first: string | null) => {
  const runs = [first]
  for (let i = 0; i < 2; i++) {
    const last = runs[runs.length - 1]
    runs.push(last ? nextRunAfter(c.schedule, Date.parse(last), { timeZone: c.zone }) : null)
  }
  return runs
}

describe("jobs Caduceus creates from upstream's cron expressions run when upstream's would", () => {
  const zones = [...new Set(cases.created.map((c) => c.zone))]
  it.each(zones)('%s', async (zone) => {
    const h = zonedHome(zone)
    for (const c of cases.created.filter((x) => x.zone === zone)) {
      const job = await createJob(h, { schedule: c.schedule.expr, prompt: 'p' }, Date.parse(c.now))
      expect(
        { schedule: job.schedule, runs: runsAfter(c, job.next_run_at as string) },
        `${c.schedule.expr} ${c.now}`
      ).toEqual({ schedule: c.schedule, runs: c.runs })
    }
  })
})

describe("`@daily`-style expressions in a hand-edited jobs.json run when upstream's would", () => {
  it.each(cases.aliases.map((c) => [`${c.schedule.expr} ${c.zone} ${c.now}`, c] as const))('%s', (_, c) => {
    const first = nextRunAfter(c.schedule, Date.parse(c.now), { timeZone: c.zone })
    expect(runsAfter(c, first)).toEqual(c.runs)
  })
})

describe('expressions upstream refuses are refused', () => {
  it.each(cases.refused.map((r) => r.expr))('%s', (expr) => {
    expect(() => parseSchedule(expr, { timeZone: 'UTC' })).toThrow(ScheduleError)
  })
})

describe('a tick runs a due job upstream wrote with such an expression', () => {
  it.each(['0 12 * * 0,7', '0 22-2 * * *', '@daily'])('%s', async (expr) => {
    const c = [...cases.created, ...cases.aliases].find((x) => x.schedule.expr === expr && x.zone === 'UTC')!
    const h = zonedHome('UTC')
    mkdirSync(join(h, 'cron'))
    const job = { id: 'a1b2c3d4e5f6', name: expr, prompt: 'p', schedule: c.schedule, next_run_at: c.runs[0] }
    writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify({ jobs: [job] }))
    const ran: RawJob[] = []
    const warnings: string[] = []
    const s = new CronScheduler({
      profiles: () => [{ name: 'default', home: h }],
      run: async (_p, j) => void ran.push(j),
      upstreamLive: () => false,
      clock: () => Date.parse(c.runs[0]!),
      log: (level, msg) => void (level === 'warn' && warnings.push(msg))
    })
    await s.tick()
    expect(warnings).toEqual([])
    expect(ran.map((j) => j.id)).toEqual([job.id])
    expect(readJobs(h).jobs[0]!.next_run_at).toBe(c.runs[1])
  })
})

// Daylight-saving changes (scripts/golden/cron_dst.py → test/fixtures/upstream/cron-dst): per zone, change and
// expression, the runs upstream computes (croniter 6.0.0 over zoneinfo) and the runs the expression names on the
// zone's wall clock. Caduceus keeps the wall clock's: a skipped time runs at the instant it names with the offset
// from before (once per skipped stretch), a repeated time once (each real hour for an hour field of `*`). Upstream
// agrees on most rows; where it does not, croniter is off by the change (an hour early and again on time, an hour
// late, a repeated hour skipped) and Caduceus keeps the wall clock's time, which upstream fires as stored.
// Caduceus's own misses were in Lord Howe (no next run after its half-hour fall-back: the job stopped), Nuuk (the
// 23:30 the spring change skips was never run) and Troll (02:15 run twice in its two-hour fall-back).
describe('cron runs across daylight-saving changes', () => {
  const D = JSON.parse(
    readFileSync(resolve(import.meta.dirname, '../../test/fixtures/upstream/cron-dst/cases.json'), 'utf8')
  ) as {
    rows: Array<{
      zone: string
      now: string
      end: string
      expr: string
      upstream: string[]
      wall: string[]
      agrees: boolean
    }>
  }
  const changes = [...new Set(D.rows.map((r) => `${r.zone} ${r.now}`))]
  it.each(changes)('%s', async (change) => {
    const rows = D.rows.filter((r) => `${r.zone} ${r.now}` === change)
    const { zone, now } = rows[0]!
    const h = zonedHome(zone)
    // one job created through createJob (its first run is the one stored); the rest as createJob computes it
    const job = await createJob(h, { schedule: rows[0]!.expr, prompt: 'p' }, Date.parse(now))
    expect(job.next_run_at).toBe(rows[0]!.wall[0])
    for (const r of rows) {
      // the first run, then each run after the one before, as a tick moves the job on
      const schedule = parseSchedule(r.expr, { now: Date.parse(now), timeZone: zone })
      const runs: string[] = []
      for (
        let next = nextRunAfter(schedule, Date.parse(now), { timeZone: zone });
        next && Date.parse(next) <= Date.parse(r.end);
      ) {
        runs.push(next)
        next = nextRunAfter(schedule, Date.parse(next), { timeZone: zone })
      }
      expect(runs, `${zone} ${r.expr}`).toEqual(r.wall)
    }
    // most rows are upstream's own times too
    expect(D.rows.filter((r) => r.agrees).length).toBeGreaterThan(30)
  })
})
