/**
 * A home this user may read but not write, that no program holds open (another user's home on a shared machine, a
 * backup on a read-only mount): SQLite cannot read its WAL file in place (no -shm, none can be made), and upstream's
 * own code fails there too. Caduceus reads a private copy, follows the original as its owner writes, and refuses
 * changes saying why — through the CLI and a real `caduceus serve`, run as another user than the home's owner (as
 * root: uid 65534; otherwise the home's folders are made read-only).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { repo } from './support/serve'
import { SYSTEM_PYTHON } from './support/fts-integrity'
import { dropCopy, refreshCopy, sourcePrint } from '../src-main/store/read-copy'
import { CopyPending, CopyRefresh } from '../src-main/store/read-copy-refresh'

const FIXTURE = join(repo, 'test/fixtures/upstream/fidelity/home') // written by upstream's own code
const asRoot = process.getuid?.() === 0
const OTHER = 65534
const base = mkdtempSync(join(tmpdir(), 'cad-ro-home-'))
chmodSync(base, 0o777) // the other user's HOME, logs and data go here too
const home = join(base, 'home')
cpSync(FIXTURE, home, { recursive: true })
mkdirSync(join(home, 'memories'))
writeFileSync(join(home, 'memories/MEMORY.md'), 'the owner wrote this')
execFileSync('chmod', ['-R', 'a+rX', home])
const dirs = [home, join(home, 'profiles'), join(home, 'profiles/work'), join(home, 'memories')]
if (!asRoot) for (const d of dirs) chmodSync(d, 0o555)
afterAll(() => {
  for (const d of dirs) chmodSync(d, 0o755)
  rmSync(base, { recursive: true, force: true })
})

const env = {
  ...process.env,
  HOME: base,
  HERMES_HOME: '',
  CADUCEUS_LOG_DIR: join(base, 'logs'),
  CADUCEUS_DATA_DIR: join(base, 'data'),
  TMPDIR: base
}
const asOther = asRoot ? { uid: OTHER, gid: OTHER } : {}
const cli = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['bin/caduceus.mjs', ...args, '--home', home], {
    cwd: repo,
    env,
    encoding: 'utf8',
    ...asOther
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}
const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex')
const copiesLeft = () =>
  readdirSync(base)
    .filter((n) => n.startsWith('caduceus-read-copy-'))
    .flatMap((n) => readdirSync(join(base, n)))

describe('a home this user can read but not write', () => {
  it('the CLI lists, searches and shows it; a change is refused saying why; the file is untouched, no copy left', () => {
    const db = join(home, 'state.db')
    const before = sha(db)
    const list = cli('sessions', 'list', '--profile', 'default', '--json', '--limit', '100')
    expect(list.code, list.stderr).toBe(0)
    const ids = (JSON.parse(list.stdout) as { items: Array<{ id: string }> }).items.map((r) => r.id)
    // what the file holds, read by the system's SQLite as the owner
    const owner = execFileSync('sqlite3', [db, 'SELECT id FROM sessions'], { encoding: 'utf8' }).trim().split('\n')
    expect(ids.length).toBeGreaterThan(10)
    expect(owner).toEqual(expect.arrayContaining(ids))
    expect(list.stderr).toMatch(/profile default: Read-only: its folder is not writable/)
    expect(cli('sessions', 'search', 'heater', '--json').stdout).toContain('old-parent')

    const rename = cli('sessions', 'rename', 'ancient', 'renamed')
    expect(rename.code).toBe(1)
    // a refusal is its message after the command's name, as every other one the CLI prints (no request code)
    expect(rename.stderr).toMatch(
      /^caduceus: \S+\/state\.db cannot be changed: its folder is not writable by .* \(Caduceus reads it from a copy/m
    )
    expect(sha(db)).toBe(before)
    expect(existsSync(`${db}-shm`) || existsSync(`${db}-wal`)).toBe(false)
    expect(copiesLeft()).toEqual([])

    // the home's other files: what cannot be changed and why, not the EACCES of the step that failed first
    const cron = cli('cron', 'add', 'every 1h', 'hello')
    expect(cron.code).toBe(1)
    expect(cron.stderr).toMatch(/cron\/jobs\.json cannot be changed: .*\/home is not writable by /)
    expect(cron.stderr).not.toMatch(/EACCES|EPERM/)
    const memory = cli('memory', 'reset', '--target', 'memory', '--yes')
    expect(memory.stderr).toMatch(/MEMORY\.md cannot be changed: .*\/memories is not writable by /)
    expect(readFileSync(join(home, 'memories/MEMORY.md'), 'utf8')).toBe('the owner wrote this')
    const config = cli('memory', 'setup', 'holographic')
    expect(config.code).toBe(1)
    expect(config.stderr).toMatch(/^caduceus memory: config\.yaml cannot be changed: .*\/home is not writable by /m)
    expect(existsSync(join(home, 'cron')) || existsSync(join(home, 'config.yaml'))).toBe(false)
  })

  it.runIf(asRoot && existsSync(SYSTEM_PYTHON))(
    'a running host follows what the owner writes, and its page names why nothing can be changed',
    async () => {
      const child = spawn(process.execPath, ['bin/caduceus.mjs', 'serve', '--home', home, '--port', '0'], {
        cwd: repo,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        ...asOther
      })
      try {
        const ready = await new Promise<{ url: string }>((ok, fail) => {
          child.once('exit', (code) => fail(new Error(`serve exited ${code}`)))
          createInterface({ input: child.stdout! }).on('line', (l) => l.startsWith('{"ready"') && ok(JSON.parse(l)))
        })
        const token = new URL(ready.url).searchParams.get('token')
        const call = async (name: string, input: unknown) =>
          (await (
            await fetch(new URL('/api/call', ready.url), {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ name, input })
            })
          ).json()) as { ok: boolean; output?: any; error?: { message: string } }
        const page = await call('sessions.list', { profile: 'default', limit: 50 })
        expect(page.ok).toBe(true)
        expect(page.output.notices[0].reason).toMatch(/^Read-only: its folder is not writable/)
        const messages = async () =>
          (await call('sessions.messages', { profile: 'default', sessionId: 'future', afterId: 0 })).output?.items
            ?.length
        expect(await messages()).toBe(1)

        // A backup restored over it (a new file with no -shm beside it: never read in place): a new copy, taken off the
        // host's event loop, is read once it is whole, and the one it replaced is gone.
        const db = join(home, 'state.db')
        const copies = copiesLeft() // one per profile
        copyFileSync(db, join(base, 'restored.db'))
        execFileSync('sqlite3', [join(base, 'restored.db'), "UPDATE messages SET content = 'restored' WHERE id = 44"])
        execFileSync('chmod', ['a+r', join(base, 'restored.db')])
        renameSync(join(base, 'restored.db'), db)
        const first = async () =>
          (await call('sessions.messages', { profile: 'default', sessionId: 'future', afterId: 0 })).output?.items?.[0]
            ?.content
        await expect.poll(first, { timeout: 20_000 }).toBe('restored')
        await expect.poll(() => copiesLeft().filter((c) => !copies.includes(c)), { timeout: 20_000 }).toHaveLength(1)
        await expect.poll(copiesLeft, { timeout: 20_000 }).toHaveLength(copies.length)
        // The owner's program writes (the system Python's SQLite, as upstream's does: WAL, then its close checkpoints).
        execFileSync(SYSTEM_PYTHON, [
          '-c',
          [
            'import sqlite3, sys, time',
            'c = sqlite3.connect(sys.argv[1])',
            "c.execute(\"INSERT INTO messages (session_id, role, content, timestamp) VALUES ('future', 'assistant', 'written by its owner', ?)\", (time.time(),))",
            'c.execute("UPDATE sessions SET message_count = message_count + 1 WHERE id = \'future\'")',
            'c.commit()'
          ].join('\n'),
          join(home, 'state.db')
        ])
        await expect.poll(messages, { timeout: 20_000 }).toBe(2)
        const rename = await call('sessions.update', { profile: 'default', sessionId: 'future', title: 'x' })
        expect(rename.ok).toBe(false)
        expect(rename.error?.message).toMatch(/cannot be changed: its folder is not writable/)
        // the Memory page, a cron job, Settings (config.yaml and the key in .env): each says what and why
        const refusals = await Promise.all([
          call('memory.edit', { op: 'add', profile: 'default', target: 'user', content: 'likes tea' }),
          call('cron.create', { profile: 'default', schedule: 'every 1h', prompt: 'hello' }),
          call('settings.update', { profile: 'default', model: 'other-model' }),
          call('settings.update', { profile: 'default', apiKey: 'sk-test-key' })
        ])
        expect(refusals.map((r) => r.ok)).toEqual([false, false, false, false])
        expect(refusals.map((r) => r.error?.message)).toEqual([
          expect.stringMatching(/^USER\.md cannot be changed: .* is not writable by /),
          expect.stringMatching(/^cron\/jobs\.json cannot be changed: .* is not writable by /),
          expect.stringMatching(/^config\.yaml cannot be changed: .* is not writable by /),
          expect.stringMatching(/^\.env cannot be changed: .* is not writable by /)
        ])
      } finally {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
      expect(copiesLeft()).toEqual([])
    },
    60_000
  )

  it('a copy is a snapshot: one whose original changed while it was copied is taken again, never read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-ro-snapshot-'))
    try {
      const db = join(dir, 'state.db')
      writeFileSync(db, Buffer.alloc(1 << 20, 1))
      const copying = refreshCopy(db, 'test')
      appendFileSync(db, 'written meanwhile') // after the print the copy starts from, before it is checked again
      const copy = await copying
      expect(copy.print).toBe(sourcePrint(db))
      expect(readFileSync(copy.file).equals(readFileSync(db))).toBe(true)
      dropCopy(copy)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a new copy is taken off the loop and read once whole; one that lands when no copy is wanted is not kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-ro-refresh-'))
    const db = join(dir, 'state.db')
    // this test process's copies of that file (the folder is shared by every process of this user)
    const key = createHash('sha256').update(db).digest('hex').slice(0, 16)
    const copies = join(tmpdir(), `caduceus-read-copy-${process.getuid?.() ?? 'u'}`)
    const copiesOf = () => readdirSync(copies).filter((n) => n.startsWith(`${key}-`))
    try {
      writeFileSync(db, Buffer.alloc(1 << 20, 1))
      let told = 0
      const refresh = new CopyRefresh(() => told++)
      expect(() => refresh.take(db, 'test')).toThrow(CopyPending) // meanwhile the store reads the copy it has
      await expect.poll(() => told).toBe(1)
      const copy = refresh.take(db, 'test')
      expect(copy.print).toBe(sourcePrint(db))
      expect(readFileSync(copy.file).equals(readFileSync(db))).toBe(true)

      // The original changes again, and before that copy lands the store reads the original in place (its owner
      // holds it open): the copy is dropped as it lands.
      appendFileSync(db, 'written later')
      expect(() => refresh.take(db, 'test')).toThrow(CopyPending)
      refresh.drop()
      await expect.poll(copiesOf).toEqual([basename(copy.dir)])
      dropCopy(copy)
      await expect.poll(copiesOf).toEqual([])
      expect(told).toBe(1)
      refresh.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  // A backup on a read-only mount: a private mount namespace (root with CAP_SYS_ADMIN; skipped where there is none).
  const canMount = asRoot && spawnSync('unshare', ['-m', 'true']).status === 0
  it.runIf(canMount)(
    'on a read-only mount: the list reads a copy, a state.db or jobs.json change is refused saying so',
    () => {
      const ro = mkdtempSync(join(tmpdir(), 'cad-ro-mount-'))
      try {
        cpSync(FIXTURE, ro, { recursive: true })
        const cli = (...args: string[]) => `node bin/caduceus.mjs ${args.join(' ')} --home ${ro}; echo "exit $?"`
        const script = [
          `mount --bind ${ro} ${ro} && mount -o remount,bind,ro ${ro}`,
          cli('sessions', 'list', '--profile', 'default', '--limit', '1'),
          cli('sessions', 'rename', 'ancient', 'renamed'),
          cli('cron', 'add', "'every 1h'", 'hello')
        ].join('\n')
        const r = spawnSync('unshare', ['-m', 'sh', '-c', script], { cwd: repo, env, encoding: 'utf8' })
        const exits = [...r.stdout.matchAll(/^exit (\d+)$/gm)].map((m) => Number(m[1]))
        expect(exits, r.stderr).toEqual([0, 1, 1])
        expect(r.stdout).toContain('empty-bare') // the newest session, read from the copy
        expect(r.stderr).toMatch(/Read-only: its folder is on a read-only file system/)
        expect(r.stderr).toMatch(/state\.db cannot be changed: its folder is on a read-only file system/)
        // Node's recursive mkdir says ENOENT there: the refusal asks the folder why
        expect(r.stderr).toMatch(
          /cron\/jobs\.json cannot be changed: .* is on a read-only file system\. Nothing was changed\./
        )
        expect(existsSync(join(ro, 'cron'))).toBe(false)
      } finally {
        rmSync(ro, { recursive: true, force: true })
      }
    }
  )
})
