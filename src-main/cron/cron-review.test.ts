// Review fixes of the cron scheduler and schedule grammar: a malformed job skipped alone, naive times near a
// daylight-saving change, the run-claim heartbeat, times older Caduceus wrote in UTC, HERMES_CRON_TIMEOUT as Python
// reads it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { CronScheduler, readJobs, type RawJob } from './index'
import { nextRunAfter, parseSchedule } from './schedule'
import { runClaimTtlMs } from './claim-ttl'
import { pythonFloat } from '@shared/contract/py-text'

const made: string[] = []
function home(jobs: unknown[], zone?: string): string {
  const d = mkdtempSync(join(tmpdir(), 'cad-cron-review-'))
  made.push(d)
  mkdirSync(join(d, 'cron'))
  // JSON text, not JSON.stringify: 1e400 must reach the file as upstream's hand-edited jobs.json would have it.
  writeFileSync(
    join(d, 'cron', 'jobs.json'),
    `{"jobs": [${jobs.map((j) => (typeof j === 'string' ? j : JSON.stringify(j))).join(', ')}]}`
  )
  if (zone) writeFileSync(join(d, 'config.yaml'), `timezone: ${zone}\n`)
  return d
}
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})
const savedTimeout = process.env.HERMES_CRON_TIMEOUT
afterEach(() => {
  if (savedTimeout === undefined) delete process.env.HERMES_CRON_TIMEOUT
  else process.env.HERMES_CRON_TIMEOUT = savedTimeout
})

const NOW = Date.parse('2026-03-01T08:00:00Z')

function scheduler(
  h: string,
  clock: () => number,
  ran: string[],
  extra: Partial<ConstructorParameters<typeof CronScheduler>[0]> = {}
) {
  return new CronScheduler({
    profiles: () => [{ name: 'default', home: h }],
    run: async (_p, job: RawJob) => {
      ran.push(job.id)
    },
    upstreamLive: () => false,
    clock,
    ...extra
  })
}

describe('a malformed job', () => {
  it('is skipped and named while the other jobs of its profile run', async () => {
    const due = '2026-03-01T07:59:00+00:00'
    const h = home([
      `{"id": "huge", "schedule": {"kind": "interval", "minutes": 1e12}, "next_run_at": "${due}"}`,
      `{"id": "inf", "schedule": {"kind": "interval", "minutes": 1e400}, "next_run_at": "${due}"}`,
      `{"id": "unset", "schedule": {"kind": "interval", "minutes": 1e12}}`,
      { id: 'good', schedule: { kind: 'interval', minutes: 30 }, next_run_at: due }
    ])
    const ran: string[] = []
    const logs: string[] = []
    await scheduler(h, () => NOW, ran, { log: (_l, m) => logs.push(m) }).tick()
    expect(ran).toEqual(['good'])
    expect(logs.join('\n')).toMatch(/huge/)
    expect(logs.join('\n')).toMatch(/inf/)
    const after = readJobs(h).jobs
    expect(after.find((j) => j.id === 'huge')!.next_run_at).toBe(due)
    expect(after.find((j) => j.id === 'good')!.next_run_at).toBe('2026-03-01T08:30:00+00:00')
  })

  it('has no next run time, and such an interval is refused', () => {
    expect(nextRunAfter({ kind: 'interval', minutes: 1e12 }, NOW)).toBeNull()
    expect(nextRunAfter({ kind: 'interval', minutes: Infinity }, NOW)).toBeNull()
    expect(nextRunAfter({ kind: 'interval', minutes: 1e12 }, NOW, { timeZone: 'America/New_York' })).toBeNull()
    for (const text of ['every 99999999999m', 'every 1000000000000000000000d', '99999999999m', '9999-12-31T12:00'])
      expect(() => parseSchedule(text, { now: NOW, timeZone: 'UTC' })).toThrow(/Invalid schedule/)
  })
})

describe('a naive time near a daylight-saving change', () => {
  // Upstream's parse_schedule (datetime.replace(tzinfo=ZoneInfo(zone)), fold=0), run with /usr/bin/python3.
  const upstream: Array<[string, string, string]> = [
    ['America/New_York', '2026-03-08T03:30', '2026-03-08T03:30:00-04:00'],
    ['America/New_York', '2026-03-08T02:30', '2026-03-08T02:30:00-05:00'], // the skipped hour
    ['America/New_York', '2026-03-08T01:30', '2026-03-08T01:30:00-05:00'],
    ['America/New_York', '2026-11-01T00:30', '2026-11-01T00:30:00-04:00'],
    ['America/New_York', '2026-11-01T01:30', '2026-11-01T01:30:00-04:00'], // the repeated hour: its first occurrence
    ['America/New_York', '2026-11-01T02:30', '2026-11-01T02:30:00-05:00'],
    ['Europe/London', '2026-03-29T01:30', '2026-03-29T01:30:00+00:00'],
    ['Europe/London', '2026-10-25T01:30', '2026-10-25T01:30:00+01:00']
  ]
  it.each(upstream)('%s %s is stored as upstream stores it', (timeZone, text, runAt) => {
    expect(parseSchedule(text, { now: NOW, timeZone })).toEqual({
      kind: 'once',
      run_at: runAt,
      display: `once at ${text.slice(0, 10)} ${text.slice(11, 16)}`
    })
  })
})

