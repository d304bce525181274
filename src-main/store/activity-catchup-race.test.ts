/**
 * The list's activity index catching up while another program commits: a session created together with its first
 * message (one foreign commit) landing between the catch-up's read of new sessions and its read of new messages
 * must still be listed by that message's time. On a v21 home (no last_activity_at) the message is the only
 * activity there is, so a catch-up that passed it would list the session by its start time for good.
 */
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import type Database from 'better-sqlite3'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { olderAndNewerV21Home } from './test-fixtures/homes'
import { rawDb } from './test-fixtures/raw-db'
import { UPSTREAM_APPEND } from './test-fixtures/spawn-writer'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

afterAll(cleanupTempDirs)
const REPO = resolve(import.meta.dirname, '../..')
const opened: SessionStore[] = []
afterEach(() => {
  for (const s of opened.splice(0)) s.close()
})

// Another program: one commit with a session started a month ago and a message from now (upstream's write shape).
const IMPORT = `const Database = require('better-sqlite3')
const db = new Database(process.argv[1], { timeout: 10000 })
const now = Date.now() / 1000
db.transaction(() => {
  db.prepare("INSERT INTO sessions (id, source, started_at, message_count) VALUES ('imported', 'cli', ?, 1)").run(now - 30 * 86400)
  db.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('imported', 'user', 'hi', ?)").run(now + 100)
}).immediate()
db.close()`

const WAL = `const db = new (require('better-sqlite3'))(process.argv[1]); db.pragma('journal_mode = WAL'); db.close()`

/** Runs `foreign` (synchronously) right after the first read of new sessions by `db`'s next catch-up. */
function commitAfterNewSessionsRead(db: Database.Database, foreign: () => void): () => boolean {
  const prepare = db.prepare.bind(db)
  let fired = false
  db.prepare = ((sql: string) => {
    const s = prepare(sql)
    if (/FROM main\.sessions WHERE rowid >= \?/.test(sql)) {
      const all = s.all.bind(s)
      s.all = ((...args: unknown[]) => {
        const rows = all(...args)
        if (!fired) {
          fired = true
          foreign()
        }
        return rows
      }) as typeof s.all
    }
    return s
  }) as typeof db.prepare
  return () => fired
}

describe('activity index catch-up', () => {
  it('a session and its message committed by another program mid catch-up are listed by that message', async () => {
    const path = olderAndNewerV21Home(tempDir())
    // WAL, as upstream opens it: the writer commits while the catch-up's read is open (with a rollback journal it
    // would wait for that read to end, and this synchronous hook would never let it)
    execFileSync(process.execPath, ['-e', WAL, path], { cwd: REPO })
    const store = new SessionStore(path, { profile: 'default' })
    opened.push(store)
    const ids = () => store.listSessions({ limit: 10 }).items.map((s) => s.id)
    expect(ids()).toEqual(['newer', 'old'])
    const fired = commitAfterNewSessionsRead(rawDb(store), () =>
      execFileSync(process.execPath, ['-e', IMPORT, path], { cwd: REPO })
    )
    // a foreign write, so the next list catches up (and the import lands inside that catch-up)
    execFileSync(process.execPath, [UPSTREAM_APPEND, path, 'old', 'back again'])
    ids()
    expect(fired()).toBe(true)
    expect(ids()).toEqual(['imported', 'old', 'newer'])
    // what a fresh index (a restart) says
    const fresh = new SessionStore(path, { profile: 'default' })
    opened.push(fresh)
    expect(fresh.listSessions({ limit: 10 }).items.map((s) => s.id)).toEqual(['imported', 'old', 'newer'])
  }, 30_000)
})
