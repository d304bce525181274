// `caduceus memory …`, `cron status|tick`, `sessions optimize|repair` and the usage exits, against what upstream's
// own `hermes` printed and left (scripts/golden/cli_more_verbs.py → test/fixtures/upstream/cli-more-verbs/). The CLI
// runs in this process (runCli, the entry bin/caduceus.mjs calls); the system Python runs twice: once for upstream's
// own config loader on the config.yaml files Caduceus wrote (and to index a NUL-holding message with upstream's
// SQLite), once for upstream's SQLite's FTS integrity-check after Caduceus's optimize.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliInProcess } from './helpers/cli-in-process'
import { ftsIntegrity, hasSystemPython, SYSTEM_PYTHON } from './support/fts-integrity'

const repo = resolve(import.meta.dirname, '..')
const FIX = join(repo, 'test/fixtures/upstream')
const OFF = JSON.parse(readFileSync(join(FIX, 'memory-off/upstream.json'), 'utf8')) as {
  cases: Array<{ name: string; start: string; memory_section: unknown; loaded_provider: string }>
}
const G = JSON.parse(readFileSync(join(FIX, 'cli-more-verbs/answers.json'), 'utf8')) as {
  memory: Record<string, { code: number; stdout: string; provider?: string; left?: string[] }> & {
    start_config: string
    bad_verb: number
    bad_target: number
  }
  cron_status_summary: string[]
  sessions: { optimize: { lines: string[] }; repair_nul_home: { stdout: string } }
  usage: { codes: Record<string, number>; repeats: Record<string, unknown> }
}
/** scripts/golden/foreign_flags.py: upstream's argparse on a flag the command does not take. */
const FOREIGN = JSON.parse(readFileSync(join(FIX, 'foreign-flags/answers.json'), 'utf8')) as {
  cases: Record<string, { code: number; stdout: string; refused: string[] }>
}
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'

const made: string[] = []
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix))
  made.push(d)
  return d
}
beforeAll(() => {
  process.env.CADUCEUS_LOG_DIR = join(tmp('cad-more-verbs-logs-'), 'logs')
  process.env.HERMES_HOME = ''
})
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

const cli = cliInProcess
const lines = (text: string, n: number) => text.split('\n').slice(0, n)

// Spawn 1: upstream's config loader on each home (the provider it selects, and the memory section as its own
// yaml.safe_load reads the file), then a fresh upstream home in which upstream's SQLite indexes a message holding a
// NUL byte (built from the same empty home the golden used).
const UPSTREAM_SIDE = `
import json, sqlite3, sys, os, shutil, time, yaml
sys.path.insert(0, sys.argv[1])
from hermes_cli.config import load_config
providers = {}
sections = {}
for home in sys.argv[4:]:
    os.environ["HERMES_HOME"] = home
    providers[home] = load_config().get("memory", {}).get("provider")
    with open(os.path.join(home, "config.yaml"), encoding="utf-8") as f:
        sections[home] = (yaml.safe_load(f) or {}).get("memory")
shutil.copyfile(sys.argv[2], sys.argv[3])
c = sqlite3.connect(sys.argv[3])
c.execute("INSERT INTO sessions (id, source, started_at) VALUES ('nul', 'cli', ?)", (time.time(),))
for i in range(3):
    c.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('nul', 'user', ?, ?)",
              ('look at the okapi %d\\x00json:{"kind": "image"}' % i, time.time()))
    c.commit()
print(json.dumps({"providers": providers, "sections": sections}))
`