describe("a one-shot's run claim", () => {
  it(
    'is refreshed while the run lasts, only while it is ours, and no more once it ends',
    { timeout: 30_000 },
    async () => {
      const h = home([
        {
          id: 'long',
          schedule: { kind: 'once', run_at: '2026-03-01T07:59:00+00:00' },
          next_run_at: '2026-03-01T07:59:00+00:00',
          repeat: { times: 1, completed: 0 }
        }
      ])
      let now = NOW
      let finish!: () => void
      const done = new Promise<void>((r) => (finish = r))
      const claims: unknown[] = []
      const s = scheduler(h, () => now, [], {
        claimHeartbeatMs: 20,
        run: async () => {
          claims.push(readJobs(h).jobs[0]!.run_claim)
          now += 10 * 60_000
          // Until a beat lands (each takes upstream's flock, a helper process: slow on a loaded machine), 5 s at most.
          const beaten = () =>
            (readJobs(h).jobs[0]!.run_claim as { at?: string } | undefined)?.at !== '2026-03-01T08:00:00+00:00'
          for (let i = 0; i < 500 && !beaten(); i++) await new Promise((r) => setTimeout(r, 10))
          claims.push(readJobs(h).jobs[0]!.run_claim)
          // Another scheduler took it over: a beat of ours must not extend its claim.
          const file = JSON.parse(readFileSync(join(h, 'cron', 'jobs.json'), 'utf8'))
          file.jobs[0].run_claim = { at: '2026-03-01T08:05:00+00:00', by: 'other:1' }
          writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify(file))
          now += 10 * 60_000
          await new Promise((r) => setTimeout(r, 150))
          claims.push(readJobs(h).jobs[0]!.run_claim)
          await done
        }
      })
      const ticked = s.tick()
      for (let i = 0; i < 1000 && claims.length < 3; i++) await new Promise((r) => setTimeout(r, 10))
      const by = (claims[0] as { by: string }).by
      expect(claims[0]).toEqual({ at: '2026-03-01T08:00:00+00:00', by })
      expect(claims[1]).toEqual({ at: '2026-03-01T08:10:00+00:00', by })
      expect(claims[2]).toEqual({ at: '2026-03-01T08:05:00+00:00', by: 'other:1' })
      finish()
      await ticked
      // Ended: no beat writes the claim back.
      const file = JSON.parse(readFileSync(join(h, 'cron', 'jobs.json'), 'utf8'))
      file.jobs[0].run_claim = { at: '2026-03-01T08:00:00+00:00', by }
      writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify(file))
      now += 10 * 60_000
      await new Promise((r) => setTimeout(r, 100))
      expect(readJobs(h).jobs[0]!.run_claim).toEqual({ at: '2026-03-01T08:00:00+00:00', by })
    }
  )
})

describe('a cron time older Caduceus wrote in UTC', () => {
  it('runs when due in a zone west of UTC instead of being read as a timezone move', async () => {
    // 09:00 New York = 14:00 UTC, written by Caduceus before it wrote the zone's offset.
    const h = home(
      [{ id: 'daily', schedule: { kind: 'cron', expr: '0 9 * * *' }, next_run_at: '2026-03-02T14:00:00+00:00' }],
      'America/New_York'
    )
    const ran: string[] = []
    await scheduler(h, () => Date.parse('2026-03-02T14:00:30Z'), ran).tick()
    expect(ran).toEqual(['daily'])
    expect(readJobs(h).jobs[0]!.next_run_at).toBe('2026-03-03T09:00:00-05:00')
  })

  it('not yet due, is left as it is; a real timezone move is still recomputed', async () => {
    const h = home(
      [
        { id: 'later', schedule: { kind: 'cron', expr: '0 9 * * *' }, next_run_at: '2026-03-02T14:00:00+00:00' },
        // Written at +09:00 (Tokyo) for 09:00 there; now in New York its wall time is still ahead: recomputed.
        { id: 'moved', schedule: { kind: 'cron', expr: '0 9 * * *' }, next_run_at: '2026-03-02T09:00:00+09:00' }
      ],
      'America/New_York'
    )
    const ran: string[] = []
    await scheduler(h, () => Date.parse('2026-03-02T13:00:00Z'), ran).tick()
    expect(ran).toEqual([])
    const jobs = readJobs(h).jobs
    expect(jobs[0]!.next_run_at).toBe('2026-03-02T14:00:00+00:00')
    expect(jobs[1]!.next_run_at).toBe('2026-03-02T09:00:00-05:00')
  })
})

describe('HERMES_CRON_TIMEOUT', () => {
  it("is read as Python's float() reads it", () => {
    // Answers of Python's float(); null where it raises ValueError.
    const cases: Array<[string, number | null]> = [
      ['10', 10],
      [' 10 ', 10],
      ['\t2.5\n', 2.5],
      ['1_000', 1000],
      ['1e3', 1000],
      ['1_0e1_0', 1e11],
      ['.5', 0.5],
      ['5.', 5],
      ['-3', -3],
      ['+inf', Infinity],
      ['-Infinity', -Infinity],
      ['10abc', null],
      ['1__0', null],
      ['_1', null],
      ['1_', null],
      ['1_.5', null],
      ['0x10', null],
      ['', null],
      ['1 0', null],
      ['infinit', null]
    ]
    for (const [text, value] of cases) expect([text, pythonFloat(text)]).toEqual([text, value])
    expect(pythonFloat('NaN')).toBeNaN()
  })

  it('falls back to 600 s (a 1800 s claim TTL) for a value Python cannot read', () => {
    process.env.HERMES_CRON_TIMEOUT = '10abc'
    expect(runClaimTtlMs()).toBe(1_800_000)
    process.env.HERMES_CRON_TIMEOUT = '1_000'
    expect(runClaimTtlMs()).toBe(3_000_000)
    process.env.HERMES_CRON_TIMEOUT = ' 700 '
    expect(runClaimTtlMs()).toBe(2_100_000)
    process.env.HERMES_CRON_TIMEOUT = 'inf'
    expect(runClaimTtlMs()).toBe(Infinity)
  })
})
