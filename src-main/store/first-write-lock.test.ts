/**
 * Issue 21 item 3: the first write into a home only upstream wrote (golden v21 data) meets a foreign write lock.
 * While it waits, and after it gives up, readers see exactly what they saw before (the read views stay); the
 * file is untouched until a write commits; the next write tries again and succeeds.
 */
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

const GOLDEN = resolve(import.meta.dirname, '../../test/fixtures/upstream/v21-two-profiles/state.db')
const SID = '20260101_090000_aa01'
const open: Array<{ close(): void }> = []
afterEach(() => {
  for (const c of open.splice(0)) c.close()
  cleanupTempDirs()
})

const fileSchema = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()
  } finally {
    db.close()
  }
}

describe('a first write that meets a foreign lock', () => {
  it('changes nothing readers see while it waits or after it gives up; the next write succeeds', async () => {
    const path = join(tempDir(), 'state.db')
    copyFileSync(GOLDEN, path)
    const schema = fileSchema(path)
    const store = new SessionStore(path, { profile: 'default', lazyCreate: true })
    open.push(store)
    const read = () => ({
      page: store.getMessages({ sessionId: SID }).items.map((m) => m.content),
      list: store.listSessions().items.map((s) => s.id),
      cost: store.getSessionDetail(SID)?.summary.id
    })
    const before = read()
    expect(before.page.length).toBe(4)
    expect(before.cost).toBe(SID)

    const other = new Database(path)
    open.push(other)
    other.exec('BEGIN IMMEDIATE')
    store.writeRetryMs = 400
    const write = store.appendMessage(SID, { role: 'user', content: 'written under a lock' })
    write.catch(() => undefined)
    await new Promise((r) => setTimeout(r, 100))
    expect(store.pendingWrites).toBe(1)
    expect(read()).toEqual(before) // waiting: no "no such column" for the reads
    await expect(write).rejects.toThrow(/database of profile 'default' is locked by another program/)
    expect(read()).toEqual(before) // given up: still the same
    other.exec('ROLLBACK')
    expect(fileSchema(path)).toEqual(schema) // nothing reached the file

    await store.appendMessage(SID, { role: 'user', content: 'written after the lock' })
    const after = read()
    expect(after.page).toEqual([...before.page, 'written after the lock'])
    expect([...after.list].sort()).toEqual([...before.list].sort())
  })
})

describe('a first write whose switch to WAL meets a foreign lock', () => {
  it('is no reason to give WAL up: nothing is reported, and the write that gets the lock switches', async () => {
    const path = join(tempDir(), 'state.db')
    copyFileSync(GOLDEN, path)
    const raw = new Database(path)
    raw.pragma('journal_mode = DELETE')
    raw.close()
    // Another process holds the write lock (rollback journal) until its stdin closes.
    const holder = spawn(process.execPath, [resolve(import.meta.dirname, 'test-fixtures/hold-lock.mjs'), path, '0'])
    open.push({ close: () => holder.exitCode === null && holder.kill() })
    const said = (word: string) =>
      new Promise<void>((ok) => createInterface({ input: holder.stdout }).on('line', (l) => l === word && ok()))
    const released = said('released')
    await said('locked')
    const notices: string[] = []
    const store = new SessionStore(path, {
      profile: 'default',
      lazyCreate: true,
      onJournalNotice: (m) => notices.push(m)
    })
    open.push(store)
    const write = store.appendMessage(SID, { role: 'user', content: 'written once the lock is gone' })
    await new Promise((r) => setTimeout(r, 100))
    expect(store.pendingWrites).toBe(1)
    holder.stdin.end()
    await released
    await write
    expect(notices).toEqual([])
    const file = new Database(path, { readonly: true })
    open.push(file)
    expect(file.pragma('journal_mode', { simple: true })).toBe('wal')
  })
})