describe.skipIf(!hasSystemPython || !existsSync(UPSTREAM))('verbs upstream has and Caduceus lacked', () => {
  const on = tmp('cad-more-verbs-on-')
  const off = tmp('cad-more-verbs-off-')
  const nulHome = tmp('cad-more-verbs-nul-')
  const offHomes = OFF.cases.map(() => tmp('cad-more-verbs-off-case-'))
  let providers: Record<string, string | null> = {}

  it('memory setup, status and off print what hermes memory prints; upstream loads the provider Caduceus wrote', async () => {
    const m = G.memory
    for (const h of [on, off]) writeFileSync(join(h, 'config.yaml'), m.start_config)
    const before = await cli(on, 'memory', 'status')
    expect(lines(before.stdout, 5)).toEqual(lines(m.status_before!.stdout, 5))
    expect(await cli(on, 'memory', 'setup', 'holographic')).toMatchObject({ code: 0, stdout: m.setup!.stdout })
    const status = await cli(on, 'memory')
    // header, built-in, provider, then whether it is installed and available (the plugin list is Caduceus's own)
    expect(lines(status.stdout, 9)).toEqual(lines(m.status_after_setup!.stdout, 9))
    expect(await cli(off, 'memory', 'setup', 'holographic')).toMatchObject({ code: 0 })
    expect(await cli(off, 'memory', 'off')).toMatchObject({ code: 0, stdout: m.off!.stdout })
    // the rest of the file is left as it was: comment, model, the other memory key
    expect(readFileSync(join(off, 'config.yaml'), 'utf8')).toContain('# my settings\nmodel:\n  default: some/model')
    expect(readFileSync(join(on, 'config.yaml'), 'utf8')).toContain('memory_char_limit: 3000')
    // `memory off` on the files upstream's own `hermes memory off` rewrote (scripts/golden/memory_off.py): a provider
    // key becomes '' (not removed), a file without one gains none; the rest stays as it was, comments included.
    for (const [i, c] of OFF.cases.entries()) {
      writeFileSync(join(offHomes[i]!, 'config.yaml'), c.start)
      expect(await cli(offHomes[i]!, 'memory', 'off')).toMatchObject({ code: 0 })
    }
    expect(readFileSync(join(offHomes[0]!, 'config.yaml'), 'utf8')).toBe(
      OFF.cases[0]!.start.replace('provider: holographic', 'provider: ""')
    )
    expect(OFF.cases.slice(1).map((c, i) => readFileSync(join(offHomes[i + 1]!, 'config.yaml'), 'utf8'))).toEqual(
      OFF.cases.slice(1).map((c) => c.start)
    )

    const out = execFileSync(
      SYSTEM_PYTHON,
      [
        '-c',
        UPSTREAM_SIDE,
        UPSTREAM,
        join(FIX, 'import-rules/empty.db'),
        join(nulHome, 'state.db'),
        on,
        off,
        ...offHomes
      ],
      { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } }
    )
    const seen = JSON.parse(out) as { providers: Record<string, string | null>; sections: Record<string, unknown> }
    providers = seen.providers
    expect([providers[on], providers[off]]).toEqual([m.setup!.provider, m.off!.provider])
    expect(seen.sections[off]).toEqual({ memory_char_limit: 3000, provider: '' })
    // Upstream reads each file Caduceus wrote as it read its own.
    expect(offHomes.map((h) => [seen.sections[h] ?? null, providers[h]])).toEqual(
      OFF.cases.map((c) => [c.memory_section, c.loaded_provider])
    )
  })

  it('memory setup refuses an unknown provider and one only upstream can run; usage errors exit 2', async () => {
    const h = tmp('cad-more-verbs-refuse-')
    const unknown = await cli(h, 'memory', 'setup', 'nosuch')
    // upstream's line, on stderr with exit 1 here (upstream prints it on stdout and exits 0)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain(lines(G.memory.not_found!.stdout, 2)[1])
    expect(await cli(h, 'memory', 'setup', 'honcho')).toMatchObject({ code: 1 })
    expect(existsSync(join(h, 'config.yaml'))).toBe(false)
    expect((await cli(h, 'memory', 'bogus')).code).toBe(G.memory.bad_verb)
    expect((await cli(h, 'memory', 'reset', '--target', 'x')).code).toBe(G.memory.bad_target)
    expect((await cli(h, 'memory', 'setup')).code).toBe(2) // the picker is not offered: the name is required
  })

  it('memory reset erases the files hermes memory reset erases, with its lines', async () => {
    const h = tmp('cad-more-verbs-reset-')
    const withHome = (s: string) => s.replaceAll('<HOME>', h)
    expect((await cli(h, 'memory', 'reset', '--yes')).stdout).toBe(withHome(G.memory.reset_nothing!.stdout))
    mkdirSync(join(h, 'memories'))
    writeFileSync(join(h, 'memories', 'USER.md'), 'likes okapis\n')
    writeFileSync(join(h, 'memories', 'MEMORY.md'), 'the notes\n')
    const r = await cli(h, 'memory', 'reset', '--yes', '--target', 'user')
    expect(r).toMatchObject({ code: 0, stdout: withHome(G.memory.reset_user!.stdout) })
    expect(['MEMORY.md', 'USER.md'].filter((f) => existsSync(join(h, 'memories', f)))).toEqual(
      G.memory.reset_user!.left
    )
  })

  it("sessions repair --check-only finds healthy the NUL-holding home upstream's check finds healthy", async () => {
    // This SQLite's integrity_check calls upstream's trigram index malformed here (it tokenizes past the NUL).
    const r = await cli(nulHome, 'sessions', 'repair', '--check-only')
    expect(r.stdout).toBe(G.sessions.repair_nul_home.stdout.replaceAll('<HOME>', nulHome))
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('messages_fts_trigram not judged here')
  })

  it("sessions optimize merges and VACUUMs without breaking the index for upstream's SQLite", async () => {
    const r = await cli(nulHome, 'sessions', 'optimize')
    expect(r.code).toBe(0)
    expect(lines(r.stdout, 2)).toEqual(G.sessions.optimize.lines)
    expect(ftsIntegrity(join(nulHome, 'state.db'))).toEqual({ messages_fts: 'ok', messages_fts_trigram: 'ok' })
  })

  it('sessions repair names a broken file and changes nothing (upstream rebuilds the FTS indexes)', async () => {
    const h = tmp('cad-more-verbs-broken-')
    writeFileSync(join(h, 'state.db'), 'not a database, not at all'.repeat(200))
    const r = await cli(h, 'sessions', 'repair')
    expect(r.code).toBe(1)
    expect(r.stdout).toContain(`✗ ${join(h, 'state.db')} does not open cleanly: file is not a database`)
    expect(r.stderr).toContain('hermes sessions repair')
    expect(readFileSync(join(h, 'state.db'), 'utf8')).toBe('not a database, not at all'.repeat(200))
  })
})

