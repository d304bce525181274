// An import writes in bounded batches, each its own transaction with the lock let go in between: another
// program's writer (upstream's own SessionDB, in its own process) gets in while a large import runs, the event loop
// turns between batches, and a retried or failed batch never miscounts. Structure is asserted (batch sizes, turns,
// where the foreign row landed), not timing; bench/ measures the stalls.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { UPSTREAM_APPEND } from './test-fixtures/spawn-writer'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const PYTHON = '/usr/bin/python3'
const hasUpstream = existsSync(PYTHON) && existsSync(join(UPSTREAM, 'hermes_state.py'))

/** Sessions one import transaction writes at most (import-batches.ts). */
const BATCH_SESSIONS = 200

const open: Array<{ close(): void }> = []
afterEach(() => {
  for (const s of open.splice(0)) s.close()
  cleanupTempDirs()
})

const jsonl = (n: number, messages = 3, extra: string[] = []) =>
  [
    ...Array.from({ length: n }, (_, i) =>
      JSON.stringify({
        id: `imp-${i}`,
        source: 'cli',
        started_at: 1.7e9 + i,
        messages: Array.from({ length: messages }, (_, k) => ({
          role: k % 2 ? 'assistant' : 'user',
          content: `session ${i} message ${k}`,
          timestamp: 1.7e9 + i + k
        }))
      })
    ),
    ...extra
  ].join('\n')

async function home(opts: ConstructorParameters<typeof SessionStore>[1] = {}) {
  const path = join(tempDir('cad-import-batches-'), 'state.db')
  const store = new SessionStore(path, { profile: 'default', ...opts })
  open.push(store)
  await store.createSession('seed', 'cli')
  return { path, store }
}

/** Every commit the store reports (one per batch) with the event-loop turns seen before it. */
function watchBatches(store: SessionStore) {
  const batches: Array<{ ids: string[]; turns: number }> = []
  let turns = 0
  let on = true
  const turn = () => {
    turns++
    if (on) setImmediate(turn)
  }
  setImmediate(turn)
  const off = store.onLocalChange((e) => batches.push({ ids: e.sessionIds, turns }))
  return {
    batches,
    stop: () => {
      on = false
      off()
    }
  }
}

