// The jobs.json Caduceus and upstream share, judged by upstream's own cron code (test/fixtures/upstream/cron-interop,
// written by scripts/golden/cron_interop.py at a frozen clock): a job Caduceus creates is the job upstream's
// create_job writes, times in the profile's zone with its offset (a +00:00 time west of UTC reads to upstream as a
// timezone move and loses that run); a scheduler tick takes and leaves the jobs upstream's get_due_jobs plus its
// claims would; a past one-shot is not resumed.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createJob, cronClock, CronScheduler, readJobs, setPaused, type RawJob } from './index'

const GOLDEN = resolve(import.meta.dirname, '../../test/fixtures/upstream/cron-interop/cases.json')
const cases = JSON.parse(readFileSync(GOLDEN, 'utf8')) as {
  now: string
  created: Array<Record<string, unknown> & { zone: string; via: 'env' | 'config'; schedule_text: string }>
  due: { zone: string; now: string; before: { jobs: RawJob[] }; due: string[]; claimed: { jobs: RawJob[] } }
  resume: { zone: string; created_at: string; resumed_at: string; schedule: string; refusal: string }
}

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})
function zonedHome(zone: string, via: 'env' | 'config' = 'config'): string {
  const h = mkdtempSync(join(tmpdir(), 'cad-cron-interop-'))
  made.push(h)
  if (via === 'env') {
    writeFileSync(join(h, '.env'), `HERMES_TIMEZONE=${zone}\n`)
    writeFileSync(join(h, 'config.yaml'), 'model:\n  default: m\n')
  } else writeFileSync(join(h, 'config.yaml'), `timezone: ${zone}\n`)
  return h
}

describe("jobs Caduceus creates are the jobs upstream's create_job writes", () => {
  const zones = [...new Set(cases.created.map((c) => `${c.zone}|${c.via}`))]
  it.each(zones)('%s', async (key) => {
    const [zone, via] = key.split('|') as [string, 'env' | 'config']
    const h = zonedHome(zone, via)
    // The clock the Cron page shows times in is the one these jobs were computed on, named with its source.
    expect(cronClock(h)).toEqual({ zone, source: via === 'env' ? 'HERMES_TIMEZONE' : 'config.yaml' })
    for (const want of cases.created.filter((c) => c.zone === zone && c.via === via)) {
      const job = await createJob(
        h,
        { schedule: want.schedule_text, prompt: 'p', name: want.schedule_text },
        Date.parse(cases.now)
      )
      const got = {
        schedule: job.schedule,
        schedule_display: job.schedule_display,
        next_run_at: job.next_run_at,
        created_at: job.created_at,
        repeat: job.repeat
      }
      const { schedule, schedule_display, next_run_at, created_at, repeat } = want
      expect(got, want.schedule_text).toEqual({ schedule, schedule_display, next_run_at, created_at, repeat })
    }
  })
})

it("a home naming no zone (or one no zone database knows) runs on the host machine's, as upstream's falls back", () => {
  const h = zonedHome('Not/AZone')
  expect(cronClock(h)).toEqual({ zone: Intl.DateTimeFormat().resolvedOptions().timeZone, source: 'machine' })
})

describe("a scheduler tick agrees with upstream's due scan and claims", () => {
  it('runs what upstream runs and leaves the file upstream leaves', async () => {
    const h = zonedHome(cases.due.zone)
    mkdirSync(join(h, 'cron'))
    writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify(cases.due.before, null, 2))
    const ran: string[] = []
    const s = new CronScheduler({
      profiles: () => [{ name: 'default', home: h }],
      run: async (_p, job) => void ran.push(String(job.name)),
      upstreamLive: () => false,
      clock: () => Date.parse(cases.due.now)
    })
    // Three at once: the rest stay due for the next tick at the same clock.
    await s.tick()
    await s.tick()
    await s.tick()
    expect(ran.sort()).toEqual(cases.due.due)
    const got = new Map(readJobs(h).jobs.map((j) => [j.name, j]))
    const want = cases.due.claimed.jobs
    expect([...got.keys()].sort()).toEqual(want.map((j) => j.name).sort())
    for (const w of want) {
      const g = got.get(w.name)!
      const claim = (j: RawJob) => (j.run_claim ? { at: (j.run_claim as { at: string }).at } : (j.run_claim ?? null))
      expect(
        { next_run_at: g.next_run_at, repeat: g.repeat, state: g.state, enabled: g.enabled, run_claim: claim(g) },
        String(w.name)
      ).toEqual({
        next_run_at: w.next_run_at,
        repeat: w.repeat,
        state: w.state,
        enabled: w.enabled,
        run_claim: claim(w)
      })
    }
  })
})

describe('resume', () => {
  it("refuses a one-shot whose time has passed, in upstream's words", async () => {
    const h = zonedHome(cases.resume.zone)
    const job = await createJob(
      h,
      { schedule: cases.resume.schedule, prompt: 'p' },
      Date.parse(cases.resume.created_at)
    )
    await setPaused(h, job.id, true, null, Date.parse(cases.resume.created_at))
    await expect(setPaused(h, job.id, false, null, Date.parse(cases.resume.resumed_at))).rejects.toThrow(
      cases.resume.refusal
    )
    expect(readJobs(h).jobs[0]).toMatchObject({ enabled: false, state: 'paused' })
  })
})