describe('cron status and tick', () => {
  it("status prints hermes cron status's summary of upstream's jobs (paused ones left out)", async () => {
    const h = tmp('cad-more-verbs-cron-')
    cpSync(join(FIX, 'cli-more-verbs/home'), h, { recursive: true })
    const r = await cli(h, 'cron', 'status')
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n').filter((l) => /^\s+(\d+ active job|Next run:|No active jobs)/.test(l))).toEqual(
      G.cron_status_summary
    )
    expect(r.stdout).toContain('No upstream gateway is running for default.')
  })

  it('tick runs every due job once (more than the scheduler starts at a time), and finds nothing due right after', async () => {
    const h = tmp('cad-more-verbs-tick-')
    mkdirSync(join(h, 'scripts'))
    writeFileSync(join(h, 'scripts', 'report.sh'), 'echo "disk at 42%"\n')
    mkdirSync(join(h, 'cron'))
    const job = {
      id: 'e1e2e3e4e5e6',
      name: 'report',
      prompt: '',
      script: 'report.sh',
      no_agent: true,
      schedule: { kind: 'interval', minutes: 60, display: 'every 60m' },
      repeat: { times: null, completed: 0 },
      enabled: true,
      state: 'scheduled',
      deliver: 'local',
      next_run_at: '2026-01-01T00:00:00+00:00'
    }
    // Four due (as after a night with the app closed), one of them due again at once (`every 0m`): `hermes cron tick`
    // runs each once; the app's scheduler starts three at a time.
    const ids = ['e1e2e3e4e5e6', 'e1e2e3e4e5e7', 'e1e2e3e4e5e8', 'e1e2e3e4e5e9']
    const jobs = ids.map((id, i) => ({
      ...job,
      id,
      ...(i === 1 ? { schedule: { kind: 'interval', minutes: 0, display: 'every 0m' } } : {})
    }))
    writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify({ jobs }))
    const first = await cli(h, 'cron', 'tick')
    expect(first.code).toBe(0)
    const ran = first.stdout.trim().split('\n')
    expect(ran.map((l) => /^ran (\w+): output .*\/cron\/output\/\1\/.*\.md$/.exec(l)?.[1]).sort()).toEqual(ids)
    const after = (JSON.parse(readFileSync(join(h, 'cron', 'jobs.json'), 'utf8')) as { jobs: Array<typeof job> }).jobs
    for (const [i, j] of after.entries()) {
      expect(j).toMatchObject({ last_status: 'ok' })
      if (i !== 1) expect(Date.parse(j.next_run_at)).toBeGreaterThan(Date.now())
    }
    writeFileSync(join(h, 'cron', 'jobs.json'), JSON.stringify({ jobs: after.filter((_, i) => i !== 1) }))
    expect(await cli(h, 'cron', 'tick')).toMatchObject({ code: 0, stdout: 'No jobs due.\n' })
  })
})

