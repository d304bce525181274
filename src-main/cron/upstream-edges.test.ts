// Cron edges judged by upstream's own code (test/fixtures/upstream/cron-edges, written by
// scripts/golden/cron_edges.py at a frozen clock): every schedule string in its table is accepted with upstream's
// schedule, next run and repeat, or refused where upstream refuses it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createJob, ScheduleError } from './index'
import { nextRunAfter, parseSchedule } from './schedule'

type Row = { zone: string; input: string } & (
  | { schedule: Record<string, unknown>; next_run_at: string; repeat: { times: number | null; completed: number } }
  | { error: string; message: string }
)
const GOLDEN = resolve(import.meta.dirname, '../../test/fixtures/upstream/cron-edges/cases.json')
const cases = JSON.parse(readFileSync(GOLDEN, 'utf8')) as { now: string; schedules: Row[] }

/**
 * Inputs CPython's fromisoformat accepts that Caduceus refuses on purpose, each with a message saying why: a
 * fraction after the hour or minute is read as a fraction of a second (`T09.5` → 09:00:00.5, never 09:30), and an
 * offset with seconds is written to jobs.json in a form `Date.parse` (and so the Cron page) cannot read.
 */
const REFUSED_ON_PURPOSE = new Set(['2027-01-10T09.5', '2027-01-10T09:30.5', '2027-01-10T09:30:00+05:30:15'])

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})
function zonedHome(zone: string): string {
  const h = mkdtempSync(join(tmpdir(), 'cad-cron-edges-'))
  made.push(h)
  writeFileSync(join(h, 'config.yaml'), `timezone: ${zone}\n`)
  return h
}

/** What Caduceus answers for one input at the golden clock: the job fields create_job would write, or a refusal. */
function answer(input: string, zone: string, now: number) {
  try {
    const schedule = parseSchedule(input, { now, timeZone: zone })
    return { schedule, next_run_at: nextRunAfter(schedule, now, { timeZone: zone }) }
  } catch (e) {
    return { refused: e instanceof ScheduleError, message: (e as Error).message }
  }
}

describe("schedule strings: Caduceus agrees with upstream's create_job input by input", () => {
  const zones = [...new Set(cases.schedules.map((c) => c.zone))]
  it.each(zones)('%s', (zone) => {
    const now = Date.parse(cases.now)
    const wrong: unknown[] = []
    for (const c of cases.schedules.filter((x) => x.zone === zone)) {
      const got = answer(c.input, zone, now)
      const want =
        'error' in c || REFUSED_ON_PURPOSE.has(c.input)
          ? { refused: true }
          : { schedule: c.schedule, next_run_at: c.next_run_at }
      const same = 'refused' in want ? 'refused' in got && got.refused : JSON.stringify(got) === JSON.stringify(want)
      if (!same) wrong.push({ input: c.input, want, got })
    }
    expect(wrong).toEqual([])
  })

  it('refuses on purpose with a message that says what to write', () => {
    for (const input of REFUSED_ON_PURPOSE)
      expect(answer(input, 'UTC', Date.parse(cases.now))).toMatchObject({
        message: expect.stringMatching(/write|give/)
      })
  })

  it('creates the job upstream creates, repeat count included', async () => {
    const h = zonedHome('America/New_York')
    for (const input of ['every 0m', '0m', '2027-01-10T09:30:15.25', '20270110T0930', '2027-01-10T09:30+0530']) {
      const c = cases.schedules.find((x) => x.zone === 'America/New_York' && x.input === input)!
      if ('error' in c) throw new Error(`golden refuses ${input}`)
      const j = await createJob(h, { schedule: input, prompt: 'p', name: 'n' }, Date.parse(cases.now))
      expect({ schedule: j.schedule, next_run_at: j.next_run_at, repeat: j.repeat }, input).toEqual({
        schedule: c.schedule,
        next_run_at: c.next_run_at,
        repeat: c.repeat
      })
    }
  })
})
