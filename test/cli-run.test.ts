// `caduceus run -z`, `api` and `cron` as a script runs them: real state.db, a real provider server. The binary itself
// (bin/caduceus.mjs, its own process: exit code and streams) runs where processes are the subject or the entry's own
// parsing is (several runs creating one state.db at once, a prompt piped in, shell words, usage exits) and once for
// `cron` (a real `caduceus api` process is test/api-server-process.test.ts's); the rest run through runCli in this
// process (test/helpers/cli-in-process.ts), a process start each being most of their cost.
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type ScriptedProvider } from '../src-main/agent/scripted'
import { chunk, sse, startRouteServer } from '../src-main/agent/providers/test-fixtures/route-server'
import { cliInProcess } from './helpers/cli-in-process'
import { entryGolden, sharedColumns } from './helpers/entry-rows'

const exec = promisify(execFile)
const repo = resolve(import.meta.dirname, '..')
const made: string[] = []
let provider: ScriptedProvider

const home = (configYaml: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'cad-run-'))
  made.push(dir)
  writeFileSync(join(dir, 'config.yaml'), configYaml)
  return dir
}

/** The built CLI in its own process, as a script runs it. */
async function cli(dir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['bin/caduceus.mjs', ...args, '--home', dir], {
      cwd: repo,
      env: { ...process.env, CADUCEUS_LOG_DIR: join(dir, 'logs'), HERMES_HOME: '', OPENROUTER_API_KEY: '' }
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

const source = (dir: string, id: string) => {
  const db = new Database(join(dir, 'state.db'), { readonly: true })
  try {
    const row = db.prepare('SELECT source, session_key FROM sessions WHERE id = ?').get(id) as
      { source: string; session_key: string | null } | undefined
    // A stateless channel's row has no routing key, as upstream's cli and cron rows: its `hermes status` counts every
    // live keyed row as a gateway conversation.
    return row && row.session_key === null ? row.source : `${row?.source} (session_key ${row?.session_key})`
  } finally {
    db.close()
  }
}

/** The same command through runCli in this process, in the environment `cli` gives its child. */
const inProcess = cliInProcess

beforeAll(async () => {
  provider = await startScriptedProvider({ handler: () => ({ text: 'scripted answer' }) })
  // test/support/fresh-file.ts restores the environment for the next file
  process.env.CADUCEUS_LOG_DIR = join(home(''), 'logs')
  process.env.HERMES_HOME = ''
  process.env.OPENROUTER_API_KEY = ''
})

afterAll(async () => {
  await provider.close()
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

const DEMO = 'model:\n  default: demo-model\n  provider: demo\n'

// Generous time on a loaded machine (a real CLI process start where one is used), no timing assertions.
describe('caduceus run -z', { timeout: 120_000 }, () => {
  it('prints only the reply on a demo profile and exits 0', async () => {
    const dir = home(DEMO)
    const r = await inProcess(dir, 'run', '-z', 'hello from a script')
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toMatch(/^You said: "hello from a script"/)
    expect(r.stdout.trim().split('\n')).toHaveLength(1)
  })

  // Each process finds no state.db and creates it: none may see another's half-made file or report it unreadable.
  it('several at once on an empty home all answer, into one complete state.db (WAL, 0600)', async () => {
    const dir = home(DEMO)
    const runs = await Promise.all([1, 2, 3, 4].map((i) => cli(dir, 'run', '-z', `race ${i}`, '--json')))
    expect(
      runs.map((r) => r.code),
      runs.map((r) => r.stderr).join('\n')
    ).toEqual([0, 0, 0, 0])
    const ids = runs.map((r) => JSON.parse(r.stdout).session_id as string)
    expect(ids.map((id) => source(dir, id))).toEqual(['cli', 'cli', 'cli', 'cli'])
    const db = new Database(join(dir, 'state.db'), { readonly: true })
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    db.close()
    expect(statSync(join(dir, 'state.db')).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir).filter((f) => f.startsWith('.state.db'))).toEqual([]) // no temp file left behind
  })

  it('--json prints {session_id, reply, usage, cost, warnings} and the session is stored with source cli', async () => {
    const dir = home(DEMO)
    const r = await inProcess(dir, 'run', '-z', 'json please', '--json')
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(Object.keys(out).sort()).toEqual(['cost', 'reply', 'session_id', 'usage', 'warnings'])
    expect(out.reply).toContain('json please')
    expect(out.usage.output_tokens).toBeGreaterThan(0)
    expect(source(dir, out.session_id)).toBe('cli')
    // the row holds what upstream's `hermes -z` row holds (scripts/golden/entry_rows.py): its agent's settings as
    // model_config, no routing key, left open, 0.0 beside 'unknown' for a call without a price
    expect(sharedColumns(join(dir, 'state.db'), out.session_id)).toEqual(entryGolden('oneshot'))
  })

  it("agent.max_turns: .inf is no limit, as upstream's chat reads it (the row records its agent's budget)", async () => {
    const dir = home(`${DEMO}agent:\n  max_turns: .inf\n`)
    const out = JSON.parse((await inProcess(dir, 'run', '-z', 'how long may you go on?', '--json')).stdout)
    expect(out.warnings).toEqual([])
    const db = new Database(join(dir, 'state.db'), { readonly: true })
    try {
      const config = db.prepare('SELECT model_config FROM sessions WHERE id = ?').pluck().get(out.session_id)
      expect(String(config)).toContain('"max_iterations": Infinity')
    } finally {
      db.close()
    }
  })

  it("-m is --model, as upstream's hermes -z takes it: the session runs and is stored on that model", async () => {
    const dir = home(DEMO)
    const r = await inProcess(dir, '-z', 'short flag', '-m', 'picked-model', '--json')
    expect([r.code, r.stderr]).toEqual([0, ''])
    const id = JSON.parse(r.stdout).session_id as string
    const db = new Database(join(dir, 'state.db'), { readonly: true })
    try {
      expect(db.prepare('SELECT model FROM sessions WHERE id = ?').pluck().get(id)).toBe('picked-model')
    } finally {
      db.close()
    }
  })

  it('an unknown profile fails with one line on stderr', async () => {
    const r = await inProcess(home(DEMO), 'run', '-z', 'hi', '--profile', 'nope')
    expect(r.code).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim()).toBe('caduceus run: Unknown profile: nope')
  })

  it('a missing key fails before any request, naming the variable', async () => {
    const r = await inProcess(home('model:\n  default: some/model\n  provider: openrouter\n'), 'run', '-z', 'hi')
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim()).toMatch(
      /^caduceus run: no API key for provider openrouter: set OPENROUTER_API_KEY in .*\.env$/
    )
  })

  it('a provider error exits non-zero with the reason', async () => {
    const failing = await startScriptedProvider({ handler: () => ({ error: 500, errorMessage: 'upstream exploded' }) })
    try {
      // No retries: the exit and the one-line reason are the subject, not the provider's backoff.
      const r = await inProcess(
        home(
          `model:\n  default: m\n  provider: custom\n  base_url: ${failing.baseUrl}\nprovider_limits:\n  max_retries: 0\n`
        ),
        'run',
        '-z',
        'hi'
      )
      expect(r.code).not.toBe(0)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^caduceus run: /)
    } finally {
      await failing.close()
    }
  })

  it('a reply still cut off after its continuations is printed and exits 0, as upstream -z does; the reason on stderr', async () => {
    const capped = await startScriptedProvider({ handler: () => ({ text: 'part ', finishReason: 'length' }) })
    try {
      const dir = home(`model:\n  default: m\n  provider: custom\n  base_url: ${capped.baseUrl}\n`)
      const usage = join(dir, 'usage.json')
      const r = await inProcess(dir, 'run', '-z', 'write a lot', '--usage-file', usage)
      expect(r.code).toBe(0)
      expect(r.stdout).toBe('part part part part \n')
      expect(r.stderr.trim()).toBe(
        'caduceus run: warning: the reply was still cut off by the output cap after 3 requests to continue; it ends there'
      )
      expect(JSON.parse(readFileSync(usage, 'utf8'))).toMatchObject({ completed: false, failed: false, api_calls: 4 })
    } finally {
      await capped.close()
    }
  })

  it('a reply whose body ends normally without finish_reason or [DONE] is complete: printed, exit 0, one request', async () => {
    const plain = await startRouteServer((_req, res) => {
      sse(res)
      res.end(chunk({ role: 'assistant' }) + chunk({ content: 'Whole answer, no marker' }))
    })
    try {
      const dir = home(`model:\n  default: m\n  provider: custom\n  base_url: ${plain.baseUrl}\n`)
      const r = await inProcess(dir, 'run', '-z', 'answer plainly')
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toBe('Whole answer, no marker\n')
      expect(plain.hits).toBe(1)
    } finally {
      await plain.close()
    }
  })

  it("works in the folder it was run from, as upstream's hermes -z: its terminal's default and the session's cwd", async () => {
    const shell = await startScriptedProvider({
      script: [{ toolCalls: [{ name: 'terminal', arguments: { command: 'pwd' } }] }, { text: 'listed' }]
    })
    try {
      const dir = home(
        `model:\n  default: m\n  provider: custom\n  base_url: ${shell.baseUrl}\nterminal:\n  enabled: true\n`
      )
      const r = await inProcess(dir, 'run', '-z', 'where am I?', '--json')
      expect([r.code, r.stderr]).toEqual([0, ''])
      const id = JSON.parse(r.stdout).session_id as string
      const db = new Database(join(dir, 'state.db'), { readonly: true })
      try {
        expect(db.prepare('SELECT cwd FROM sessions WHERE id = ?').pluck().get(id)).toBe(process.cwd())
        const result = db.prepare("SELECT content FROM messages WHERE session_id = ? AND role = 'tool'").pluck().get(id)
        expect(String(result)).toContain(process.cwd()) // not the profile's home
        expect(String(result)).not.toContain(dir)
      } finally {
        db.close()
      }
    } finally {
      await shell.close()
    }
  })

  it("builds the agent with the profile's memory: the built-in provider's memory reaches the one-shot turn", async () => {
    const dir = home(`model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\n`)
    mkdirSync(join(dir, 'memories'))
    writeFileSync(join(dir, 'memories', 'MEMORY.md'), "The user's cat is named Pixel.")
    const before = provider.requests.length
    const r = await inProcess(dir, 'run', '-z', 'what is my cat called?')
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe('scripted answer')
    const req = provider.requests.slice(before).find((q) => q.path.endsWith('/chat/completions'))!
    expect(JSON.stringify(req.body.messages)).toContain('named Pixel')
    expect((req.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain('memory')
  })

  it('a memory provider left out is a warning on stderr and in --json, never a silent fallback', async () => {
    const dir = home(
      `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\nmemory:\n  provider: nosuch\n`
    )
    const r = await inProcess(dir, 'run', '-z', 'hello', '--json')
    expect(r.code).toBe(0)
    expect(r.stderr).toContain("caduceus run: warning: Memory provider 'nosuch' is not installed")
    const out = JSON.parse(r.stdout) as { reply: string; warnings: string[] }
    expect(out.reply).toBe('scripted answer')
    expect(out.warnings).toEqual([expect.stringContaining("Memory provider 'nosuch' is not installed")])
  })
})

// Argument parsing through the real entry (bin/caduceus.mjs): what a shell user types is what the agent gets.
describe('run -z parses like a shell', { timeout: 120_000 }, () => {
  let echo: ScriptedProvider
  const prompts = () =>
    echo.requests.map((r) => {
      const msgs = r.body.messages as Array<{ role: string; content: string }>
      return msgs.filter((m) => m.role === 'user').at(-1)!.content
    })
  beforeAll(async () => {
    echo = await startScriptedProvider({ handler: () => ({ text: 'echoed' }) })
  })
  afterAll(() => echo.close())
  const run = (args: string[], stdin?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, ['bin/caduceus.mjs', ...args], {
        cwd: repo,
        env: { ...process.env, CADUCEUS_LOG_DIR: join(tmpdir(), 'cad-run-logs'), HERMES_HOME: '' }
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }))
      child.stdin.end(stdin ?? '')
    })

  it('options before and after the words, `--`, `-` and a pipe: every word reaches the agent in order', async () => {
    const dir = home(`model:\n  default: m\n  provider: custom\n  base_url: ${echo.baseUrl}\n`)
    const usage = join(dir, 'reports', 'usage.json')
    const [a, b, c] = await Promise.all([
      run(['-z', '--home', dir, 'summarise', 'my', 'inbox', '--json', '--usage-file', usage]),
      run(['run', '--home', dir, '-z', '--', '--json', 'is', 'a', 'word']),
      run(['run', '-z', '-', '--home', dir], 'a prompt from a pipe\n')
    ])
    expect([a.code, b.code, c.code], [a.stderr, b.stderr, c.stderr].join('\n')).toEqual([0, 0, 0])
    expect(JSON.parse(a.stdout).reply).toBe('echoed')
    expect(b.stdout.trim()).toBe('echoed')
    expect(prompts().sort()).toEqual(['--json is a word', 'a prompt from a pipe', 'summarise my inbox'])
    const report = JSON.parse(readFileSync(usage, 'utf8'))
    expect(report).toMatchObject({
      session_id: JSON.parse(a.stdout).session_id,
      completed: true,
      failed: false,
      model: 'm',
      provider: 'custom'
    })
    expect(report.api_calls).toBe(1)
    expect(Object.keys(report)).toEqual(expect.arrayContaining(['estimated_cost_usd', 'total_tokens', 'cost_status']))
  })

  // The other usage errors (missing values, a prompt given twice) go through the same check in-process:
  // src-main/host/run-args.test.ts.
  it('an unknown flag exits 2 with usage on stderr, nothing sent', async () => {
    const dir = home(`model:\n  default: m\n  provider: custom\n  base_url: ${echo.baseUrl}\n`)
    const before = echo.requests.length
    const r = await run(['run', '-z', 'hi', '--bogus', '--home', dir])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.split('\n')[0]).toBe('caduceus run: unknown option --bogus for run')
    expect(r.stderr).toContain('caduceus run -z PROMPT')
    expect(echo.requests.length).toBe(before)
  })
})

