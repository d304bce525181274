/**
 * The list index (activity-index.ts) catches up from the watcher when it sees another process commit, so the list
 * request after it only checks that the index is current; a request that arrives before the watcher fired
 * catches up itself. Both orders must give the same, right list.
 */
import { execFileSync } from 'node:child_process'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionStore, SessionWatcher } from './index'
import { sqliteOf } from './session-store'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { UPSTREAM_APPEND } from './test-fixtures/spawn-writer'
import { olderAndNewerV21Home } from './test-fixtures/homes'

afterAll(cleanupTempDirs)

/** Another process appends to `id` the way an older upstream does (no last_activity_at), `aheadSec` ahead. */
const foreignAppend = (id: string, aheadSec: number) =>
  execFileSync(process.execPath, [UPSTREAM_APPEND, store.path, id, 'back again', String(aheadSec)])

let store: SessionStore
let watcher: SessionWatcher
let emits: number

beforeEach(async () => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
  await store.createSession('old', 'cli')
  await store.createSession('newer', 'cli')
  await store.appendMessage('newer', { role: 'user', content: 'newer words' })
  emits = 0
  watcher = new SessionWatcher(store, () => emits++).start()
})
afterEach(() => {
  watcher.stop()
  store.close()
})

const ids = () => store.listSessions({ limit: 10 }).items.map((s) => s.id)
/** What the index holds for `id` right now, read without bringing it up to date. */
const indexed = (id: string) =>
  sqliteOf(store).prepare('SELECT act FROM cad_activity WHERE id = ?').pluck().get(id) as number

describe('list index kept current by the watcher', () => {
  it('a foreign write is in the next list when the watcher caught up first', async () => {
    expect(ids()).toEqual(['newer', 'old'])
    const before = indexed('old')
    foreignAppend('old', 3600)
    await watcher.flush()
    expect(emits).toBeGreaterThan(0)
    expect(indexed('old')).toBeGreaterThan(before + 3000) // the watcher moved it, no list read did
    expect(ids()).toEqual(['old', 'newer'])
  })

  it('a foreign write is in the next list when the request arrives before the watcher fired', async () => {
    expect(ids()).toEqual(['newer', 'old'])
    const before = indexed('old')
    foreignAppend('old', 3600) // synchronous: no watcher callback can run before the list below
    expect(indexed('old')).toBe(before)
    expect(ids()).toEqual(['old', 'newer'])
    // The watcher's late catch-up finds nothing left to do and leaves the list as it was.
    await watcher.flush()
    expect(ids()).toEqual(['old', 'newer'])
    foreignAppend('newer', 7200)
    await watcher.flush()
    expect(ids()).toEqual(['newer', 'old'])
  })

  it('the index lives in its own in-memory database; where ATTACH is refused (a first list inside a transaction) in TEMP, following foreign writes alike', async () => {
    const db = sqliteOf(store)
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()
    expect(db.transaction(() => ids())()).toEqual(['newer', 'old'])
    expect(count('temp.cad_activity')).toBe(2)
    foreignAppend('old', 3600)
    expect(ids()).toEqual(['old', 'newer'])
    await watcher.flush()
    expect(ids()).toEqual(['old', 'newer'])

    const other = new SessionStore(store.path, { profile: 'default' })
    try {
      expect(other.listSessions({ limit: 10 }).items.map((s) => s.id)).toEqual(['old', 'newer'])
      expect(sqliteOf(other).prepare('SELECT count(*) FROM cad_mem.cad_activity').pluck().get()).toBe(2)
      expect(() => sqliteOf(other).prepare('SELECT 1 FROM temp.cad_activity')).toThrow(/no such table/)
      foreignAppend('newer', 7200)
      expect(other.listSessions({ limit: 10 }).items.map((s) => s.id)).toEqual(['newer', 'old'])
    } finally {
      other.close()
    }
  })

  it('a session created after the newest one was deleted is listed (it reuses a rowid the index already passed)', async () => {
    expect(ids()).toEqual(['newer', 'old'])
    await store.deleteSession('newer')
    await store.createSession('next', 'cli')
    expect(ids()).toEqual(['next', 'old'])
    // Another process deletes the newest session and creates one, both between two lists.
    const other = new Database(store.path)
    try {
      other.prepare("DELETE FROM sessions WHERE id = 'next'").run()
      other
        .prepare("INSERT INTO sessions (id, source, started_at) VALUES ('later', 'cli', ?)")
        .run(Date.now() / 1000 + 60)
    } finally {
      other.close()
    }
    expect(ids()).toEqual(['later', 'old'])
  })

  it('a home nobody listed is not indexed by the watcher', async () => {
    foreignAppend('old', 3600)
    await watcher.flush()
    expect(emits).toBeGreaterThan(0)
    expect(() => indexed('old')).toThrow(/no such table/)
    expect(ids()).toEqual(['old', 'newer'])
  })
})

describe('on an older upstream home (v21: no pinned, no last_activity_at)', () => {
  it('the watcher sees a foreign write, says so, and brings the list index up to date', async () => {
    const path = olderAndNewerV21Home(tempDir())
    const home = new SessionStore(path, { profile: 'default' })
    const seen: string[][] = []
    const w = new SessionWatcher(home, (e) => seen.push(e.sessionIds)).start()
    try {
      expect(home.listSessions({ limit: 10 }).items.map((s) => s.id)).toEqual(['newer', 'old'])
      const before = sqliteOf(home).prepare("SELECT act FROM cad_activity WHERE id = 'old'").pluck().get()
      execFileSync(process.execPath, [UPSTREAM_APPEND, path, 'old', 'back again'])
      await w.flush()
      expect(seen).toEqual([['old']])
      const after = sqliteOf(home).prepare("SELECT act FROM cad_activity WHERE id = 'old'").pluck().get()
      expect(after).toBeGreaterThan(before as number)
      expect(home.listSessions({ limit: 10 }).items.map((s) => s.id)).toEqual(['old', 'newer'])
    } finally {
      w.stop()
      home.close()
    }
  })
})
