// Upstream's own jobs.json (test/fixtures/upstream/cron, written by upstream's cron.jobs.create_job): each job kind
// run through the Cron page's "Run now" (the host dispatcher), then all of them through the scheduler; and the
// jobs lock against a second process holding upstream's flock on cron/.jobs.lock.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type RecordedRequest, type ScriptedProvider } from '../agent/scripted'
import { createHost, type Host } from '../host'
import { createLogger } from '../host/log/log'
import { createJob, CronScheduler, readJobs, runCronJob, type RawJob } from './index'
import { buildJobPrompt } from './job-prompt'

const GOLDEN = resolve(import.meta.dirname, '../../test/fixtures/upstream/cron/home')
const made: string[] = []
let provider: ScriptedProvider
/** While set, the scripted model loops on tool calls until it is asked without tools. */
let looping = false
/** The scripted model's answer to that summary call. */
let summary = 'Checked twice; the report is still pending.'
afterAll(async () => {
  await provider?.close()
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

const userText = (r: RecordedRequest) =>
  (r.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').at(-1)!.content
const systemText = (r: RecordedRequest) =>
  (r.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'system')?.content ?? ''

/** A copy of the golden home on the scripted provider; the workdir job points at a folder with an AGENTS.md. */
function goldenHome(): { home: string; byName: Record<string, RawJob> } {
  const home = mkdtempSync(join(tmpdir(), 'cad-cron-up-'))
  made.push(home)
  cpSync(GOLDEN, home, { recursive: true })
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\n` +
      // UTC+14 all year: output names must follow the profile's clock, not UTC.
      'timezone: Pacific/Kiritimati\ncron:\n  output_retention: 2\n'
  )
  const work = join(home, 'work')
  mkdirSync(work)
  writeFileSync(join(work, 'AGENTS.md'), 'This folder holds the quarterly numbers.')
  const path = join(home, 'cron', 'jobs.json')
  const file = JSON.parse(readFileSync(path, 'utf8'))
  for (const j of file.jobs) if (j.name === 'workdir') j.workdir = work
  writeFileSync(path, JSON.stringify(file, null, 2))
  return { home, byName: Object.fromEntries(file.jobs.map((j: RawJob) => [j.name, j])) }
}

beforeAll(async () => {
  provider = await startScriptedProvider({
    handler: (req) => {
      const body = req.body as { tools?: unknown[]; messages: Array<{ role: string }> }
      if (!looping) return { text: 'report ready' }
      // a model that never stops calling tools; asked without them after a tool round (the summary call), it answers
      const afterTools = body.messages.some((m) => m.role === 'tool')
      if (afterTools && !body.tools?.length) return { text: summary }
      return { toolCalls: [{ name: 'no_such_tool', arguments: {} }] }
    }
  })
})

describe("upstream's jobs through Run now", { timeout: 120_000 }, () => {
  let host: Host
  let home: string
  let job: Record<string, RawJob>
  const runNow = async (name: string) => {
    const before = provider.requests.length
    const r = await host.dispatcher.invoke('cron.runNow', { profile: 'default', id: job[name]!.id })
    if (!r.ok) throw new Error(r.error.message)
    const live = readJobs(home).jobs.find((j) => j.id === job[name]!.id) ?? null
    return {
      out: r.output as { status: string; error: string | null; outputPath: string; sessionId: string },
      live,
      calls: provider.requests.slice(before)
    }
  }
  beforeAll(async () => {
    ;({ home, byName: job } = goldenHome())
    process.env.CADUCEUS_LOG_DIR = join(home, 'logs')
    host = await createHost({ home, headless: true, live: false, log: createLogger() })
  })
  afterAll(() => host?.close())

  it('a plain job is a cron turn, and a hand run counts as a run', async () => {
    // Older outputs beyond cron.output_retention (2) are pruned oldest first, as upstream does.
    const dir = join(home, 'cron', 'output', job.plain!.id)
    mkdirSync(dir, { recursive: true })
    for (const old of ['2020-01-01_00-00-00.md', '2020-01-02_00-00-00.md']) writeFileSync(join(dir, old), 'old')
    const before = Date.now()
    const { out, live, calls } = await runNow('plain')
    const after = Date.now()
    // upstream's save_job_output: <job id>/%Y-%m-%d_%H-%M-%S.md in the configured zone; session cron_<id>_%Y%m%d_%H%M%S
    const kiritimati = (ms: number) => new Date(ms + 14 * 3600_000).toISOString().slice(0, 19)
    // Every second the run spanned: under load it can take longer than one.
    const seconds: number[] = []
    for (let s = Math.floor(before / 1000); s <= Math.floor(after / 1000); s++) seconds.push(s * 1000)
    const names = seconds.map((ms) => `${kiritimati(ms).replace('T', '_').replace(/:/g, '-')}.md`)
    expect(names).toContain(basename(out.outputPath))
    expect(readdirSync(dir).sort()).toEqual(['2020-01-02_00-00-00.md', basename(out.outputPath)])
    const stamps = seconds.map((ms) => kiritimati(ms).replace(/[-:]/g, '').replace('T', '_'))
    expect(stamps.map((t) => `cron_${job.plain!.id}_${t}`)).toContain(out.sessionId)
    expect(out.status).toBe('ok')
    // The job's prompt after the note every cron run gets (upstream gives its agent one too).
    expect(calls.map(userText)).toEqual([buildJobPrompt(home, join(home, 'cron'), job.plain!, null)])
    expect(userText(calls[0]!)).toMatch(/^\[Cron run: [\s\S]+\]\n\nsummarise my day$/)
    expect(live).toMatchObject({ last_status: 'ok', repeat: { times: null, completed: 1 }, state: 'scheduled' })
    expect(live!.last_delivery_error).toBeNull()
    // Fields this app does not use survive the rewrite as upstream wrote them.
    expect(live).toMatchObject({ skill: null, provider_snapshot: null, context_from: null })
  })

  it('no_agent scripts: stdout is the output, empty is silent, a failure is recorded; no provider call', async () => {
    const ok = await runNow('watchdog')
    expect(ok.calls).toHaveLength(0)
    expect(ok.out).toMatchObject({ status: 'ok', sessionId: '' })
    // Run with bash in the script's own folder, as upstream does.
    expect(readFileSync(ok.out.outputPath, 'utf8')).toContain('disk usage: 42% (from scripts)')
    const silent = await runNow('silent')
    expect(silent.calls).toHaveLength(0)
    expect(silent.live).toMatchObject({ last_status: 'ok', last_error: null })
    const failing = await runNow('failing')
    expect(failing.out.status).toBe('error')
    expect(failing.live!.last_error).toMatch(/^Script exited with code 3\nstderr:\ndisk missing\nstdout:\nhalf done$/)
  })

  it('a script feeds its stdout as context; a wake gate of false skips the agent', async () => {
    const { calls } = await runNow('script-context')
    expect(userText(calls[0]!)).toMatch(/## Script Output[\s\S]*3 new tickets: #12 #13 #14[\s\S]*triage these tickets$/)
    const gated = await runNow('gated')
    expect(gated.calls).toHaveLength(0)
    expect(gated.live).toMatchObject({ last_status: 'ok' })
  })

  it('context_from brings the latest output of the named job', async () => {
    const { calls } = await runNow('chained')
    expect(userText(calls[0]!)).toMatch(
      new RegExp(
        `## Output from job '${job.watchdog!.id}'[\\s\\S]*disk usage: 42%[\\s\\S]*summarise the watchdog report$`
      )
    )
  })

  it('skills are loaded before the prompt, a missing one is named', async () => {
    const text = userText((await runNow('skilled')).calls[0]!)
    expect(text).toContain('Always answer in three bullet points.')
    expect(text).toContain('no-such-skill')
    expect(text.endsWith('brief me')).toBe(true)
  })

  it('enabled_toolsets gives exactly those tools; workdir brings its AGENTS.md', async () => {
    const plainTools = (provider.requests.find((r) => userText(r).endsWith('\n\nsummarise my day'))!.body.tools ??
      []) as unknown[]
    expect(plainTools.length).toBeGreaterThan(0)
    const only = await runNow('toolsets')
    expect(only.calls[0]!.body.tools ?? []).toEqual([])
    const w = await runNow('workdir')
    expect(systemText(w.calls[0]!)).toContain('This folder holds the quarterly numbers.')
  })

  it('a target this host cannot deliver to sets last_delivery_error; local output still written', async () => {
    const { out, live } = await runNow('delivered')
    expect(out.status).toBe('ok')
    expect(live!.last_delivery_error).toMatch(/cannot deliver to telegram:123/)
    expect(existsSync(out.outputPath)).toBe(true)
  })

  it('a job at its repeat limit is removed, as upstream does (one-shots too)', async () => {
    expect((await runNow('twice')).live).toMatchObject({ repeat: { times: 2, completed: 1 } })
    expect((await runNow('twice')).live).toBeNull()
    expect((await runNow('once')).live).toBeNull()
  })

  it('a job that reaches agent.max_turns delivers the final answer asked for without tools: a success, as upstream counts it', async () => {
    const config = join(home, 'config.yaml')
    const saved = readFileSync(config, 'utf8')
    writeFileSync(config, `${saved}agent:\n  max_turns: 1\n`)
    looping = true
    try {
      const { out, live, calls } = await runNow('plain')
      // one budgeted call, then the summary call without tools (upstream's cron delivers its answer: a success)
      expect(calls.map((c) => Boolean((c.body as { tools?: unknown[] }).tools?.length))).toEqual([true, false])
      expect(out).toMatchObject({ status: 'ok', error: null })
      expect(readFileSync(out.outputPath, 'utf8')).toContain('Checked twice; the report is still pending.')
      expect(live).toMatchObject({ last_status: 'ok' })
      // a fragment of an answer is delivered with why the turn stopped after it, as upstream's cron delivers it
      summary = 'The'
      const cut = await runNow('plain')
      expect(readFileSync(cut.out.outputPath, 'utf8')).toMatch(/The\n\nNo final answer: the turn used all 1 of its/)
    } finally {
      summary = 'Checked twice; the report is still pending.'
      looping = false
      writeFileSync(config, saved)
    }
  })
})

