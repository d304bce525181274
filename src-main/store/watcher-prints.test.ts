/**
 * The watcher's visible-columns snapshot (TEMP table on its own connection): exactly the sessions whose
 * visible state changed are named — NULL vs '' included — deletions too, and the DB file is never written.
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionStore, SessionWatcher } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'
import { txDb } from './write-tx'

afterAll(cleanupTempDirs)

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

  it('a restarted watcher starts from a fresh baseline', async () => {
    watcher.stop()
    await sql(`UPDATE sessions SET title = 'while stopped' WHERE id = 'b'`)
    watcher.start()
    expect(watcher.check()).toEqual([])
    await sql(`UPDATE sessions SET archived = 1 WHERE id = 'b'`)
    expect(watcher.check()).toEqual(['b'])
  })
})
