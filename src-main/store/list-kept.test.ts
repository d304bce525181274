/**
 * The default first page answered from rows the watcher keeps current (list-kept.ts, read-list-kept.ts): after every
 * kind of write another connection makes, once the watcher has seen it, the page is the kept rows' — and reads as
 * the file does (the same list through the full statement: a `from` bound every session passes turns the kept rows
 * off). A commit the watcher has not seen yet, this store's own included, is read from the file.
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionStore, SessionWatcher } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { olderAndNewerV21Home } from './test-fixtures/homes'

afterAll(cleanupTempDirs)

let store: SessionStore
let watcher: SessionWatcher
let other: Database.Database

beforeEach(async () => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
  // Messages numbered past the sessions' rowids: the WAL's rows are taken across tables, and a message id equal to a
  // session's rowid written would read that session again too (harmless, but not what the counts below look at).
  await store.createSession('pad', 'cli')
  await store.setTitle('pad', 'Pad')
  await store.appendMessages(
    'pad',
    Array.from({ length: 30 }, () => ({ role: 'assistant' as const, content: '.' }))
  )
  for (let i = 1; i <= 9; i++) {
    await store.createSession(`s${i}`, 'cli')
    if (i % 3 !== 0) await store.appendMessage(`s${i}`, { role: 'user', content: `words of s${i}` })
    if (i % 2 === 0) await store.setTitle(`s${i}`, `Title ${i}`)
  }
  watcher = new SessionWatcher(store, () => undefined).start()
  other = new Database(store.path)
  other.pragma('busy_timeout = 2000')
})
afterEach(() => {
  other.close()
  watcher.stop()
  store.close()
})

const LIMIT = 5
const page = () => store.listSessions({ limit: LIMIT })
/** The same page read from the file by the full statement (a bound every session's activity passes). */
const fromFile = () => store.listSessions({ limit: LIMIT, from: -1e15 })
const stats = () => watcher.listRows

/**
 * Another connection's write, seen by the watcher; then the page is the kept rows' and reads as the file does. `read`:
 * the sessions read from the file again for it, by the watcher ahead of the page or by the page.
 */
async function afterForeign(write: () => void): Promise<{ read: number; byPage: number }> {
  const before = stats()
  write()
  await watcher.flush()
  const ahead = stats()
  const got = page()
  const after = stats()
  expect(after.pages).toBe(before.pages + 1)
  expect(got).toEqual(fromFile())
  return { read: after.read - before.read, byPage: after.read - ahead.read }
}

const appendForeign = (id: string, at: number, content = 'more words') => {
  other
    .prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)')
    .run(id, 'user', content, at)
  other.prepare('UPDATE sessions SET message_count = message_count + 1, last_activity_at = ? WHERE id = ?').run(at, id)
}

