// `caduceus sessions stats|rename|delete|prune|archive` against upstream's own `hermes sessions …` on homes
// upstream wrote (scripts/golden/sessions_verbs.py → test/fixtures/upstream/sessions-verbs/verbs.json), through the
// CLI's own code (runCli in this process; one failure through the built CLI in a process of its own, its exit code and
// streams as a script sees them): the same lines printed, the same titles and rows left in state.db. Where upstream prints a
// failure on stdout and exits 0, Caduceus prints it on stderr and exits 1 (a script can tell it failed).
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { SessionStore } from '../src-main/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliInProcess } from './helpers/cli-in-process'

const exec = promisify(execFile)
const repo = resolve(import.meta.dirname, '..')
const fix = join(repo, 'test/fixtures/upstream')
const G = JSON.parse(readFileSync(join(fix, 'sessions-verbs/verbs.json'), 'utf8')) as {
  homes: Record<
    string,
    {
      stats: string[]
      renames?: Array<{ argv: string[]; code: number; printed: string }>
      titles?: Record<string, string | null>
    }
  >
  changes: Array<{ argv: string[]; printed: string; ids: string[]; archived: string[] }>
  workspaces: Array<{ argv: string[]; ids: string[] }>
  repo_root: [string, string]
  stats_without_db: { code: number; printed: string }
  stats_quarter_mb: { bytes: number; printed: string }
}
const SRC: Record<string, string> = {
  fidelity: join(fix, 'fidelity/home'),
  'v21-two-profiles': join(fix, 'v21-two-profiles'),
  'nous-v31': join(fix, 'nous-v31')
}
const made: string[] = []
beforeAll(() => {
  // the environment `cli` gives its child, for the runs in this process (test/support/fresh-file.ts restores it)
  const logs = mkdtempSync(join(tmpdir(), 'cad-verbs-logs-'))
  made.push(logs)
  process.env.CADUCEUS_LOG_DIR = logs
  process.env.HERMES_HOME = ''
})
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})
const copy = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'cad-verbs-'))
  made.push(dir)
  cpSync(SRC[name]!, dir, { recursive: true })
  return dir
}

/** `caduceus sessions …` through runCli in this process: one at a time (it catches the console while it runs). */
const inProcess = cliInProcess

