// `caduceus cron list [--all]` and `cron add` as upstream's `hermes cron` takes them, through the built CLI on the
// jobs.json upstream's own CLI wrote (scripts/golden/cron_list_all.py → test/fixtures/upstream/cron-list-all): a
// paused or finished job is listed only with --all, `cron` alone lists, `add` is `create`, `rm` and `delete` are
// `remove`, and each command's first line is upstream's (a script reads the job id from `Created job: ID`).
// The commands run through runCli in this process (test/helpers/cli-in-process.ts); the built binary's own process
// reaching `cron` (exit code, streams) is test/cli-run.test.ts's.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliInProcess } from './helpers/cli-in-process'

const repo = resolve(import.meta.dirname, '..')
const gold = join(repo, 'test/fixtures/upstream/cron-list-all')
const G = JSON.parse(readFileSync(join(gold, 'listed.json'), 'utf8')) as {
  jobs: { every: string; paused: string; finished: string }
  listed: { default: string[]; all: string[]; bare: string[] }
  printed: Record<'create' | 'pause' | 'resume' | 'remove' | 'rm', string>
  delivers: Array<{ argv: string[]; deliver: string | null }>
}
const made: string[] = []
beforeAll(() => {
  // what a child got in its environment (test/support/fresh-file.ts restores it for the next file)
  const logs = mkdtempSync(join(tmpdir(), 'cad-cron-flags-logs-'))
  made.push(logs)
  Object.assign(process.env, { CADUCEUS_LOG_DIR: logs, HERMES_HOME: '', TZ: 'UTC' })
})
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})
const home = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cad-cron-flags-'))
  made.push(dir)
  cpSync(join(gold, 'home'), dir, { recursive: true })
  return dir
}

const cli = cliInProcess

const ids = (r: { stdout: string }) => (JSON.parse(r.stdout) as { jobs: Array<{ id: string }> }).jobs.map((j) => j.id)

