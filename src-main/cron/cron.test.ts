// Cron on a real jobs.json in a temp home (hermes-channels §3): the schedule grammar, upstream-shaped files
// whose unknown fields survive rewrites, and the claiming scheduler under a fake clock.
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createJob, CronScheduler, editJob, previewRuns, readJobs, setPaused, type RawJob } from './index'
import { parseSchedule } from './schedule'
import { profileParallelCap } from './claim-ttl'
import { runTitle } from './output-files'
import { liveUpstreamGateway } from '../store/gateway-heartbeats'

const made: string[] = []
const home = () => {
  const d = mkdtempSync(join(tmpdir(), 'cad-cron-'))
  made.push(d)
  return d
}
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

const NOW = Date.parse('2026-03-01T08:00:00Z')

describe("a run's session title", () => {
  it("is upstream's: the name's words, at most 60 characters, then the minute on the profile's clock", () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-cron-title-'))
    try {
      writeFileSync(join(home, 'config.yaml'), 'timezone: Asia/Tokyo\n')
      const at = Date.UTC(2026, 11, 6, 22, 1, 30)
      expect(runTitle('  Nightly\n\tcheck  ', 'abc123', at, home)).toBe('Nightly check · Dec 07 07:01')
      // cut at 60 characters, then stripped (the cut lands after a space here)
      expect(runTitle(`${'x'.repeat(59)} tail`, 'abc123', at, home)).toBe(`${'x'.repeat(59)} · Dec 07 07:01`)
      expect(runTitle(' \n ', 'abc123', at, home)).toBe('cron abc123 · Dec 07 07:01')
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
describe('schedule grammar', () => {
  it('parses every form to the upstream shape', () => {
    expect(parseSchedule('30m', { now: NOW })).toEqual({
      kind: 'once',
      run_at: '2026-03-01T08:30:00+00:00',
      display: 'once in 30m'
    })
    expect(parseSchedule('2h', { now: NOW })).toEqual({
      kind: 'once',
      run_at: '2026-03-01T10:00:00+00:00',
      display: 'once in 2h'
    })
    expect(parseSchedule('1d', { now: NOW })).toEqual({
      kind: 'once',
      run_at: '2026-03-02T08:00:00+00:00',
      display: 'once in 1d'
    })
    expect(parseSchedule('every 30m', { now: NOW })).toEqual({ kind: 'interval', minutes: 30, display: 'every 30m' })
    expect(parseSchedule('every 2h', { now: NOW })).toEqual({ kind: 'interval', minutes: 120, display: 'every 120m' })
    expect(parseSchedule('0 9 * * *', { now: NOW })).toEqual({ kind: 'cron', expr: '0 9 * * *', display: '0 9 * * *' })
    expect(parseSchedule('2026-03-02T14:00', { now: NOW, timeZone: 'UTC' })).toMatchObject({
      kind: 'once',
      run_at: '2026-03-02T14:00:00+00:00'
    })
    // A naive time is read in the configured timezone, and written with that zone's offset (as upstream writes it).
    expect(parseSchedule('2026-03-02T14:00', { now: NOW, timeZone: 'America/New_York' })).toMatchObject({
      run_at: '2026-03-02T14:00:00-05:00'
    })
  })

  it('refuses anything else with a message listing the four forms, and a past one-shot', () => {
    for (const bad of ['soon', 'every blue moon', '61 * * * *', '']) {
      expect(() => parseSchedule(bad, { now: NOW })).toThrow(
        /"30m".*\n.*"every 30m".*\n.*"0 9 \* \* \*".*\n.*"2026-02-03T14:00"/
      )
    }
    expect(() => parseSchedule('2026-02-01T09:00', { now: NOW, timeZone: 'UTC' })).toThrow(/already past/)
  })

  it('previews the next runs of a cron expression', () => {
    expect(previewRuns('0 9 * * *', 3, { now: NOW, timeZone: 'UTC' }).runs).toEqual([
      '2026-03-01T09:00:00+00:00',
      '2026-03-02T09:00:00+00:00',
      '2026-03-03T09:00:00+00:00'
    ])
  })
})

describe('jobs.json', () => {
  it('keeps unknown job and file fields of an upstream-shaped file across a rewrite', async () => {
    const h = home()
    mkdirSync(join(h, 'cron'))
    const upstream = {
      jobs: [
        {
          id: 'abcdef012345',
          name: 'daily',
          prompt: 'summarise',
          schedule: { kind: 'cron', expr: '0 9 * * *', display: '0 9 * * *' },
          schedule_display: '0 9 * * *',
          repeat: { times: null, completed: 3 },
          enabled: true,
          state: 'scheduled',
          next_run_at: '2026-03-02T09:00:00+00:00',
          deliver: 'origin',
          origin: { platform: 'telegram', chat_id: '42' },
          future_upstream_field: { nested: [1, 2, 3] }
        }
      ],
      updated_at: '2026-03-01T07:00:00+00:00',
      file_level_extra: 'kept'
    }
    writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify(upstream))
    await editJob(h, 'abcdef012345', { prompt: 'summarise my day' }, 'keep', NOW)
    await createJob(h, { schedule: 'every 1h', prompt: 'hourly' }, NOW)
    const after = JSON.parse(readFileSync(join(h, 'cron', 'jobs.json'), 'utf8'))
    expect(after.file_level_extra).toBe('kept')
    // an edit also leaves `skills` and the legacy `skill` agreeing, as upstream's update_job writes them on every edit
    // (test/fixtures/upstream/cron-edit: a rename of an older job)
    expect(after.jobs[0]).toEqual({ ...upstream.jobs[0], prompt: 'summarise my day', skills: [], skill: null })
    expect(after.jobs[1]).toMatchObject({
      prompt: 'hourly',
      schedule: { kind: 'interval', minutes: 60 },
      repeat: { times: null, completed: 0 }
    })
    expect(after.jobs[1].id).toMatch(/^[0-9a-f]{12}$/)
  })

  it("never drops an entry it cannot list: an older writer's job_id is the id, the rest stay where they were", async () => {
    const h = home()
    mkdirSync(join(h, 'cron'))
    const legacy = { job_id: 'legacy000001', name: 'old', prompt: 'p', schedule: { kind: 'interval', minutes: 60 } }
    const idless = { name: 'hand-written', prompt: 'q' }
    writeFileSync(
      join(h, 'cron', 'jobs.json'),
      JSON.stringify({ jobs: [idless, legacy, null, { id: 'abc', name: 'a', prompt: 'a' }] })
    )
    expect(readJobs(h).jobs.map((j) => j.id)).toEqual(['legacy000001', 'abc'])
    await editJob(h, 'abc', { prompt: 'edited' }, 'keep', NOW)
    const after = JSON.parse(readFileSync(join(h, 'cron', 'jobs.json'), 'utf8'))
    const { job_id: _, ...rest } = legacy
    expect(after.jobs).toEqual([
      idless,
      { id: 'legacy000001', ...rest },
      null,
      { id: 'abc', name: 'a', prompt: 'edited', skills: [], skill: null }
    ])
  })

  it("is written 0600, and a symlinked jobs.json stays a link whose target is replaced (upstream's atomic_replace)", async () => {
    const h = home()
    mkdirSync(join(h, 'cron'))
    mkdirSync(join(h, 'dotfiles'))
    const target = join(h, 'dotfiles', 'jobs.json')
    writeFileSync(target, JSON.stringify({ jobs: [] }), { mode: 0o644 })
    symlinkSync(target, join(h, 'cron', 'jobs.json'))
    const job = await createJob(h, { schedule: 'every 1h', prompt: 'hourly' }, NOW)
    expect(lstatSync(join(h, 'cron', 'jobs.json')).isSymbolicLink()).toBe(true)
    expect(JSON.parse(readFileSync(target, 'utf8')).jobs.map((j: RawJob) => j.id)).toEqual([job.id])
    expect(statSync(target).mode & 0o777).toBe(0o600)
    expect(readdirSync(join(h, 'dotfiles'))).toEqual(['jobs.json'])
  })
})

function scheduler(h: string, clock: () => number, ran: string[], upstreamLive = () => false) {
  return new CronScheduler({
    profiles: () => [{ name: 'default', home: h }],
    run: async (_p, job: RawJob) => {
      ran.push(job.id)
    },
    upstreamLive,
    clock
  })
}

describe('scheduler', () => {
  it('runs a due job once under a fake clock, and again only when it is next due', async () => {
    const h = home()
    let now = NOW
    const job = await createJob(h, { schedule: 'every 30m', prompt: 'ping' }, now)
    const ran: string[] = []
    const s = scheduler(h, () => now, ran)
    await s.tick()
    expect(ran).toEqual([])
    now += 30 * 60_000
    await s.tick()
    await s.tick()
    expect(ran).toEqual([job.id])
    expect(readJobs(h).jobs[0]!.next_run_at).toBe('2026-03-01T09:00:00+00:00')
    // Closed for hours: the missed occurrences collapse into one run, the next time counts from now.
    now += 5 * 60 * 60_000
    await s.tick()
    expect(ran).toEqual([job.id, job.id])
    expect(readJobs(h).jobs[0]!.next_run_at).toBe('2026-03-01T14:00:00+00:00')
  })

  it('runs a due job once when two schedulers race for it', async () => {
    const h = home()
    const now = NOW + 31 * 60_000
    for (let i = 0; i < 5; i++) await createJob(h, { schedule: 'every 30m', prompt: `job ${i}` }, NOW)
    const ran: string[] = []
    await Promise.all([
      scheduler(h, () => now, ran).tick(),
      scheduler(h, () => now, ran).tick(),
      scheduler(h, () => now, ran).tick()
    ])
    // A tick that found another one claiming (upstream's tick lock) claimed nothing: what it left runs next time.
    expect(new Set(ran).size).toBe(ran.length)
    await scheduler(h, () => now, ran).tick()
    expect(ran.sort()).toEqual(
      readJobs(h)
        .jobs.map((j) => j.id)
        .sort()
    )
  })

  it('skips paused jobs and stands down while an upstream gateway heartbeats for the profile', async () => {
    const h = home()
    const a = await createJob(h, { schedule: 'every 30m', prompt: 'a' }, NOW)
    await setPaused(h, a.id, true, 'testing', NOW)
    const ran: string[] = []
    await scheduler(h, () => NOW + 60 * 60_000, ran).tick()
    expect(ran).toEqual([])

    await setPaused(h, a.id, false, null, NOW)
    const db = new Database(join(h, 'state.db'))
    // Upstream's table, as an upstream gateway writes it.
    db.exec(
      "CREATE TABLE gateway_heartbeats (backend_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, started_at REAL NOT NULL, last_heartbeat REAL NOT NULL, profile TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '')"
    )
    const later = NOW + 60 * 60_000
    db.prepare('INSERT INTO gateway_heartbeats VALUES (?, ?, ?, ?, ?, ?)').run(
      'gw1',
      4242,
      later / 1000 - 600,
      later / 1000 - 10,
      'default',
      'box'
    )
    const live = () => liveUpstreamGateway(db, 'default', later / 1000) !== null
    const s = scheduler(h, () => later, ran, live)
    await s.tick()
    expect(ran).toEqual([])
    expect(s.status().standingDown).toEqual(['default'])
    db.prepare('UPDATE gateway_heartbeats SET last_heartbeat = ?').run(later / 1000 - 3600)
    await s.tick()
    expect(ran).toEqual([a.id])
    db.close()
  })

  it('takes no lock on a tick with nothing due (each lock is a helper process, every tick)', async () => {
    const h = home()
    await createJob(h, { schedule: 'every 30m', prompt: 'ping' }, NOW)
    const ran: string[] = []
    await scheduler(h, () => NOW + 60_000, ran).tick()
    expect(ran).toEqual([])
    expect(existsSync(join(h, 'cron', '.tick.lock'))).toBe(false)
    // a hand-edited job with no schedule and no next run: nothing a tick could claim or change, so still no lock (it
    // took both, and made both lock files in a home only read, every tick for as long as the job stayed)
    const file = join(h, 'cron', 'jobs.json')
    const jobs = JSON.parse(readFileSync(file, 'utf8')) as { jobs: unknown[] }
    jobs.jobs.push({ id: 'handmade0001', name: 'no schedule', prompt: 'ping', schedule: null, enabled: true })
    writeFileSync(file, JSON.stringify(jobs))
    const before = readFileSync(file, 'utf8')
    await scheduler(h, () => NOW + 120_000, ran).tick()
    expect(ran).toEqual([])
    expect(existsSync(join(h, 'cron', '.tick.lock'))).toBe(false) // taken first, the jobs lock inside it
    expect(readFileSync(file, 'utf8')).toBe(before)
  })

  it("claims nothing while upstream's tick holds cron/.tick.lock (its due scan and its advance are two lock turns)", async () => {
    const h = home()
    const job = await createJob(h, { schedule: 'every 30m', prompt: 'ping' }, NOW)
    const before = readFileSync(join(h, 'cron', 'jobs.json'), 'utf8')
    const ran: string[] = []
    // `hermes cron tick` between get_due_jobs and advance_next_run: an exclusive flock on the tick lock
    const holder = spawn('flock', ['-x', join(h, 'cron', '.tick.lock'), 'sh', '-c', 'echo locked; cat >/dev/null'])
    await new Promise((r) => holder.stdout.once('data', r))
    const now = NOW + 31 * 60_000
    await scheduler(h, () => now, ran).tick()
    expect(ran).toEqual([])
    expect(readFileSync(join(h, 'cron', 'jobs.json'), 'utf8')).toBe(before)
    holder.stdin.end()
    await new Promise((r) => holder.once('close', r))
    await scheduler(h, () => now, ran).tick()
    expect(ran).toEqual([job.id])
  })

  /** A scheduler whose job runs all wait on one gate, so a test sees them running at once. */
  const gatedScheduler = (h: string, now: number) => {
    const started: string[] = []
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const s = new CronScheduler({
      profiles: () => [{ name: 'default', home: h }],
      run: async (_p, job: RawJob) => {
        started.push(job.id)
        await gate
      },
      upstreamLive: () => false,
      clock: () => now
    })
    const startedAtLeast = async (n: number) => {
      for (let i = 0; i < 200 && started.length < n; i++) await new Promise((r) => setTimeout(r, 5))
    }
    return { s, started, release, startedAtLeast }
  }

  const MAX_PARALLEL_JOBS = 3 // scheduler.ts
  /** `n` copies of one job made by createJob (one lock turn), ids a…, written as jobs.json. */
  const jobsOf = async (h: string, n: number): Promise<RawJob[]> => {
    const job = await createJob(h, { schedule: 'every 30m', prompt: 'job' }, NOW)
    return [...'abcdef'.slice(0, n)].map((c) => ({ ...job, id: `${c}${job.id.slice(1)}` }))
  }

  it('runs at most 3 jobs at once; the rest stay due in jobs.json and run on a later tick; the scan goes on past the limit', async () => {
    const h = home()
    const jobs = await jobsOf(h, 6)
    delete jobs[5]!.next_run_at // as an older writer or a hand edit leaves it
    writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify({ jobs }))
    const now = NOW + 31 * 60_000
    const { s, started, release, startedAtLeast } = gatedScheduler(h, now)
    const first = s.tick()
    await startedAtLeast(MAX_PARALLEL_JOBS)
    expect(started).toHaveLength(MAX_PARALLEL_JOBS)
    expect(s.status().running).toBe(MAX_PARALLEL_JOBS)
    // Past the limit the scan went on as upstream's does: the job with no next run got one, an interval from this tick.
    expect(Date.parse(String(readJobs(h).jobs.at(-1)!.next_run_at))).toBe(now + 30 * 60_000 - (now % 1000))
    // Full: a tick now claims nothing, and the unclaimed jobs are still due on disk.
    await s.tick()
    expect(started).toHaveLength(MAX_PARALLEL_JOBS)
    const due = readJobs(h).jobs.filter((j) => Date.parse(String(j.next_run_at)) <= now)
    expect(due).toHaveLength(5 - MAX_PARALLEL_JOBS)
    release()
    await first
    await s.tick()
    expect(new Set(started).size).toBe(5)
    expect(started).toHaveLength(5)
  })

  it("a profile's cron.max_parallel_jobs (upstream's) runs fewer at once; its jobs running count toward it", async () => {
    const h = home()
    writeFileSync(join(h, 'config.yaml'), 'cron:\n  max_parallel_jobs: 1\n')
    writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify({ jobs: await jobsOf(h, 2) }))
    const { s, started, release, startedAtLeast } = gatedScheduler(h, NOW + 31 * 60_000)
    const first = s.tick()
    await startedAtLeast(1)
    await s.tick()
    expect(started).toHaveLength(1)
    release()
    await first
    await s.tick()
    expect(started).toHaveLength(2)
  })

  // scripts/golden/cron_max_parallel.py: upstream's tick reads the variable, then config.yaml, each with Python's int()
  // (underscores, any Unicode digits, space around); a variable of 0 or one int() refuses falls back to config.yaml.
  it("the per-profile limit is read as upstream's tick reads it (HERMES_CRON_MAX_PARALLEL, then config.yaml)", () => {
    const G = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/cron-max-parallel/golden.json'), 'utf8')
    ) as { cases: Array<{ env: string | null; section: string | null; max_workers: number | null }> }
    const saved = process.env.HERMES_CRON_MAX_PARALLEL
    try {
      for (const c of G.cases) {
        const h = home()
        if (c.section !== null) writeFileSync(join(h, 'config.yaml'), `cron:\n  ${c.section}\n`)
        if (c.env === null) delete process.env.HERMES_CRON_MAX_PARALLEL
        else process.env.HERMES_CRON_MAX_PARALLEL = c.env
        expect({ ...c, cap: profileParallelCap(h) }).toEqual({ ...c, cap: c.max_workers ?? Infinity })
      }
    } finally {
      if (saved === undefined) delete process.env.HERMES_CRON_MAX_PARALLEL
      else process.env.HERMES_CRON_MAX_PARALLEL = saved
    }
  })

  it('Run now is refused while the same job runs, and counts toward the running jobs', async () => {
    const h = home()
    const a = await createJob(h, { schedule: 'every 30m', prompt: 'a' }, NOW)
    const b = await createJob(h, { schedule: 'every 30m', prompt: 'b' }, NOW + 60_000)
    const { s, started, release, startedAtLeast } = gatedScheduler(h, NOW + 30 * 60_000 + 1) // only `a` is due
    const ticked = s.tick()
    await startedAtLeast(1)
    expect(started).toEqual([a.id])
    await expect(s.runNow(h, a.id, async () => 'twice')).rejects.toMatchObject({ code: 'conflict' })
    const manual = s.runNow(h, b.id, async () => {
      expect(s.status().running).toBe(2)
      return 'ran b'
    })
    await expect(manual).resolves.toBe('ran b')
    release()
    await ticked
    expect(s.status().running).toBe(0)
    await expect(s.runNow(h, a.id, async () => 'now free')).resolves.toBe('now free')
  })

  it('completes a one-shot after its run', async () => {
    const h = home()
    const job = await createJob(h, { schedule: '30m', prompt: 'once' }, NOW)
    expect(job.repeat).toEqual({ times: 1, completed: 0 })
    const ran: string[] = []
    const s = scheduler(h, () => NOW + 31 * 60_000, ran)
    await s.tick()
    await s.tick()
    expect(ran).toEqual([job.id])
    // Claimed as upstream claims a one-shot: its run counted and stamped (a second scheduler skips it), its time kept
    // (upstream re-arms a one-shot whose time is gone); the run's bookkeeping then removes it.
    const claimed = readJobs(h).jobs[0]!
    expect(claimed.next_run_at).toBe(job.next_run_at)
    expect(claimed.repeat).toEqual({ times: 1, completed: 1 })
    expect(claimed.run_claim).toMatchObject({ at: '2026-03-01T08:31:00+00:00' })
  })
})