/** The built CLI as a script runs it: its own process, exit code and streams. */
async function cli(dir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['bin/caduceus.mjs', ...args, '--home', dir], {
      cwd: repo,
      env: { ...process.env, CADUCEUS_LOG_DIR: join(dir, 'logs'), HERMES_HOME: '' }
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

describe('sessions stats and rename, as hermes sessions stats|rename', { timeout: 120_000 }, () => {
  for (const name of Object.keys(G.homes)) {
    it(`stats on the ${name} home prints upstream's numbers`, async () => {
      const dir = copy(name)
      const r = await inProcess(dir, 'sessions', 'stats')
      const asJson = await inProcess(dir, 'sessions', 'stats', '--json')
      expect(r.code).toBe(0)
      const lines = r.stdout.trimEnd().split('\n')
      expect(lines.filter((l) => !l.startsWith('Database size:'))).toEqual(G.homes[name]!.stats)
      expect(lines.at(-1)).toMatch(/^Database size: \d+\.\d MB$/)
      const json = JSON.parse(asJson.stdout) as { sessions: number }
      expect(`Total sessions: ${json.sessions}`).toBe(G.homes[name]!.stats[0])
    })
  }

  it("stats on a home without state.db prints upstream's every line, its size line too, and creates no file; a 0.25 MB file's size as upstream rounds it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-verbs-nodb-'))
    made.push(dir)
    const r = await inProcess(dir, 'sessions', 'stats')
    expect([r.code, r.stdout]).toEqual([G.stats_without_db.code, G.stats_without_db.printed])
    expect(existsSync(join(dir, 'state.db'))).toBe(false)
    // a file of 64 pages of 4 KiB is 0.25 MB: Python's format rounds the tie to the even digit (0.2; toFixed: 0.3)
    new SessionStore(join(dir, 'state.db')).close()
    const db = new Database(join(dir, 'state.db'))
    db.exec('CREATE TABLE filler (x BLOB)')
    while (db.pragma('page_count', { simple: true }) !== 64) db.exec('INSERT INTO filler VALUES (zeroblob(100))')
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
    expect(statSync(join(dir, 'state.db')).size).toBe(G.stats_quarter_mb.bytes)
    expect((await inProcess(dir, 'sessions', 'stats')).stdout).toBe(G.stats_quarter_mb.printed)
  })

  it('rename while another program holds the write lock: one line naming the lock, not a bad title; at a terminal a note while it waits', async () => {
    const dir = copy('fidelity')
    const holder = new Database(join(dir, 'state.db'))
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY')
    const locked = /^caduceus: The session database of profile 'default' is locked by another program/
    try {
      holder.exec('BEGIN EXCLUSIVE')
      process.env.CADUCEUS_WRITE_RETRY_SECONDS = '0.2'
      const script = await inProcess(dir, 'sessions', 'rename', 'live-old', 'a new title')
      expect([script.code, script.stdout, script.stderr.trimEnd().split('\n').length]).toEqual([1, '', 1])
      expect(script.stderr).toMatch(locked)
      // a person at a terminal is told why nothing happens before the store gives up
      process.env.CADUCEUS_WRITE_RETRY_SECONDS = '0.9'
      Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true })
      const person = await inProcess(dir, 'sessions', 'rename', 'live-old', 'a new title')
      const [note, error, ...rest] = person.stderr.trimEnd().split('\n')
      expect([person.code, note, rest]).toEqual([
        1,
        "caduceus: state.db of profile 'default' is locked by another program; waiting for it (up to 1 s)…",
        []
      ])
      expect(error).toMatch(locked)
    } finally {
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty)
      else delete (process.stderr as { isTTY?: boolean }).isTTY
      delete process.env.CADUCEUS_WRITE_RETRY_SECONDS
      holder.close()
    }
  })

  it('rename resolves a prefix, joins the words, refuses a held title and leaves the titles upstream leaves', async () => {
    const g = G.homes.fidelity!
    const dir = copy('fidelity')
    // the first failing rename also through the built CLI's own process: exit 1, nothing on stdout, the reason on stderr
    const failing = g.renames!.find((c) => /not found|^Error: /.test(c.printed))!
    const alone = await cli(copy('fidelity'), 'sessions', 'rename', ...failing.argv)
    expect([alone.code, alone.stdout]).toEqual([1, ''])
    expect(alone.stderr).toContain(failing.printed.replace(/^Error: /, '').trim())
    for (const c of g.renames!) {
      const r = await inProcess(dir, 'sessions', 'rename', ...c.argv)
      const failed = /not found|^Error: /.test(c.printed)
      expect({ argv: c.argv, code: r.code }).toEqual({ argv: c.argv, code: failed ? 1 : 0 })
      if (failed) {
        expect(r.stdout).toBe('')
        expect(r.stderr).toContain(c.printed.replace(/^Error: /, '').trim())
      } else expect(r.stdout).toBe(c.printed)
    }
    const db = new Database(join(dir, 'state.db'), { readonly: true })
    try {
      const rows = db.prepare('SELECT id, title FROM sessions ORDER BY id').all() as Array<{
        id: string
        title: string
      }>
      expect(Object.fromEntries(rows.map((r) => [r.id, r.title]))).toEqual(g.titles)
    } finally {
      db.close()
    }
  })

  for (const c of G.changes) {
    it(`${c.argv.join(' ')} --yes prints upstream's line and leaves upstream's rows`, async () => {
      const dir = copy('fidelity')
      const r = await inProcess(dir, 'sessions', ...c.argv, '--yes')
      if (/not found/.test(c.printed)) {
        expect([r.code, r.stdout]).toEqual([1, ''])
        expect(r.stderr).toContain(c.printed.trim())
      } else if (c.printed.startsWith('No sessions match')) {
        // the same start; upstream names the filters after it, Caduceus says nothing was deleted
        expect(r.code).toBe(0)
        expect(r.stdout).toMatch(/^No sessions match\b/)
      } else {
        expect(r.code).toBe(0)
        // archive's words after the count are Caduceus's own; the count's sentence is upstream's
        const first = (t: string) => (c.argv[0] === 'archive' ? t.split('. ')[0] : t)
        expect(first(r.stdout)).toBe(first(c.printed))
      }
      const db = new Database(join(dir, 'state.db'), { readonly: true })
      try {
        const ids = (where: string) =>
          db.prepare(`SELECT id FROM sessions WHERE ${where} ORDER BY id`).pluck().all() as string[]
        expect(ids('1')).toEqual(c.ids)
        expect(ids('archived = 1')).toEqual(c.archived)
      } finally {
        db.close()
      }
    })
  }

  it('sessions list shows 20 rows unless --limit, and a bare `sessions` is help, as hermes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-verbs-'))
    made.push(dir)
    const store = new SessionStore(join(dir, 'state.db'))
    for (let i = 0; i < 25; i++) {
      const id = `s${String(i).padStart(2, '0')}`
      await store.createSession(id, 'cli')
      await store.appendMessage(id, { role: 'user', content: `question ${i}`, timestamp: 1_700_000_000 + i })
    }
    store.close()
    const count = async (...flags: string[]) =>
      (JSON.parse((await inProcess(dir, 'sessions', 'list', '--json', ...flags)).stdout) as { items: unknown[] }).items
        .length
    const all = await count()
    const limited = await count('--limit', '25')
    const none = await count('--limit', '0')
    const unbounded = await count('--limit', '-1')
    const bare = await inProcess(dir, 'sessions')
    expect(all).toBe(20)
    expect(limited).toBe(25)
    // as upstream's SQL LIMIT: 0 lists nothing, a negative number everything
    expect(none).toBe(0)
    expect(unbounded).toBe(25)
    expect([bare.code, bare.stdout.includes('caduceus sessions list')]).toEqual([0, true])
  })

  it("sessions list --workspace lists the rows upstream's lists (git repo root, else cwd; after --limit)", async () => {
    const dir = copy('nous-v31')
    const db = new Database(join(dir, 'state.db'))
    db.prepare('UPDATE sessions SET git_repo_root = ? WHERE id = ?').run(G.repo_root[1], G.repo_root[0])
    db.close()
    // upstream's list is the home's own profile: the root's
    const answers: Array<{ code: number; stdout: string }> = []
    for (const c of G.workspaces)
      answers.push(await inProcess(dir, 'sessions', 'list', ...c.argv, '--profile', 'default', '--json'))
    for (const [i, c] of G.workspaces.entries()) {
      const r = answers[i]!
      expect({ argv: c.argv, code: r.code }).toEqual({ argv: c.argv, code: 0 })
      const ids = (JSON.parse(r.stdout) as { items: Array<{ id: string }> }).items.map((i) => i.id)
      expect({ argv: c.argv, ids }).toEqual({ argv: c.argv, ids: c.ids })
    }
  })

  it('sessions list --limit past one page reads every page (upstream has no page bound)', async () => {
    const dir = copy('nous-v31')
    const db = new Database(join(dir, 'state.db'))
    const before = db.prepare('SELECT count(*) FROM sessions').pluck().get() as number
    const add = db.prepare("INSERT INTO sessions (id, source, started_at) VALUES (?, 'cli', ?)")
    db.transaction(() => {
      for (let i = 0; i < 520; i++) add.run(`bulk-${String(i).padStart(3, '0')}`, 1_600_000_000 + i)
    })()
    db.close()
    const count = async (...flags: string[]) => {
      const r = await inProcess(dir, 'sessions', 'list', '--profile', 'default', '--json', ...flags)
      const ids = (JSON.parse(r.stdout) as { items: Array<{ id: string }> }).items.map((i) => i.id)
      expect(new Set(ids).size).toBe(ids.length)
      return ids.length
    }
    const bounded = await count('--limit', '510')
    const unbounded = await count('--limit', '-1')
    expect(bounded).toBe(510)
    expect(unbounded).toBeGreaterThanOrEqual(520)
    expect(unbounded).toBeLessThanOrEqual(before + 520)
  })
})