/** The built CLI in a child whose streams the test holds; resolves with its exit code and what it wrote to stderr. */
function child(argv: string[], opts: { closeStdout?: boolean; shell?: string } = {}) {
  const c = opts.shell
    ? spawn('/bin/sh', ['-c', opts.shell, process.execPath, ...argv], { cwd: repo })
    : spawn(process.execPath, ['bin/caduceus.mjs', ...argv], { cwd: repo })
  // a reader that stopped reading (`| head` has exited): the pipe is closed before the CLI writes a byte
  if (opts.closeStdout) c.stdout.destroy()
  let stdout = ''
  let stderr = ''
  c.stdout.on('data', (d: Buffer) => (stdout += String(d)))
  c.stderr.on('data', (d: Buffer) => (stderr += String(d)))
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    c.on('close', (code) => done({ code, stdout, stderr }))
  )
}

describe('the binary as a shell runs it', { timeout: 60_000 }, () => {
  it('ends quietly with exit 0 when its reader closes the pipe (`| head`), with no stack trace', async () => {
    const dir = home('')
    writeFileSync(join(dir, 'state.db'), readFileSync(join(repo, 'test/fixtures/upstream/fidelity/home/state.db')))
    const r = await child(['sessions', 'export', '-', '--home', dir], { closeStdout: true })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })

  it('refuses an argument whose bytes are not UTF-8 in one line, exit 2, before acting on it', async () => {
    const dir = home('')
    // `--home <dir>/<0xFF>`: Node would read it as U+FFFD and make a folder of that other name
    const r = await child([dir], { shell: 'exec "$0" bin/caduceus.mjs sessions list --home "$1/$(printf "\\377")"' })
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^caduceus: argument 4 \("[^"]*\uFFFD"\) is not UTF-8 text; give it in UTF-8\n$/)
    expect(readdirSync(dir)).toEqual(['config.yaml'])
  })
})