describe('scheduler across processes', { timeout: 120_000 }, () => {
  it('three processes racing for the same due jobs claim each exactly once (a tick that finds the tick lock taken leaves its jobs to the next)', async () => {
    const { spawn } = await import('node:child_process')
    const { resolve } = await import('node:path')
    const h = home()
    for (let i = 0; i < 6; i++) await createJob(h, { schedule: 'every 30m', prompt: `job ${i}` }, NOW)
    const { createInterface } = await import('node:readline')
    const script = resolve(import.meta.dirname, 'test-fixtures/claim.ts')
    // three scheduler processes, each ticking once per round on its own line: the rounds race, the starts are paid once
    const schedulers = [0, 1, 2].map(() => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, h, String(NOW + 31 * 60_000)], {
        cwd: resolve(import.meta.dirname, '../..'),
        stdio: ['pipe', 'pipe', 'inherit']
      })
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
      const next = async () => {
        const r = await lines.next()
        if (r.done) throw new Error('a scheduler process ended early')
        return String(r.value)
      }
      return { child, next }
    })
    try {
      for (const s of schedulers) expect(await s.next()).toBe('ready')
      // A tick that finds another's tick lock (cron/.tick.lock) stands down, as upstream's does, and leaves its jobs
      // due: rounds of three racing ticks until every job ran — none of them twice across all the rounds.
      const ids = readJobs(h)
        .jobs.map((j) => j.id)
        .sort()
      const all: string[] = []
      const tick = async (s: (typeof schedulers)[number]) => {
        s.child.stdin.write('tick\n')
        return JSON.parse(await s.next()) as string[]
      }
      for (let round = 0; round < 6 && new Set(all).size < ids.length; round++)
        all.push(...(await Promise.all(schedulers.map(tick))).flat())
      expect([...all].sort()).toEqual(ids)
    } finally {
      // Each process ends once its stdin does: waited for here, so none is still shutting down (tsx and all) while the
      // next test file runs on this worker; one that hangs is killed.
      const codes = await Promise.all(
        schedulers.map(
          ({ child }) =>
            new Promise<number | string | null>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode ?? child.signalCode)
              const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
              child.once('exit', (code, signal) => {
                clearTimeout(kill)
                done(code ?? signal)
              })
              child.stdin.end()
            })
        )
      )
      expect(codes).toEqual([0, 0, 0])
    }
  })
})