describe('import in batches', () => {
  it.skipIf(!hasUpstream)(
    "lets upstream's own writer in, from another process, while a large import runs",
    async () => {
      const { path, store } = await home()
      // upstream's SessionDB opens the home, then creates one session when told to (its default retry budget)
      const py = spawn(PYTHON, [
        '-u',
        '-c',
        `import sys
sys.path.insert(0, ${JSON.stringify(UPSTREAM)})
from pathlib import Path
from hermes_state import SessionDB
db = SessionDB(db_path=Path(sys.argv[1]))
print('ready')
sys.stdin.readline()
try:
    db.create_session('upstream-during-import', 'cli')
    print('ok')
except Exception as e:
    print('failed %r' % (e,))
`,
        path
      ])
      const lines = createInterface({ input: py.stdout })[Symbol.asyncIterator]()
      expect((await lines.next()).value).toBe('ready')
      const watch = watchBatches(store)
      const go = store.onLocalChange(() => {
        go()
        py.stdin.write('go\n') // the first batch committed: the import is under way
      })
      const n = 600
      const summary = await store.importJsonl(jsonl(n), 10_000)
      watch.stop()
      const answer = (await lines.next()).value
      py.stdin.end()
      expect(answer).toBe('ok')
      expect(summary).toMatchObject({ imported: n, skipped: 0, errors: [] })
      // bounded batches, each its own commit, and the event loop turned between every two of them
      const sizes = watch.batches.map((b) => b.ids.filter((id) => id.startsWith('imp-')).length)
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(n)
      expect(Math.max(...sizes)).toBeLessThanOrEqual(BATCH_SESSIONS)
      expect(watch.batches.length).toBeGreaterThanOrEqual(n / BATCH_SESSIONS)
      for (let i = 1; i < watch.batches.length; i++)
        expect(watch.batches[i]!.turns).toBeGreaterThan(watch.batches[i - 1]!.turns)
      // upstream's row went in between two batches, not after the import
      const db = new Database(path, { readonly: true })
      open.push(db)
      const at = (id: string) =>
        (db.prepare('SELECT rowid FROM sessions WHERE id = ?').get(id) as { rowid: number }).rowid
      expect(at('upstream-during-import')).toBeLessThan(at(`imp-${n - 1}`))
      expect(db.prepare("SELECT count(*) AS n FROM messages WHERE session_id LIKE 'imp-%'").get()).toEqual({ n: n * 3 })
    },
    60_000
  )

  it('cuts one long session between turns of the event loop, and it still lands whole or not at all', async () => {
    const { path, store } = await home()
    const long = (id: string, n: number, boomAt = -1) =>
      JSON.stringify({
        id,
        source: 'cli',
        started_at: 1.7e9,
        messages: Array.from({ length: n }, (_, k) => ({
          role: k % 2 ? 'assistant' : 'user',
          content: k === boomAt ? 'boom' : `long ${id} message ${k}`,
          timestamp: 1.7e9 + k
        }))
      })
    const watch = watchBatches(store)
    const summary = await store.importJsonl(long('long-1', 3000), 10_000)
    watch.stop()
    expect(summary).toMatchObject({ imported: 1, errors: [] })
    // one commit for the session, with the loop turning many times while its rows were written (one slice of
    // writes per turn: a 3,000-message session was one block of the loop before)
    const commit = watch.batches.find((b) => b.ids.includes('long-1'))!
    expect(commit.turns).toBeGreaterThanOrEqual(6)
    const db = new Database(path)
    open.push(db)
    expect(db.prepare("SELECT count(*) AS n FROM messages WHERE session_id = 'long-1'").get()).toEqual({ n: 3000 })
    // a row refused deep in a long session (another program's trigger here) leaves none of that session's rows
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON messages WHEN NEW.content = 'boom'
      BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END`)
    const second = await store.importJsonl([long('long-2', 3000, 2500), long('short-3', 4)].join('\n'), 10_000)
    expect(second.imported).toBe(1)
    expect(second.errors).toEqual([{ id: 'long-2', line: 1, reason: expect.stringContaining('refused by a trigger') }])
    const count = (id: string) =>
      (db.prepare('SELECT count(*) AS n FROM messages WHERE session_id = ?').get(id) as { n: number }).n
    expect(count('long-2')).toBe(0)
    expect(db.prepare("SELECT count(*) AS n FROM sessions WHERE id = 'long-2'").get()).toEqual({ n: 0 })
    expect(count('short-3')).toBe(4)
  })

  it('counts once when a COMMIT met a lock and was tried again (rollback-journal home)', async () => {
    const { path, store } = await home({ journalMode: () => 'delete' })
    // another connection's read transaction holds a SHARED lock: BEGIN IMMEDIATE succeeds, COMMIT is busy
    const reader = new Database(path)
    open.push(reader)
    expect(reader.pragma('journal_mode', { simple: true })).toBe('delete')
    reader.prepare('BEGIN').run()
    reader.prepare('SELECT count(*) FROM sessions').get()
    let released = false
    setTimeout(() => {
      reader.prepare('COMMIT').run()
      released = true
    }, 150)
    const lines = [
      JSON.stringify({ id: 'a', parent_session_id: 'nowhere', messages: [{ role: 'user', content: 'x', extra: 1 }] }),
      JSON.stringify({ id: 'a' }),
      JSON.stringify({ id: 'seed' }),
      '{bad'
    ]
    const summary = await store.importJsonl(lines.join('\n'), 100)
    expect(released).toBe(true) // the import could commit only after the reader let go: its COMMIT was retried
    expect(summary).toEqual({
      imported: 1,
      skipped: 1,
      detached: 1,
      errors: [
        { id: 'line 4', line: 4, reason: expect.stringContaining('invalid JSON') },
        { id: 'a', line: 2, reason: 'duplicate session id' }
      ],
      ignoredFields: { 'messages.extra': 1 }
    })
    expect(store.sessionCount()).toBe(2)
  })

  it('stops with a report naming what did not land when a batch cannot write; sessions land whole', async () => {
    const { path, store } = await home({ writeRetryMs: 100 })
    const n = 3 * BATCH_SESSIONS
    // the first line's id comes again after the first batch: reported once, as a duplicate
    const content = jsonl(n, 4, [JSON.stringify({ id: 'imp-0' })])
    const holder = new Database(path)
    open.push(holder)
    let landed = 0
    const first = store.onLocalChange((e) => {
      first()
      landed = e.sessionIds.length
      holder.exec('BEGIN IMMEDIATE') // after the first batch: another program takes the lock and keeps it
    })
    const summary = await store.importJsonl(content, 10_000)
    holder.exec('COMMIT')
    expect(landed).toBeGreaterThan(0)
    expect(landed).toBeLessThanOrEqual(BATCH_SESSIONS)
    expect(summary.imported).toBe(landed)
    const stopped = summary.errors.filter((e) => e.reason.startsWith('not imported'))
    expect(stopped).toHaveLength(n - landed)
    expect(summary.errors.slice(0, stopped.length)).toEqual(stopped) // first in the report
    expect(stopped[0]!.reason).toMatch(new RegExp(`stopped after ${landed} sessions .*locked`))
    expect(summary.errors.filter((e) => e.reason === 'duplicate session id')).toEqual([
      { id: 'imp-0', line: n + 1, reason: 'duplicate session id' }
    ])
    // what landed is whole: every imported session with all its messages, nothing of the others
    const db = new Database(path, { readonly: true })
    open.push(db)
    const rows = db
      .prepare(
        "SELECT s.id, s.message_count AS mc, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS n FROM sessions s WHERE s.id LIKE 'imp-%'"
      )
      .all() as Array<{ id: string; mc: number; n: number }>
    expect(rows).toHaveLength(landed)
    expect(rows.every((r) => r.mc === 4 && r.n === 4)).toBe(true)
    expect(new Set(stopped.map((e) => e.id))).toEqual(
      new Set(Array.from({ length: n }, (_, i) => `imp-${i}`).filter((id) => !rows.some((r) => r.id === id)))
    )
    // the same file again adds the rest; the ones that landed are skipped
    const again = await store.importJsonl(content, 10_000)
    expect(again).toMatchObject({ imported: n - landed, skipped: landed })
    expect(again.errors).toEqual([{ id: 'imp-0', line: n + 1, reason: 'duplicate session id' }])
  })

  it('starts over in the file now at the path when state.db is replaced mid-import (a backup restored by rename)', async () => {
    const { path, store } = await home()
    const backup = new Database(path)
    await backup.backup(`${path}.bak`)
    backup.close()
    const n = 300
    let swapped = false
    const off = store.onLocalChange(() => {
      if (swapped) return
      swapped = true // after the first transaction landed: the restore, as a user's backup tool does it
      renameSync(`${path}.bak`, path)
      for (const side of ['-wal', '-shm']) rmSync(`${path}${side}`, { force: true })
    })
    const summary = await store.importJsonl(jsonl(n, 20), 10_000)
    off()
    expect(swapped).toBe(true)
    // every session is in the file at the path, and the summary counts that import
    expect(summary).toMatchObject({ imported: n, skipped: 0 })
    expect(summary.errors).toEqual([])
    const db = new Database(path, { readonly: true })
    open.push(db)
    expect(db.prepare("SELECT count(*) FROM sessions WHERE id LIKE 'imp-%'").pluck().get()).toBe(n)
    expect(db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(n * 20)
    expect(db.pragma('quick_check', { simple: true })).toBe('ok')
  })

  it("a restore that leaves the old -wal/-shm, between two batches: the import's connection lets go of the old file with the store's, so another program's append to the restored file works", async () => {
    const { path, store } = await home()
    // a backup larger than the live file (a table and 200 KB it lacks): its pages run past the old file's last one
    const live = new Database(path)
    await live.backup(`${path}.bak`)
    live.close()
    const bak = new Database(`${path}.bak`)
    bak.exec('CREATE TABLE extra (x BLOB)')
    bak.prepare('INSERT INTO extra VALUES (?)').run(Buffer.alloc(200_000, 7))
    bak.close()
    let appended: string | null = null
    const off = store.onLocalChange(() => {
      if (appended !== null) return
      appended = ''
      // after the first batch: upstream's snapshot restore (the -wal/-shm stay), the watcher's check (the old log
      // emptied into the old file; the new file waits for the old -wal/-shm to go), then another program's append
      renameSync(`${path}.bak`, path)
      expect(() => store.syncFile()).toThrow(/waiting for its old -wal\/-shm/)
      try {
        appended = execFileSync(process.execPath, [UPSTREAM_APPEND, path, 'seed', 'mid-import'], {
          encoding: 'utf8',
          stdio: 'pipe'
        })
      } catch (err) {
        appended = String((err as { stderr?: string }).stderr ?? err)
      }
    })
    const summary = await store.importJsonl(jsonl(201, 1), 10_000)
    off()
    expect(appended).toMatch(/"messageId":/)
    expect(summary).toMatchObject({ imported: 201, skipped: 0 })
    const db = new Database(path, { readonly: true })
    open.push(db)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    expect(db.prepare("SELECT count(*) FROM sessions WHERE id LIKE 'imp-%'").pluck().get()).toBe(201)
    expect(db.prepare("SELECT content FROM messages WHERE session_id = 'seed'").pluck().all()).toEqual(['mid-import'])
    expect(db.prepare('SELECT length(x) FROM extra').pluck().get()).toBe(200_000)
  })
})