describe('usage errors exit 2, as argparse', () => {
  it("a count argparse refuses exits 2; a count it takes (0, negative: forever) is stored as upstream's", async () => {
    const h = tmp('cad-more-verbs-usage-')
    for (const [argv, code] of Object.entries(G.usage.codes)) {
      const words = argv.replace('every 1h', 'every_1h').split(' ')
      const r = await cli(h, ...words.map((w) => w.replace('every_1h', 'every 1h')))
      expect({ argv, code: r.code }).toEqual({ argv, code })
    }
    for (const n of Object.keys(G.usage.repeats))
      expect((await cli(h, 'cron', 'create', 'every 1h', `repeat ${n}`, '--repeat', n)).code).toBe(0)
    const jobs = (
      JSON.parse(readFileSync(join(h, 'cron', 'jobs.json'), 'utf8')) as { jobs: Array<Record<string, unknown>> }
    ).jobs
    expect(Object.fromEntries(jobs.map((j) => [String(j.prompt).split(' ')[1], j.repeat]))).toEqual(G.usage.repeats)
    // a command's flag with no command: one line naming who takes it, nothing run (upstream: unrecognized arguments)
    const alone = await cli(h, '--dry-run')
    expect([alone.stdout, alone.stderr.trimEnd().split('\n')]).toEqual([
      '',
      [
        'caduceus: --dry-run needs a command (sessions export, sessions prune, sessions archive take it); see caduceus --help'
      ]
    ])
    // the app's own argv with no command still prints the usage (npm start and Electron pass these)
    expect(await cli(h, '--demo', '--port', '0', '--limit', '5')).toMatchObject({ code: 0, stderr: '' })
  })

  it("a flag the command does not take (another command's, a typo): exit 2 as upstream's argparse, one line naming it and the command, nothing run", async () => {
    const h = tmp('cad-more-verbs-foreign-')
    for (const [text, up] of Object.entries(FOREIGN.cases)) {
      const argv = text.split(' ').map((w) => w.replace('every_1h', 'every 1h'))
      const r = await cli(h, ...argv)
      const lines = r.stderr.trimEnd().split('\n')
      expect({ text, code: r.code, stdout: r.stdout, lines: lines.length }).toEqual({
        text,
        code: up.code,
        stdout: up.stdout,
        lines: 1
      })
      // the flag upstream names (its value, when it takes one, is read as upstream cannot) and the command it was on
      const command = argv
        .filter((w) => !w.startsWith('-'))
        .slice(0, 2)
        .join(' ')
      expect(lines[0]).toContain(`caduceus: ${command} does not take ${up.refused[0]}`)
    }
    // nothing was made: no state.db, no cron jobs, no export file
    expect(readdirSync(h)).toEqual([])
    expect(existsSync(join(repo, '5m'))).toBe(false)
  })

  it("upstream's verbs and flags Caduceus does not have: one line naming what to use instead, exit 2, nothing done", async () => {
    const h = tmp('cad-more-verbs-upstream-flags-')
    const oneLine = async (argv: string[], says: RegExp) => {
      const r = await cli(h, ...argv)
      expect({ argv, code: r.code, stdout: r.stdout, lines: r.stderr.trimEnd().split('\n').length }).toEqual({
        argv,
        code: 2,
        stdout: '',
        lines: 1
      })
      expect(r.stderr).toMatch(says)
    }
    // `hermes cron edit`'s own skill and mode flags, which upstream's create parser refuses (edit takes them:
    // cli-cron-upstream-flags)
    for (const flag of ['--add-skill=x', '--remove-skill=x', '--clear-skills', '--agent'])
      await oneLine(
        ['cron', 'create', 'every 1h', 'hi', flag],
        /cron create does not take --[a-z-]+ \(cron edit does\)/
      )
    expect(existsSync(join(h, 'cron'))).toBe(false)
    await oneLine(['profile', 'list'], /--profile NAME .*hermes profile/)
    await oneLine(['sessions', 'browse'], /caduceus sessions list or sessions search/)
    // upstream's approval of shell hooks: nothing to approve here, so it is taken
    expect(await cli(h, 'cron', 'tick', '--accept-hooks')).toMatchObject({ code: 0, stdout: 'No jobs due.\n' })
    // --json where a verb prints no JSON: refused, rather than text a script would fail to parse
    for (const argv of [['memory', 'status'], ['sessions', 'optimize'], ['sessions', 'export', 'out.jsonl'], ['logs']])
      await oneLine([...argv, '--json'], new RegExp(`^caduceus: ${argv.slice(0, 2).join(' ')} has no --json output`))
    // a flag's value out of the request's range: named, exit 2 (was the request's field and exit 1)
    await oneLine(['sessions', 'search', 'heater', '--limit', '500'], /^caduceus: --limit: Too big: .*<=200/)
    const version = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version as string
    for (const v of ['--version', '-V', 'version'])
      expect(await cli(h, v)).toEqual({ code: 0, stdout: `caduceus ${version}\n`, stderr: '' })
    const typo = await cli(h, 'sesions', 'list')
    expect([typo.code, typo.stderr.split('\n')[0]]).toEqual([2, "caduceus: unknown command 'sesions'"])
  })
})