describe('cron list --all and cron add, as hermes cron', { timeout: 120_000 }, () => {
  it('lists the jobs upstream lists, with and without --all (text and --json)', async () => {
    const dir = home()
    const plain = await cli(dir, 'cron', 'list', '--json')
    const all = await cli(dir, 'cron', 'list', '--all', '--json')
    expect([plain.code, all.code]).toEqual([0, 0])
    expect(ids(plain).sort()).toEqual([...G.listed.default].sort())
    expect(ids(all).sort()).toEqual([...G.listed.all].sort())
    const text = await cli(dir, 'cron', 'list')
    expect(
      text.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[0])
        .sort()
    ).toEqual([...G.listed.default].sort())
  })

  it('cron add creates a job as cron create does', async () => {
    const dir = home()
    const r = await cli(dir, 'cron', 'add', 'every 3h', 'water the plants', '--name', 'plants', '--json')
    expect(r.code).toBe(0)
    const job = JSON.parse(r.stdout) as { id: string; name: string; schedule_display: string }
    expect(job).toMatchObject({ name: 'plants', schedule_display: 'every 180m' })
    expect(ids(await cli(dir, 'cron', 'list', '--json'))).toContain(job.id)
  })

  it("cron alone lists, and create, pause, resume, rm and delete print upstream's first line", async () => {
    const dir = home()
    const bare = await cli(dir, 'cron', '--json')
    expect(ids(bare).sort()).toEqual([...G.listed.bare].sort())
    const first = (t: string) => t.split('\n')[0]
    const created = await cli(dir, 'cron', 'create', 'every 2h', 'check the inbox', '--name', 'fresh')
    expect(first(created.stdout)).toMatch(/^Created job: [0-9a-f]{12}$/)
    expect(first(G.printed.create)).toMatch(/^Created job: [0-9a-f]{12}$/)
    const fresh = first(created.stdout).split(': ')[1]!
    expect(ids(await cli(dir, 'cron', 'list', '--json'))).toContain(fresh)
    // the paused job by name, then by id, as the golden's commands named them
    expect(first((await cli(dir, 'cron', 'resume', G.jobs.paused)).stdout)).toBe(first(G.printed.resume))
    expect(first((await cli(dir, 'cron', 'pause', 'paused')).stdout)).toBe(first(G.printed.pause))
    expect((await cli(dir, 'cron', 'remove', 'every')).stdout).toBe(G.printed.remove)
    expect((await cli(dir, 'cron', 'rm', G.jobs.paused)).stdout).toBe(G.printed.rm)
    const del = await cli(dir, 'cron', 'delete', fresh)
    expect([del.code, del.stdout]).toEqual([0, `Removed job: fresh (${fresh})\n`])
    expect(ids(await cli(dir, 'cron', 'list', '--all', '--json'))).toEqual([G.jobs.finished])
  })

  it('cron create|edit --deliver store what upstream stores', async () => {
    const dir = home()
    for (const c of G.delivers) {
      const r = await cli(dir, 'cron', ...c.argv)
      expect({ argv: c.argv, code: r.code }).toEqual({ argv: c.argv, code: 0 })
      const jobs = (
        JSON.parse(readFileSync(join(dir, 'cron/jobs.json'), 'utf8')) as { jobs: Array<Record<string, unknown>> }
      ).jobs
      expect({ argv: c.argv, deliver: jobs.find((j) => j.name === 'dl')?.deliver }).toEqual({
        argv: c.argv,
        deliver: c.deliver
      })
    }
  })

  // scripts/golden/cron_repeat.py: upstream's `hermes cron list` says `Repeat: 1/3` for a job limited to three runs
  // with one run, `0/1` for a one-shot, `∞` for no limit; the list here and the Cron page (cronRepeatText) showed none
  it("shows a job's run limit as upstream's list does", async () => {
    const gold = join(repo, 'test/fixtures/upstream/cron-repeat')
    const R = JSON.parse(readFileSync(join(gold, 'listed.json'), 'utf8')) as {
      jobs: Record<'forever' | 'three' | 'once', string>
      repeat: Record<'forever' | 'three' | 'once', string>
    }
    const dir = mkdtempSync(join(tmpdir(), 'cad-cron-repeat-'))
    made.push(dir)
    cpSync(join(gold, 'home'), dir, { recursive: true })
    const text = (await cli(dir, 'cron', 'list')).stdout
    for (const [name, id] of Object.entries(R.jobs) as Array<['forever' | 'three' | 'once', string]>) {
      const row = text.split('\n').find((l) => l.startsWith(id))!
      const upstream = R.repeat[name]
      if (upstream === '\u221e') expect(row).not.toContain('repeat')
      else expect(row).toMatch(new RegExp(`  repeat ${upstream}$`))
    }
    expect(R.repeat.three).toBe('1/3')
  })

  // scripts/golden/cron_no_prompt.py: `hermes cron create` makes a skill-only job and a no-agent script watchdog with
  // an empty prompt, and its list names each job's skills, script, mode and folder; the list here named none of them
  // (a watchdog read as a job with nothing to do), and clearing the prompt of a job with skills was refused
  it('shows what a prompt-less upstream job runs, and edits it as hermes cron edit does', async () => {
    const gold = join(repo, 'test/fixtures/upstream/cron-no-prompt')
    type Name = 'skill-only' | 'watchdog' | 'both'
    type Stored = { name: string; prompt: string; skills: string[] }
    const N = JSON.parse(readFileSync(join(gold, 'listed.json'), 'utf8')) as {
      jobs: Record<Name, string>
      details: Record<Name, Partial<Record<'Skills' | 'Script' | 'Mode' | 'Workdir', string>>>
      renamed: Record<'skill-only' | 'watchdog', Stored>
      cleared: Record<'both', Stored>
    }
    const dir = mkdtempSync(join(tmpdir(), 'cad-cron-noprompt-'))
    made.push(dir)
    cpSync(join(gold, 'home'), dir, { recursive: true })
    const text = (await cli(dir, 'cron', 'list')).stdout
    for (const [name, id] of Object.entries(N.jobs) as Array<[Name, string]>) {
      const row = text.split('\n').find((l) => l.startsWith(id))!
      const up = N.details[name]
      const runs = [
        up.Skills && `skills ${up.Skills}`,
        up.Script && `script ${up.Script}${up.Mode?.startsWith('no-agent') ? ' (no agent)' : ''}`,
        up.Workdir && `workdir ${up.Workdir}`
      ].filter(Boolean)
      expect(row.endsWith(`  ${runs.join('  ')}`), `${name}: ${row}`).toBe(true)
    }
    const stored = (name: Name): Stored => {
      const jobs = JSON.parse(readFileSync(join(dir, 'cron', 'jobs.json'), 'utf8')).jobs as Array<
        { id: string } & Stored
      >
      const { name: n, prompt, skills } = jobs.find((j) => j.id === N.jobs[name])!
      return { name: n, prompt, skills }
    }
    for (const name of ['skill-only', 'watchdog'] as const) {
      expect((await cli(dir, 'cron', 'edit', N.jobs[name], '--name', `${name} renamed`)).code).toBe(0)
      expect(stored(name)).toEqual(N.renamed[name])
    }
    expect((await cli(dir, 'cron', 'edit', N.jobs.both, '--prompt', '')).code).toBe(0)
    expect(stored('both')).toEqual(N.cleared.both)
  })
})

