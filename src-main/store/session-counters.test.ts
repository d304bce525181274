import { execFileSync } from 'node:child_process'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { makeHome } from './test-fixtures/homes'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

afterAll(cleanupTempDirs)
let store: SessionStore
beforeEach(() => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
})
afterEach(() => store.close())

describe('sessionCounters (the agent-cache guard read)', () => {
  it('matches getSession for message_count and ended_at, through appends and end/reopen', async () => {
    await store.createSession('s', 'cli', { systemPrompt: 'a long system prompt '.repeat(200) })
    const same = () => {
      const row = store.getSession('s')!
      expect(store.sessionCounters('s')).toEqual({
        messageCount: row.messageCount,
        endedAt: row.endedAt,
        rewindCount: 0
      })
    }
    same()
    await store.appendMessages('s', [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' }
    ])
    expect(store.sessionCounters('s')).toEqual({ messageCount: 2, endedAt: null, rewindCount: 0 })
    same()
    await store.endSession('s', 'cli_close', 123)
    expect(store.sessionCounters('s')).toEqual({ messageCount: 2, endedAt: 123, rewindCount: 0 })
    await store.reopenSession('s')
    same()
  })

  it('is null for unknown or invalid ids, never throwing', () => {
    expect(store.sessionCounters('missing')).toBeNull()
    expect(store.sessionCounters('')).toBeNull()
    expect(store.sessionCounters(undefined as unknown as string)).toBeNull()
    expect(store.sessionCounters(42 as unknown as string)).toBeNull()
  })

  it('sees a write made through another connection to the same file', async () => {
    await store.createSession('s', 'cli')
    expect(store.sessionCounters('s')!.messageCount).toBe(0)
    const other = new SessionStore(store.path, { profile: 'default' })
    try {
      await other.appendMessage('s', { role: 'user', content: 'from elsewhere' })
    } finally {
      other.close()
    }
    expect(store.sessionCounters('s')!.messageCount).toBe(1)
  })
})

describe('sessionCounters across a schema change made by another program', () => {
  it('reads rewind_count once another process added the column, without reopening', async () => {
    // an upstream v21 home (no rewind_count) with a session upstream wrote; Caduceus only reads it
    const path = makeHome(tempDir(), 21)
    const theirs = new Database(path)
    theirs.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)").run()
    theirs.close()
    const ours = new SessionStore(path, { profile: 'default' })
    try {
      expect(ours.sessionCounters('s')).toEqual({ messageCount: 0, endedAt: null, rewindCount: null })
      // an upgraded upstream migrates the file while we run, then rewinds the session twice
      const migrate = `
        const Database = require('better-sqlite3')
        const db = new Database(process.argv[1])
        db.exec('ALTER TABLE sessions ADD COLUMN rewind_count INTEGER NOT NULL DEFAULT 0')
        db.prepare("UPDATE sessions SET rewind_count = 2 WHERE id = 's'").run()
        db.close()`
      execFileSync(process.execPath, ['-e', migrate, ours.path], { cwd: process.cwd() })
      expect(ours.sessionCounters('s')).toEqual({ messageCount: 0, endedAt: null, rewindCount: 2 })
    } finally {
      ours.close()
    }
  })
})