describe('a home that cannot be one', () => {
  it('a file given as the home is named as such in one line, exit 1, for every command', async () => {
    const file = join(tmp('cad-more-verbs-file-home-'), 'state.db')
    writeFileSync(file, '')
    for (const argv of [['sessions', 'list'], ['sessions', 'stats'], ['cron', 'list'], ['memory']]) {
      const r = await cli(file, ...argv)
      expect({ argv, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        argv,
        code: 1,
        stdout: '',
        stderr: `caduceus: the home ${file} (--home) is a file, not a folder\n`
      })
    }
    const oneShot = await cli(file, '-z', 'hello')
    expect([oneShot.code, oneShot.stderr]).toEqual([
      1,
      `caduceus run: the home ${file} (--home) is a file, not a folder\n`
    ])
  })
})

// `caduceus memory pending|approve|reject` on records upstream's own memory tool staged
// (test/fixtures/upstream/memory-write-approval/approve.json, scripts/golden/memory_write_approval.py)
describe('caduceus memory pending / approve / reject', () => {
  const decided = JSON.parse(readFileSync(join(FIX, 'memory-write-approval/approve.json'), 'utf8')) as {
    start: string
    cases: Array<{ name: string; record: { id: string }; files: Record<string, string | null> }>
  }
  const rec = (name: string) => decided.cases.find((c) => c.name === name)!

  it('lists the staged writes, applies them as upstream applies them, keeps a refused one, drops on reject', async () => {
    const h = tmp('cad-memory-pending-')
    mkdirSync(join(h, 'memories'))
    writeFileSync(join(h, 'memories', 'MEMORY.md'), decided.start)
    writeFileSync(join(h, 'config.yaml'), 'memory:\n  write_approval: true\n')
    const dir = join(h, 'pending', 'memory')
    mkdirSync(dir, { recursive: true })
    const add = rec('approve add')
    const noMatch = rec('approve replace no match')
    for (const c of [add, noMatch]) writeFileSync(join(dir, `${c.record.id}.json`), JSON.stringify(c.record))
    const listed = await cli(h, 'memory', 'pending')
    expect(listed).toMatchObject({ code: 0 })
    expect(listed.stdout).toContain(`${add.record.id}  add to memory: User prefers metric units.`)
    expect(listed.stdout).toContain(noMatch.record.id)
    // `all`: the add lands, the replace matching no entry is refused and stays staged
    const all = await cli(h, 'memory', 'approve', 'all')
    expect(all).toMatchObject({ code: 1, stdout: `Applied staged memory write ${add.record.id}.\n` })
    expect(all.stderr).toContain(`${noMatch.record.id}: `)
    expect(readFileSync(join(h, 'memories', 'MEMORY.md'), 'utf8')).toBe(add.files['MEMORY.md'])
    expect(readdirSync(dir)).toEqual([`${noMatch.record.id}.json`])
    expect(await cli(h, 'memory', 'approve')).toMatchObject({ code: 2 })
    expect(await cli(h, 'memory', 'reject', noMatch.record.id)).toMatchObject({ code: 0 })
    expect(readdirSync(dir)).toEqual([])
    expect(await cli(h, 'memory', 'pending')).toMatchObject({
      code: 0,
      stdout: 'No memory writes wait for approval.\n'
    })
    expect(readFileSync(join(h, 'memories', 'MEMORY.md'), 'utf8')).toBe(add.files['MEMORY.md'])
  })
})