// `cron create --skill (repeated) --script --no-agent --workdir`, line for line as upstream's own `hermes cron create`
// took or refused them (scripts/golden/cron_create_flags.py → test/fixtures/upstream/cron-create-flags): the same lines
// accepted, the same refused, and jobs.json holding the same fields upstream's create wrote.
describe('cron create with upstream’s job flags', () => {
  const F = JSON.parse(readFileSync(join(repo, 'test/fixtures/upstream/cron-create-flags/cases.json'), 'utf8')) as {
    cases: Array<{ name: string; argv: string[]; refused: boolean; job?: Record<string, unknown> }>
  }
  it.each(F.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const tmp = mkdtempSync(join(tmpdir(), 'cad-cron-create-flags-'))
    made.push(tmp)
    const h = join(tmp, 'home')
    mkdirSync(join(h, 'scripts'), { recursive: true })
    writeFileSync(join(h, 'scripts', 'watch.sh'), 'echo ok\n')
    mkdirSync(join(tmp, 'work'))
    writeFileSync(join(tmp, 'notes.txt'), 'x')
    const argv = c.argv.map((a) => a.replace('<DIR>', join(tmp, 'work')).replace('<FILE>', join(tmp, 'notes.txt')))
    const r = await cli(h, 'cron', 'create', ...argv)
    const file = join(h, 'cron', 'jobs.json')
    const jobs = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as { jobs: Record<string, unknown>[] }).jobs
      : []
    if (c.refused) {
      expect({ code: r.code, jobs }).toEqual({ code: 1, jobs: [] })
      expect(r.stderr).toMatch(/^caduceus cron: /)
      return
    }
    expect(r.code).toBe(0)
    const job = jobs[0]!
    const got = Object.fromEntries(Object.keys(c.job!).map((k) => [k, job[k]]))
    if (typeof got.workdir === 'string') got.workdir = got.workdir.replace(join(tmp, 'work'), '<DIR>')
    expect(got).toEqual(c.job)
  })
})

// `cron edit --skill --add-skill --remove-skill --clear-skills --agent --no-agent --script --workdir`, case for case as
// upstream's own `hermes cron edit` edited the same jobs.json (scripts/golden/cron_edit_skills.py →
// test/fixtures/upstream/cron-edit): the same edits refused, and the edited job holding what upstream's edit wrote —
// every field, in the file's order (a legacy `skill` job gains `skills` after its own fields, as upstream's does).
// These flags were refused before ("set it with hermes cron edit").
describe('cron edit with upstream’s skill and mode flags', () => {
  const gold = join(repo, 'test/fixtures/upstream/cron-edit')
  const E = JSON.parse(readFileSync(join(gold, 'cases.json'), 'utf8')) as {
    jobs: Record<string, string>
    cases: Array<{ name: string; job: string; argv: string[]; refused: boolean; after?: Record<string, unknown> }>
  }
  it.each(E.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const tmp = mkdtempSync(join(tmpdir(), 'cad-cron-edit-'))
    made.push(tmp)
    const h = join(tmp, 'home')
    cpSync(join(gold, 'home'), h, { recursive: true })
    mkdirSync(join(tmp, 'work'))
    const file = join(h, 'cron', 'jobs.json')
    const before = readFileSync(file, 'utf8')
    const r = await cli(h, 'cron', 'edit', E.jobs[c.job]!, ...c.argv.map((a) => a.replace('<DIR>', join(tmp, 'work'))))
    if (c.refused) {
      expect({ code: r.code, unchanged: readFileSync(file, 'utf8') === before }).toEqual({ code: 1, unchanged: true })
      expect(r.stderr).toMatch(/^caduceus cron: /)
      return
    }
    expect([r.code, r.stderr]).toEqual([0, ''])
    const jobs = (JSON.parse(readFileSync(file, 'utf8')) as { jobs: Array<Record<string, unknown>> }).jobs
    const job = JSON.parse(
      JSON.stringify(jobs.find((j) => j.id === E.jobs[c.job])).replaceAll(join(tmp, 'work'), '<DIR>')
    )
    expect(Object.keys(job)).toEqual(Object.keys(c.after!))
    expect(job).toEqual(c.after)
    // the other jobs as they were
    const others = (JSON.parse(before) as { jobs: Array<{ id: string }> }).jobs.filter((j) => j.id !== E.jobs[c.job])
    expect(jobs.filter((j) => j.id !== E.jobs[c.job])).toEqual(others)
  })
})