describe("upstream's jobs through the scheduler", { timeout: 120_000 }, () => {
  it('runs every due job once and records each as upstream reads it', async () => {
    const { home, byName } = goldenHome()
    const path = join(home, 'cron', 'jobs.json')
    const file = JSON.parse(readFileSync(path, 'utf8'))
    const past = new Date(Date.now() - 60_000).toISOString()
    for (const j of file.jobs) j.next_run_at = j.schedule.kind === 'once' ? j.next_run_at : past
    for (const j of file.jobs) if (j.schedule.kind === 'once') j.schedule.run_at = j.next_run_at = past
    writeFileSync(path, JSON.stringify(file, null, 2))
    const host = await createHost({ home, headless: true, live: false, log: createLogger() })
    try {
      const ran: string[] = []
      const s = new CronScheduler({
        profiles: () => [{ name: 'default', home }],
        run: (p, job) =>
          runCronJob(host.gateway, p.name, p.home, job, { vault: host.vault }).then(() => void ran.push(job.id)),
        upstreamLive: () => false
      })
      for (let i = 0; i < 8 && ran.length < file.jobs.length; i++) await s.tick()
      expect(ran.sort()).toEqual(file.jobs.map((j: RawJob) => j.id).sort())
      const after = Object.fromEntries(readJobs(home).jobs.map((j) => [j.name, j]))
      expect(after.once).toBeUndefined()
      expect(after.failing).toMatchObject({ last_status: 'error', repeat: { completed: 1 } })
      expect(after.watchdog).toMatchObject({ last_status: 'ok', state: 'scheduled' })
      expect(after.delivered!.last_delivery_error).toMatch(/telegram:123/)
      expect(after.twice).toMatchObject({ repeat: { times: 2, completed: 1 } })
      expect(Date.parse(String(after.plain!.next_run_at))).toBeGreaterThan(Date.now())
      expect(Object.keys(after.plain!)).toEqual(expect.arrayContaining(Object.keys(byName.plain!)))
    } finally {
      await host.close()
    }
  })
})

