/**
 * The watcher's visible-columns snapshot (TEMP table on its own connection): exactly the sessions whose
 * visible state changed are named — NULL vs '' included — deletions too, and the DB file is never written.
 */
import Database from 'better-sqlite3'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionStore, SessionWatcher } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'
import { txDb } from './write-tx'
import { WalFiles } from './wal-pages'
import { makeHome } from './test-fixtures/homes'
import { UPSTREAM_APPEND } from './test-fixtures/spawn-writer'

afterAll(cleanupTempDirs)
/** What a session list shows of a session: the columns whose change the watcher must name. */
const SHOWN = ['message_count', 'tool_call_count', 'ended_at', 'end_reason', 'title', 'archived', 'pinned', 'hidden']
  .concat(['estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'last_activity_at', 'input_tokens', 'output_tokens'])
  .concat(['rewind_count'])

let store: SessionStore
let watcher: SessionWatcher
let emitted: string[]
const sql = (q: string, ...args: unknown[]) =>
  store.write((tx) => {
    txDb(tx)
      .prepare(q)
      .run(...args)
  })

beforeEach(async () => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
  for (const id of ['a', 'b', 'c']) await store.createSession(id, 'cli')
  // Raw SQL writes (no tx.touch) don't wake it: checked by hand so each assertion sees one commit's diff.
  emitted = []
  watcher = new SessionWatcher(store, (e) => emitted.push(...e.sessionIds), { fallbackMs: 60_000 })
  watcher.start()
})
afterEach(() => {
  watcher.stop()
  store.close()
})

describe('SessionWatcher visible-columns diff', () => {
  it('names only sessions whose visible columns changed', async () => {
    await sql(`UPDATE sessions SET title = 'x', cwd = '/w' WHERE id = 'b'`)
    expect(watcher.check()).toEqual(['b'])
    await sql(`UPDATE sessions SET cwd = '/elsewhere' WHERE id = 'a'`) // not a visible column
    expect(watcher.check()).toEqual([])
    await sql(`UPDATE sessions SET title = 'x' WHERE id = 'b'`) // same value rewritten
    expect(watcher.check()).toEqual([])
  })

  it("tells NULL from '' and notices every value change", async () => {
    await sql(`UPDATE sessions SET title = '' WHERE id = 'a'`)
    expect(watcher.check()).toEqual(['a'])
    await sql(`UPDATE sessions SET title = NULL WHERE id = 'a'`)
    expect(watcher.check()).toEqual(['a'])
    await sql(`UPDATE sessions SET cost_status = '1' WHERE id = 'c'`)
    expect(watcher.check()).toEqual(['c'])
    await sql(`UPDATE sessions SET estimated_cost_usd = 0.5 WHERE id = 'c'`)
    expect(watcher.check()).toEqual(['c'])
    await sql(`UPDATE sessions SET estimated_cost_usd = 0.25 WHERE id = 'c'`)
    expect(watcher.check()).toEqual(['c'])
  })

  it('names new sessions, sessions with new messages, and deleted sessions, in one diff', async () => {
    await store.write((tx) => {
      txDb(tx).prepare(`INSERT INTO sessions (id, source, started_at) VALUES ('d', 'cli', 1)`).run()
      txDb(tx).prepare(`DELETE FROM sessions WHERE id = 'c'`).run()
    })
    await store.appendMessage('a', { role: 'user', content: 'hi' }) // own write: wakes the watcher at once
    watcher.check()
    expect(new Set(emitted)).toEqual(new Set(['a', 'c', 'd']))
    expect(emitted).toHaveLength(3)
    expect(watcher.check()).toEqual([])
  })

  it('never writes the database file: other connections see no commit from the watcher', () => {
    const before = Number(rawDb(store).pragma('data_version', { simple: true }))
    const other = new Database(store.path)
    try {
      other.prepare(`UPDATE sessions SET pinned = 1 WHERE id = 'a'`).run()
      const afterOther = Number(rawDb(store).pragma('data_version', { simple: true }))
      expect(afterOther).not.toBe(before)
      expect(watcher.check()).toEqual(['a'])
      expect(Number(rawDb(store).pragma('data_version', { simple: true }))).toBe(afterOther)
    } finally {
      other.close()
    }
  })

  it('a rowid another session reuses names both: the one deleted and the one created', async () => {
    // The newest row deleted and a session created in the same check: SQLite hands the new row the same rowid.
    const rowid = () => rawDb(store).prepare<[], number>(`SELECT rowid FROM sessions WHERE id = 'c'`).pluck().get()
    const was = rowid()
    await store.write((tx) => {
      txDb(tx).prepare(`DELETE FROM sessions WHERE id = 'c'`).run()
      txDb(tx).prepare(`INSERT INTO sessions (id, source, started_at) VALUES ('d', 'cli', 1)`).run()
    })
    expect(rawDb(store).prepare(`SELECT rowid FROM sessions WHERE id = 'd'`).pluck().get()).toBe(was)
    expect(new Set(watcher.check())).toEqual(new Set(['c', 'd']))
    await sql(`UPDATE sessions SET title = 'later' WHERE id = 'd'`)
    expect(watcher.check()).toEqual(['d'])
  })

  it('renumbered rowids (as a VACUUM may renumber them) lose no deletion and keep later changes seen', async () => {
    await store.write((tx) => {
      const db = txDb(tx)
      db.prepare(`DELETE FROM sessions WHERE id = 'a'`).run()
      // b and c move down one rowid each: b takes the deleted a's.
      for (const id of ['b', 'c']) db.prepare(`UPDATE sessions SET rowid = rowid - 1 WHERE id = ?`).run(id)
    })
    expect(watcher.check()).toContain('a')
    expect(watcher.check()).toEqual([])
    await sql(`UPDATE sessions SET archived = 1 WHERE id = 'c'`)
    expect(watcher.check()).toEqual(['c'])
  })

  it('a VACUUM by another program after a delete: the deleted session is named, later changes too', async () => {
    const other = new Database(store.path)
    try {
      other.prepare(`DELETE FROM sessions WHERE id = 'b'`).run()
      other.exec('VACUUM')
      expect(watcher.check()).toEqual(['b'])
      other.prepare(`UPDATE sessions SET ended_at = 5 WHERE id = 'c'`).run()
      expect(watcher.check()).toEqual(['c'])
    } finally {
      other.close()
    }
  })

  it("compares only the rows the WAL's new frames hold, and still names every change", async () => {
    const rows = watcher.stats.rowDiffs
    const other = new Database(store.path)
    try {
      other.prepare(`UPDATE sessions SET title = 'elsewhere' WHERE id = 'c'`).run()
      expect(watcher.check()).toEqual(['c'])
      expect(watcher.stats.rowDiffs).toBe(rows + 1)
      other.prepare(`DELETE FROM sessions WHERE id = 'a'`).run() // a deleted row leaves no cell: the count tells
      expect(watcher.check()).toEqual(['a'])
    } finally {
      other.close()
    }
  })

  it('a value rewritten in place in an overflow page (a long system prompt ahead of it) is named', async () => {
    // An older upstream keeps the prompt inline, ahead of the title: the title lives in the row's overflow pages,
    // and a same-size change rewrites only the overflow page that holds it, not the leaf page.
    const prompt = 'You are a careful assistant. '.repeat(800)
    await sql(`UPDATE sessions SET system_prompt = ?, title = 'aaaa' WHERE id = 'b'`, prompt)
    expect(watcher.check()).toEqual(['b'])
    const other = new Database(store.path)
    try {
      other.prepare(`UPDATE sessions SET title = 'aaab' WHERE id = 'b'`).run()
      expect(watcher.check()).toEqual(['b'])
      other.prepare(`UPDATE sessions SET message_count = 7 WHERE id = 'b'`).run()
      expect(watcher.check()).toEqual(['b'])
    } finally {
      other.close()
    }
  })

  it('a commit that takes pages from the freelist is still read from its frames, and names what it changed', async () => {
    const other = new Database(store.path)
    try {
      other
        .prepare(`INSERT INTO sessions (id, source, started_at, title) VALUES ('big', 'cli', 1, ?)`)
        .run('t'.repeat(40_000))
      other.prepare(`DELETE FROM sessions WHERE id = 'big'`).run() // its overflow pages go to the freelist
      expect(watcher.check()).toEqual([])
      const rows = watcher.stats.rowDiffs
      other.transaction(() => {
        other
          .prepare(`INSERT INTO sessions (id, source, started_at, title) VALUES ('new', 'cli', 1, ?)`)
          .run('n'.repeat(9000))
        other.prepare(`UPDATE sessions SET ended_at = 9 WHERE id = 'c'`).run()
      })()
      expect(new Set(watcher.check())).toEqual(new Set(['new', 'c']))
      expect(watcher.stats.rowDiffs).toBe(rows + 1)
    } finally {
      other.close()
    }
  })

  it("reading the WAL's frames keeps this process's SQLite locks: another program closing leaves the WAL in place", async () => {
    const other = new Database(store.path)
    try {
      other.prepare(`UPDATE sessions SET title = 'read' WHERE id = 'a'`).run()
    } finally {
      other.close()
    }
    const rows = watcher.stats.rowDiffs
    expect(watcher.check()).toEqual(['a'])
    expect(watcher.stats.rowDiffs).toBe(rows + 1) // it read the -shm and the -wal
    // A process closing what it takes for the last connection checkpoints and deletes the WAL. This one's connections
    // still hold their locks on state.db and the -shm, so the program sees them and leaves it (descriptors opened and
    // closed on those files for each read dropped them: the WAL went from under this process's readers).
    emitted = []
    await new Promise<void>((ok, fail) =>
      execFile(process.execPath, [UPSTREAM_APPEND, store.path, 'b'], (err) => (err ? fail(err) : ok()))
    )
    expect(existsSync(`${store.path}-wal`)).toBe(true)
    await watcher.flush() // (its file watch may have seen the append already)
    expect(emitted).toEqual(['b'])
  })

  it("a second store's watcher on the same file (two hosts of one process) closing leaves the first's locks", async () => {
    const second = new SessionStore(store.path, { profile: 'default' })
    const other = new Database(store.path)
    try {
      const watcher2 = new SessionWatcher(second, () => {}, { fallbackMs: 60_000 }).start()
      other.prepare(`UPDATE sessions SET title = 'both' WHERE id = 'a'`).run()
      const rows = watcher2.stats.rowDiffs
      expect(watcher2.check()).toEqual(['a']) // it read the -shm and the -wal too
      expect(watcher2.stats.rowDiffs).toBe(rows + 1)
      watcher2.stop()
    } finally {
      other.close()
      second.close()
    }
    // Its descriptors on state.db and the -shm are this process's: closing them would drop the first store's locks,
    // and a program closing what it then takes for the last connection would delete the WAL under it.
    emitted = []
    await new Promise<void>((ok, fail) =>
      execFile(process.execPath, [UPSTREAM_APPEND, store.path, 'b'], (err) => (err ? fail(err) : ok()))
    )
    expect(existsSync(`${store.path}-wal`)).toBe(true)
    await watcher.flush()
    expect(emitted).toContain('b')
  })

  it("a read that raced a restore keeps the swapped-in file's descriptor until that file's own users let go", () => {
    const dir = tempDir()
    const path = join(dir, 'restored.db')
    const make = (file: string) => {
      const db = new Database(file)
      db.pragma('journal_mode = WAL')
      db.exec('CREATE TABLE t (x)')
      db.close()
    }
    make(path)
    const files = new WalFiles(path, `${statSync(path).dev}:${statSync(path).ino}`)
    make(join(dir, 'backup.db'))
    renameSync(join(dir, 'backup.db'), path) // a restore renames another file over the path
    expect(files.readDb(100, 0)).toBeNull() // not the watched file's bytes
    // This process's connection on the restored file takes SQLite's locks on it.
    const restored = new Database(path)
    try {
      restored.prepare('INSERT INTO t VALUES (1)').run()
      files.close() // the old file's watcher lets go: the descriptor it opened on the new file must not close now
      execFileSync('/usr/bin/python3', [
        '-c',
        'import sqlite3, sys\nd = sqlite3.connect(sys.argv[1])\nd.execute("SELECT * FROM t").fetchall()\nd.close()',
        path
      ])
      expect(existsSync(`${path}-wal`)).toBe(true) // another program's close saw this process's lock and left the WAL
    } finally {
      restored.close()
    }
  })

  it('a WAL another program checkpointed and restarted past where the watcher read is not trusted', async () => {
    const other = new Database(store.path)
    try {
      other.prepare(`UPDATE sessions SET title = 'one' WHERE id = 'a'`).run()
      expect(watcher.check()).toEqual(['a'])
      // (the -wal's length, not its -shm: this process must not open and close the file SQLite locks)
      const frames = () => (statSync(`${store.path}-wal`).size - 32) / (24 + 4096)
      const seen = frames()
      other.pragma('wal_checkpoint(TRUNCATE)')
      // The new WAL's frames start over: the change to c is in a frame the watcher's position already counted, and
      // writes to another table (other pages) carry the new WAL past that position.
      other.prepare(`UPDATE sessions SET title = 'two' WHERE id = 'c'`).run()
      for (let i = 0; frames() <= seen; i++)
        other.prepare(`INSERT OR REPLACE INTO state_meta (key, value) VALUES ('pad', ?)`).run(String(i))
      expect(watcher.check()).toEqual(['c'])
    } finally {
      other.close()
    }
  })

  it('a WAL restarted with every earlier commit read is read from its first frame; one with a commit unread is not', () => {
    const other = new Database(store.path)
    try {
      other.prepare(`UPDATE sessions SET title = 'one' WHERE id = 'a'`).run()
      expect(watcher.check()).toEqual(['a'])
      // checkpointed and restarted after the watcher read everything: the new generation holds every commit since
      other.pragma('wal_checkpoint(TRUNCATE)')
      other.prepare(`UPDATE sessions SET title = 'two' WHERE id = 'c'`).run()
      other.prepare(`UPDATE sessions SET title = 'three' WHERE id = 'b'`).run()
      let rows = watcher.stats.rowDiffs
      expect(new Set(watcher.check())).toEqual(new Set(['b', 'c']))
      expect(watcher.stats.rowDiffs).toBe(rows + 1) // the rows the frames hold, not every session compared
      // a commit the watcher never read, then a restart that overwrote its frames: every row compared again
      other.prepare(`UPDATE sessions SET title = 'lost' WHERE id = 'a'`).run()
      other.pragma('wal_checkpoint(TRUNCATE)')
      other.prepare(`UPDATE sessions SET title = 'four' WHERE id = 'c'`).run()
      rows = watcher.stats.rowDiffs
      expect(new Set(watcher.check())).toEqual(new Set(['a', 'c']))
      expect(watcher.stats.rowDiffs).toBe(rows)
    } finally {
      other.close()
    }
  })

  it('a commit that takes free pages and gives them back (written, left on the freelist) is read from its frames', () => {
    const other = new Database(store.path)
    try {
      // a freelist: rows with overflow pages, deleted
      other.transaction(() => {
        for (let i = 0; i < 20; i++)
          other
            .prepare(`INSERT INTO sessions (id, source, started_at, title) VALUES (?, 'cli', 1, ?)`)
            .run(`f${i}`, 'f'.repeat(5000))
      })()
      other.prepare(`DELETE FROM sessions WHERE id LIKE 'f%'`).run()
      watcher.check()
      // upstream's turn did this: a row that overflows written and gone again within one commit, beside its change
      other.transaction(() => {
        other
          .prepare(`INSERT INTO sessions (id, source, started_at, title) VALUES ('tmp', 'cli', 1, ?)`)
          .run('t'.repeat(9000))
        other.prepare(`DELETE FROM sessions WHERE id = 'tmp'`).run()
        other.prepare(`UPDATE sessions SET title = 'kept' WHERE id = 'b'`).run()
      })()
      const rows = watcher.stats.rowDiffs
      expect(watcher.check()).toEqual(['b'])
      expect(watcher.stats.rowDiffs).toBe(rows + 1)
    } finally {
      other.close()
    }
  })

  it('a commit of more frames than it reads falls back to every row', async () => {
    const other = new Database(store.path)
    try {
      const pad = 'x'.repeat(3000)
      other.transaction(() => {
        for (let i = 0; i < 1500; i++)
          other
            .prepare(`INSERT INTO sessions (id, source, started_at, title) VALUES (?, 'cli', 1, ?)`)
            .run(`bulk${i}`, `${pad}${i}`)
        other.prepare(`UPDATE sessions SET archived = 1 WHERE id = 'a'`).run()
      })()
      const rows = watcher.stats.rowDiffs
      const named = watcher.check()
      expect(watcher.stats.rowDiffs).toBe(rows)
      expect(named).toHaveLength(1501)
      expect(named).toContain('a')
    } finally {
      other.close()
    }
  })

  it('a rollback-journal home is compared row by row, whatever -shm file lies beside it', () => {
    // Upstream's fresh file keeps a rollback journal until Caduceus writes; a crash can leave an -shm behind.
    const path = makeHome(tempDir(), 30)
    const other = new Database(path)
    const home = new SessionStore(path, { profile: 'default' })
    const seen: string[] = []
    const w = new SessionWatcher(home, (e) => seen.push(...e.sessionIds), { fallbackMs: 60_000 })
    try {
      other.prepare(`INSERT INTO sessions (id, source, started_at) VALUES ('r', 'cli', 1)`).run()
      const header = Buffer.alloc(48)
      header[12] = 1 // isInit, and no frames
      writeFileSync(`${path}-shm`, Buffer.concat([header, header]))
      w.start()
      other.prepare(`UPDATE sessions SET title = 'rolled' WHERE id = 'r'`).run()
      expect(w.check()).toEqual(['r'])
      expect(w.stats.rowDiffs).toBe(0)
    } finally {
      w.stop()
      home.close()
      other.close()
    }
  })

  it('seeded random commits of another program (overflowing rows, in-place edits, deletes, checkpoints, VACUUM): none missed', () => {
    let seed = 7
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const text = (c: string, max: number) => c.repeat(Math.floor(rnd() * max))
    const other = new Database(store.path)
    other.pragma('foreign_keys = OFF')
    const state = () =>
      new Map(
        other
          .prepare<[], unknown[]>(`SELECT id, ${SHOWN.join(', ')} FROM sessions`)
          .raw()
          .all()
          .map((r) => [String(r[0]), JSON.stringify(r.slice(1))])
      )
    try {
      other.transaction(() => {
        for (let i = 0; i < 60; i++)
          other.prepare(`INSERT INTO sessions (id, source, started_at) VALUES (?, 'cli', 1)`).run(`s${i}`)
      })()
      watcher.check()
      let before = state()
      const missed: string[] = []
      for (let step = 0; step < 120; step++) {
        other.transaction(() => {
          const ids = [...before.keys()]
          const id = ids[Math.floor(rnd() * ids.length)]!
          const r = rnd()
          if (r < 0.2) other.prepare('UPDATE sessions SET title = ? WHERE id = ?').run(text('t', 6000), id)
          else if (r < 0.35)
            other.prepare('UPDATE sessions SET system_prompt = ? WHERE id = ?').run(text('p', 20000), id)
          else if (r < 0.5)
            // the same size, one byte changed: behind a long prompt only an overflow page is written
            other
              .prepare(`UPDATE sessions SET title = 'x' || substr(title, 2) WHERE id = ? AND title NOT LIKE 'x%'`)
              .run(id)
          else if (r < 0.6) other.prepare('UPDATE sessions SET message_count = message_count + 1 WHERE id = ?').run(id)
          else if (r < 0.7) other.prepare('UPDATE sessions SET cwd = ? WHERE id = ?').run(`/c${step}`, id)
          else if (r < 0.8) other.prepare('DELETE FROM sessions WHERE id = ?').run(id)
          else if (r < 0.9)
            other
              .prepare(`INSERT INTO sessions (id, source, started_at, title, system_prompt) VALUES (?, 'cli', 1, ?, ?)`)
              .run(`n${step}`, text('z', 3000), text('q', 15000))
          else
            other
              .prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, 1)`)
              .run(id, text('m', 9000))
        })()
        const r = rnd()
        if (r < 0.04) other.pragma('wal_checkpoint(TRUNCATE)')
        else if (r < 0.08) other.pragma('wal_checkpoint(PASSIVE)')
        else if (r < 0.1) other.exec('VACUUM')
        if (rnd() < 0.4) continue // several commits between two checks
        const named = new Set(watcher.check())
        const after = state()
        for (const [id, v] of after) if (before.get(id) !== v && !named.has(id)) missed.push(`${id}@${step}`)
        for (const id of before.keys()) if (!after.has(id) && !named.has(id)) missed.push(`${id}@${step} (deleted)`)
        before = after
      }
      expect(missed).toEqual([])
      expect(watcher.stats.rowDiffs).toBeGreaterThan(20) // most checks took the WAL's rows
    } finally {
      other.close()
    }
  })

  it('a restarted watcher starts from a fresh baseline', async () => {
    watcher.stop()
    await sql(`UPDATE sessions SET title = 'while stopped' WHERE id = 'b'`)
    watcher.start()
    expect(watcher.check()).toEqual([])
    await sql(`UPDATE sessions SET archived = 1 WHERE id = 'b'`)
    expect(watcher.check()).toEqual(['b'])
  })
})