describe('the default first page from kept rows', () => {
  it('follows each kind of foreign write, reading again only the sessions it touched', async () => {
    expect(page()).toEqual(fromFile())
    const now = Math.floor(Date.now() / 1000)
    // an old session continued: it rises to the top and is read again, none of the others — by the watcher, ahead
    // of the page (the change event that brings the page comes after)
    expect(await afterForeign(() => appendForeign('s1', now + 100))).toEqual({ read: 1, byPage: 0 })
    // a column no visible-column diff watches (the model), on a titled session (no first message to look at): its
    // row, written again, is read again and found changed
    expect(
      (await afterForeign(() => other.prepare("UPDATE sessions SET model = 'm2' WHERE id = 's8'").run())).read
    ).toBe(1)
    expect(page().items.find((s) => s.id === 's8')?.model).toBe('m2')
    await afterForeign(() => other.prepare("UPDATE sessions SET title = 'Renamed' WHERE id = 's8'").run())
    // the first user message of an untitled session rewritten in place: its preview
    await afterForeign(() =>
      other.prepare("UPDATE messages SET content = 'edited words' WHERE session_id = 's7'").run()
    )
    expect(page().items.find((s) => s.id === 's7')?.preview).toBe('edited words')
    // a usage route (an auxiliary call upstream records only there): the session's cost
    await afterForeign(() =>
      other
        .prepare('INSERT INTO session_model_usage (session_id, model, estimated_cost_usd) VALUES (?, ?, ?)')
        .run('s8', 'aux', 1.25)
    )
    // a delegate child of a listed session: its count (the child itself is left out)
    await afterForeign(() =>
      other
        .prepare('INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES (?, ?, ?, ?)')
        .run('c1', 'delegate', 's9', now + 200)
    )
    expect(page().items.find((s) => s.id === 's9')?.childCount).toBe(1)
    // archived: it leaves the page and the next one comes up
    await afterForeign(() => other.prepare("UPDATE sessions SET archived = 1 WHERE id = 's1'").run())
    expect(page().items.map((s) => s.id)).not.toContain('s1')
    // a compression: the root is passed over for its continuation
    await afterForeign(() => {
      other.prepare("UPDATE sessions SET end_reason = 'compression', ended_at = ? WHERE id = 's8'").run(now + 300)
      other
        .prepare('INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES (?, ?, ?, ?)')
        .run('s8b', 'cli', 's8', now + 301)
      appendForeign('s8b', now + 302)
    })
    expect(page().items.find((s) => s.rootId === 's8')?.id).toBe('s8b')
    // a chain of three: the root renamed, two steps above the tip that shows its title
    await afterForeign(() => {
      other.prepare("UPDATE sessions SET end_reason = 'compression', ended_at = ? WHERE id = 's8b'").run(now + 303)
      other
        .prepare('INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES (?, ?, ?, ?)')
        .run('s8c', 'cli', 's8b', now + 304)
      appendForeign('s8c', now + 305)
    })
    await afterForeign(() => other.prepare("UPDATE sessions SET title = 'Root renamed' WHERE id = 's8'").run())
    expect(page().items.find((s) => s.rootId === 's8')).toMatchObject({ id: 's8c', title: 'Root renamed' })
    // a session deleted, and one's messages deleted
    await afterForeign(() => other.prepare("DELETE FROM sessions WHERE id IN ('c1', 's9')").run())
    await afterForeign(() => other.prepare("DELETE FROM messages WHERE session_id = 's7'").run())
  })

  it('a parent that ends as branched makes its child a branch: the child, left out until then, is listed', async () => {
    page()
    const now = Math.floor(Date.now() / 1000)
    await afterForeign(() =>
      other
        .prepare('INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES (?, ?, ?, ?)')
        .run('b1', 'cli', 's9', now + 400)
    )
    await afterForeign(() =>
      other.prepare("UPDATE sessions SET end_reason = 'branched', ended_at = ? WHERE id = 's9'").run(now + 399)
    )
    expect(page().items[0]).toMatchObject({ id: 'b1', kind: 'branch' })
  })

  it("a child gone that no page walked: its parent's count is read again", async () => {
    // thirty old sessions below the first page's walk, and a delegate child of s9 older than all of them
    other.transaction(() => {
      const add = other.prepare('INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES (?, ?, ?, ?)')
      for (let i = 0; i < 30; i++) add.run(`old${i}`, 'cli', null, 1000 + i)
      add.run('cx', 'delegate', 's9', 10)
      add.run('tail', 'cli', null, 5) // cx is not the newest row (whose loss the list index itself notices)
    })()
    await watcher.flush()
    expect(page().items.find((s) => s.id === 's9')?.childCount).toBe(1)
    await afterForeign(() => other.prepare("DELETE FROM sessions WHERE id = 'cx'").run())
    expect(page().items.find((s) => s.id === 's9')?.childCount).toBe(0)
  })

  it('a foreign commit the watcher has not seen yet is read from the file; its own, seen at once, from kept rows', async () => {
    page()
    await watcher.flush()
    page()
    const before = stats()
    appendForeign('s2', Math.floor(Date.now() / 1000) + 50)
    expect(page().items[0]!.id).toBe('s2') // no watcher callback ran: the file answered
    expect(stats().pages).toBe(before.pages)
    await watcher.flush()
    expect(page()).toEqual(fromFile())
    expect(stats().pages).toBe(before.pages + 1)
    // the store's own commit wakes the watcher as it lands (onLocalChange): the next page is current
    await store.setTitle('s2', 'Own title')
    expect(page().items[0]!.title).toBe('Own title')
    expect(stats().pages).toBe(before.pages + 2)
    expect(page()).toEqual(fromFile())
  })

  it('a page past the first, a filter or another order reads the file', async () => {
    page()
    await watcher.flush()
    const before = stats()
    const first = page()
    store.listSessions({ limit: LIMIT, cursor: first.nextCursor })
    store.listSessions({ limit: LIMIT, sources: ['cli'] })
    store.listSessions({ limit: LIMIT, sort: 'title' })
    expect(stats().pages).toBe(before.pages + 1)
    expect(first.nextCursor).toBe(fromFile().nextCursor)
  })
})

describe("on an older upstream home (v21), read through the store's shim", () => {
  const reopen = (path: string) => {
    watcher.stop()
    store.close()
    other.close()
    store = new SessionStore(path, { profile: 'default' })
    watcher = new SessionWatcher(store, () => undefined).start()
    other = new Database(store.path)
  }

  it('in rollback-journal mode (no WAL frames to say what changed) every page reads the file', async () => {
    reopen(olderAndNewerV21Home(tempDir()))
    page()
    await watcher.flush()
    other.prepare("UPDATE sessions SET title = 'Named' WHERE id = 'newer'").run()
    await watcher.flush()
    expect(page().items[0]!.title).toBe('Named')
    expect(stats().pages).toBe(0)
  })

  it('in WAL mode, follows a foreign append and rename', async () => {
    const path = olderAndNewerV21Home(tempDir())
    const wal = new Database(path)
    wal.pragma('journal_mode = WAL')
    wal.close()
    reopen(path)
    expect(page().items.map((s) => s.id)).toEqual(['newer', 'old'])
    await afterForeign(() => {
      other
        .prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)')
        .run('old', 'user', 'back again', Math.floor(Date.now() / 1000) + 60)
      other.prepare("UPDATE sessions SET message_count = message_count + 1 WHERE id = 'old'").run()
    })
    expect(page().items.map((s) => s.id)).toEqual(['old', 'newer'])
    await afterForeign(() => other.prepare("UPDATE sessions SET title = 'Named' WHERE id = 'newer'").run())
    expect(page().items[1]!.title).toBe('Named')
  })
})
