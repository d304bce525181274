/**
 * How the list index learns of deleted messages (activity-index.ts): through the FTS index's row count, and only
 * where that index holds every message. Two connections to one file, as the host and another program: the host's
 * catch-up after the other's commit is counted in index rows it rewrote (`total_changes()` of the host's connection).
 */
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { makeHome, upstream, type HomeVersion } from './test-fixtures/homes'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { refreshActivity } from './activity-index'

afterAll(cleanupTempDirs)

const SESSIONS = 40

function home(version: HomeVersion, dropFtsInsert = false) {
  const path = makeHome(tempDir(), version)
  const other = new Database(path)
  const up = upstream(other, version)
  // An index that does not hold every message (its insert trigger gone, as a filtered or hand-made index misses rows)
  if (dropFtsInsert) other.exec('DROP TRIGGER messages_fts_insert')
  for (let i = 0; i < SESSIONS; i++) {
    up.createSession(`s${i}`)
    up.append(`s${i}`, 'user', `question ${i}`)
    up.append(`s${i}`, 'assistant', `answer ${i}`)
  }
  const host = new Database(path)
  const order = () =>
    host
      .prepare(`SELECT id FROM ${refreshActivity(host)} ORDER BY act DESC, started DESC, id DESC`)
      .pluck()
      .all()
  /** Index rows the host's catch-up rewrote after the other program's write. */
  const rewritten = (write: () => void) => {
    refreshActivity(host)
    write()
    const before = host.prepare('SELECT total_changes()').pluck().get() as number
    refreshActivity(host)
    return (host.prepare('SELECT total_changes()').pluck().get() as number) - before
  }
  return { other, up, host, order, rewritten }
}

describe('messages deleted where nothing else says so', () => {
  for (const version of [21, 30] as const)
    it(`v${version}: a deep session's cleared messages move it; an append re-reads only its own session`, () => {
      const { other, up, host, order, rewritten } = home(version)
      // s0's messages are dated an hour ahead: first in the list, though its rows are the oldest (not the newest ids)
      other.prepare("UPDATE messages SET timestamp = timestamp + 3600 WHERE session_id = 's0'").run()
      expect(order()[0]).toBe('s0')
      expect(rewritten(() => up.append('s5', 'user', 'one more'))).toBeLessThanOrEqual(3)
      // upstream's clear_messages on s0: nothing newer is written, no newest row goes; only the count says so
      const all = rewritten(() => {
        other.prepare("DELETE FROM messages WHERE session_id = 's0'").run()
        other.prepare("UPDATE sessions SET message_count = 0 WHERE id = 's0'").run()
      })
      expect(all).toBeGreaterThanOrEqual(SESSIONS)
      // no message left: s0 goes by its start, the earliest of all
      expect(order().at(-1)).toBe('s0')
      host.close()
      other.close()
    })

  it('an FTS index missing messages is not read as deletes: appends never re-read every session', () => {
    const { up, host, other, rewritten } = home(30, true)
    for (let i = 0; i < 5; i++) expect(rewritten(() => up.append(`s${i}`, 'user', 'more'))).toBeLessThanOrEqual(3)
    host.close()
    other.close()
  })
})
