/**
 * A prune filter never widens the selection: on a home whose sessions table lacks the column a filter reads (an
 * older upstream's v21 home has no git_branch, chat_id or chat_type), that filter matches nothing, where ignoring it
 * would prune every other old ended session.
 */
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { makeHome, upstream } from './test-fixtures/homes'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

afterAll(cleanupTempDirs)

describe('prune filters on an older home', () => {
  it('a filter on a column the home lacks selects nothing; the same prune without it selects the old ended sessions', async () => {
    const path = makeHome(tempDir(), 21)
    const raw = new Database(path)
    const up = upstream(raw, 21)
    for (const id of ['a', 'b']) {
      up.createSession(id)
      up.append(id, 'user', `words of ${id}`)
    }
    raw.prepare('UPDATE sessions SET started_at = 1500000000, ended_at = 1500000100').run()
    const cols = (raw.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('sessions') as string[]).sort()
    raw.close()
    const store = new SessionStore(path, { profile: 'default' })
    try {
      const ids = async (f: Record<string, unknown>) =>
        ((await store.pruneSessions({ olderThanDays: 30, dryRun: true, ...f })).candidates ?? []).map((c) => c.id)
      expect((await ids({})).sort()).toEqual(['a', 'b'])
      for (const [f, col] of [
        [{ branchLike: 'main' }, 'git_branch'],
        [{ chatId: 'c9' }, 'chat_id'],
        [{ chatType: 'dm' }, 'chat_type']
      ] as const) {
        expect(cols).not.toContain(col) // the case this test is about: the column is absent
        expect(await ids(f)).toEqual([])
      }
    } finally {
      store.close()
    }
  })
})

describe('archived sessions', () => {
  const ids = async (store: SessionStore, f: Record<string, unknown>) =>
    ((await store.pruneSessions({ olderThanDays: 30, dryRun: true, ...f })).candidates ?? []).map((c) => c.id).sort()
  const oldHome = (version: 21 | 30, archive: boolean) => {
    const path = makeHome(tempDir(), version)
    const raw = new Database(path)
    const up = upstream(raw, version)
    for (const id of ['a', 'b']) {
      up.createSession(id)
      up.append(id, 'user', `words of ${id}`)
    }
    raw.prepare('UPDATE sessions SET started_at = 1500000000, ended_at = 1500000100').run()
    if (archive) raw.prepare("UPDATE sessions SET archived = 1 WHERE id = 'a'").run()
    raw.close()
    return new SessionStore(path, { profile: 'default' })
  }

  it('are kept unless asked for, as `hermes sessions prune` keeps them', async () => {
    const store = oldHome(30, true)
    try {
      expect(await ids(store, {})).toEqual(['b'])
      expect(await ids(store, { includeArchived: true })).toEqual(['a', 'b'])
      expect(await ids(store, { archived: true })).toEqual(['a'])
      expect(await ids(store, { archived: false, includeArchived: true })).toEqual(['b'])
    } finally {
      store.close()
    }
  })

  // read through the stand-in columns an older home lacks (read-shim.ts: archived = 0), as every dry run there is
  it('a home from before upstream archived anything (no column) has none to keep or select', async () => {
    const store = oldHome(21, false)
    try {
      expect(await ids(store, {})).toEqual(['a', 'b'])
      expect(await ids(store, { archived: true })).toEqual([])
    } finally {
      store.close()
    }
  })
})

describe('a prune held to its preview (sessionIds)', () => {
  it('deletes only previewed sessions that still match: one that began to match since stays, so does one resumed', async () => {
    const path = makeHome(tempDir(), 30)
    const raw = new Database(path)
    const up = upstream(raw, 30)
    for (const id of ['a', 'b', 'c', 'late']) {
      up.createSession(id)
      up.append(id, 'user', `words of ${id}`)
    }
    raw.prepare("UPDATE sessions SET source = 'cron', started_at = 1500000000, ended_at = 1500000100").run()
    raw.prepare("UPDATE sessions SET ended_at = NULL WHERE id = 'late'").run()
    raw.close()
    const store = new SessionStore(path, { profile: 'default' })
    try {
      const f = { olderThanDays: null, source: 'cron' }
      const preview = (await store.pruneSessions({ ...f, dryRun: true })).candidates!.map((c) => c.id)
      expect(preview.sort()).toEqual(['a', 'b', 'c'])
      // meanwhile: 'late' ends (it matches now), 'c' is resumed (running: no longer ended)
      await store.endSession('late', 'done')
      await store.reopenSession('c')
      expect((await store.pruneSessions({ ...f, dryRun: true })).candidates!.map((c) => c.id).sort()).toEqual([
        'a',
        'b',
        'late'
      ])
      const r = await store.pruneSessions({ ...f, sessionIds: preview })
      expect(r.deleted).toBe(2)
      expect(r.deletedIds!.sort()).toEqual(['a', 'b'])
      for (const id of ['c', 'late']) expect(store.getSession(id)?.id).toBe(id)
      expect(store.getSession('a')).toBeNull()
    } finally {
      store.close()
    }
  })
})