describe('caduceus api', { timeout: 120_000 }, () => {
  it('refuses a non-loopback --host without a key: non-zero exit, one line, never serves', async () => {
    const dir = home(DEMO)
    const r = await inProcess(dir, 'api', '--host', '0.0.0.0', '--port', '0')
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim()).toMatch(/^caduceus api: refusing to serve on 0\.0\.0\.0 without API_SERVER_KEY/)
  })
})

describe('caduceus cron', { timeout: 180_000 }, () => {
  it('create, then run: exits 0 once the cron session and the output file exist', async () => {
    const dir = home(DEMO)
    const created = await inProcess(dir, 'cron', 'create', 'every 2h', 'summarise my day', '--name', 'daily', '--json')
    expect(created.code).toBe(0)
    const job = JSON.parse(created.stdout)
    expect(job.schedule).toEqual({ kind: 'interval', minutes: 120, display: 'every 120m' })
    // Toolsets an upstream-written job may name (jobs.json is shared with upstream's own cron tool).
    const jobsPath = join(dir, 'cron', 'jobs.json')
    const file = JSON.parse(readFileSync(jobsPath, 'utf8'))
    file.jobs[0].enabled_toolsets = ['terminal', 'web', 'memory']
    writeFileSync(jobsPath, JSON.stringify(file, null, 2))
    const r = await inProcess(dir, 'cron', 'run', job.id, '--json')
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(source(dir, out.session_id)).toBe('cron')
    // Closed as upstream's run_job closes its session: titled from the job and the minute, ended 'cron_complete'.
    const row = sharedColumns(join(dir, 'state.db'), out.session_id)
    expect(row.title).toMatch(/^daily · [A-Z][a-z]{2} \d\d \d\d:\d\d$/)
    const cron = entryGolden('cron')
    expect({ ...row, title: String(row.title).replace(/[A-Z][a-z]{2} \d\d \d\d:\d\d$/, '<Mon DD HH:MM>') }).toEqual({
      ...cron,
      title: String(cron.title).replace('Nightly check', 'daily')
    })
    expect(out.output_path).toMatch(new RegExp(`cron/output/${job.id}/\\d{4}-\\d\\d-\\d\\d_\\d\\d-\\d\\d-\\d\\d\\.md$`))
    const doc = readFileSync(out.output_path, 'utf8')
    // the demo model echoes the turn's text: the job's prompt after the note a cron run's turn starts with
    expect(doc).toMatch(/You said: "\[Cron run: [^"]*\]\n\nsummarise my day"/)
    // What the run could not give the job is said: on stderr, in --json and on the job (the output file keeps
    // upstream's layout, which has no place for it).
    const warnings = [
      'enabled_toolsets names memory, but cron runs have no memory (as upstream builds them)',
      'enabled_toolsets names web: no such tools on this host; the job ran without them'
    ]
    expect(out.warnings).toEqual(warnings)
    expect(r.stderr).toContain(`caduceus cron: warning: ${warnings[1]}`)
    expect(doc).not.toContain(warnings[1])
    const listed = JSON.parse((await inProcess(dir, 'cron', 'list', '--json')).stdout)
    expect(listed.jobs[0]).toMatchObject({ id: job.id, last_status: 'ok', last_warnings: warnings })
    // Claimed as upstream's `hermes cron run` claims it, and its bookkeeping as upstream's: counted, claim cleared.
    expect(listed.jobs[0]).toMatchObject({
      repeat: { times: null, completed: 1 },
      fire_claim: null,
      state: 'scheduled'
    })
    expect(Date.parse(listed.jobs[0].next_run_at)).toBe(Date.parse(listed.jobs[0].last_run_at) + 2 * 3600_000)
  })

  it("run refuses a paused job, as upstream's hermes cron run does, and leaves it as it was", async () => {
    const dir = home(DEMO)
    const job = JSON.parse((await inProcess(dir, 'cron', 'create', 'every 2h', 'later', '--json')).stdout)
    expect((await inProcess(dir, 'cron', 'pause', job.id)).code).toBe(0)
    const before = readFileSync(join(dir, 'cron', 'jobs.json'), 'utf8')
    const r = await inProcess(dir, 'cron', 'run', job.id)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/paused or disabled; resume it/)
    expect(readFileSync(join(dir, 'cron', 'jobs.json'), 'utf8')).toBe(before)
  })

  it("edit with a new schedule schedules a finished job again, as upstream's hermes cron edit does", async () => {
    // test/fixtures/upstream/cron-edges: a one-shot upstream ran to `state: completed` (disabled), and what its
    // cronjob tool's update (the path `hermes cron edit` takes) leaves after a new one-shot time: scheduled again.
    const golden = JSON.parse(readFileSync(join(repo, 'test/fixtures/upstream/cron-edges/cases.json'), 'utf8')) as {
      edits: Array<{ job: string; to: string; via: string; before: { id: string }; after: object }>
    }
    const c = golden.edits.find(
      (e) => e.job === 'finished_job' && e.to === '2027-01-10T09:30' && e.via === 'cronjob_tool'
    )!
    const dir = home(DEMO)
    mkdirSync(join(dir, 'cron'))
    writeFileSync(join(dir, 'cron', 'jobs.json'), JSON.stringify({ jobs: [c.before] }))
    // In the fixture's zone (UTC) so the time is the one upstream stored.
    writeFileSync(join(dir, 'config.yaml'), `${DEMO}timezone: UTC\n`)
    const r = await inProcess(dir, 'cron', 'edit', c.before.id, '--schedule', c.to, '--json')
    expect(r.code).toBe(0)
    const job = JSON.parse(readFileSync(join(dir, 'cron', 'jobs.json'), 'utf8')).jobs[0]
    const pick = ({ enabled, state, next_run_at, repeat, schedule }: Record<string, unknown>) => ({
      enabled,
      state,
      next_run_at,
      repeat,
      schedule
    })
    expect(pick(job)).toEqual(pick(c.after as Record<string, unknown>))
  })

  it('refuses a bad schedule listing the forms', async () => {
    const r = await cli(home(DEMO), 'cron', 'create', 'whenever', 'x')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Use one of:')
    expect(r.stderr).toContain('"every 30m"')
  })
})