describe("jobs.json lock against upstream's", { timeout: 60_000 }, () => {
  it("waits for a second process holding upstream's flock on cron/.jobs.lock, then refuses; works once released", async () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-cron-lock-'))
    made.push(home)
    mkdirSync(join(home, 'cron'))
    // What upstream's _jobs_lock() does: fcntl.flock(LOCK_EX) on <cron dir>/.jobs.lock.
    const holder = spawn(
      'python3',
      [
        '-c',
        'import fcntl,sys; f=open(sys.argv[1],"a+"); fcntl.flock(f, fcntl.LOCK_EX); print("held", flush=True); sys.stdin.read()',
        join(home, 'cron', '.jobs.lock')
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] }
    )
    await new Promise<void>((ok) => holder.stdout.once('data', () => ok()))
    process.env.CADUCEUS_CRON_LOCK_WAIT_MS = '300'
    try {
      await expect(createJob(home, { schedule: 'every 1h', prompt: 'x' })).rejects.toThrow(
        /jobs\.json is locked by another process .*\.jobs\.lock.*not changing it/
      )
      expect(existsSync(join(home, 'cron', 'jobs.json'))).toBe(false)
      holder.stdin.end()
      await new Promise((ok) => holder.once('close', ok))
      const job = await createJob(home, { schedule: 'every 1h', prompt: 'x' })
      expect(readJobs(home).jobs.map((j) => j.id)).toEqual([job.id])
    } finally {
      delete process.env.CADUCEUS_CRON_LOCK_WAIT_MS
      holder.kill()
    }
  })
})
