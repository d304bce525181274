/** The off-loop write path (issue 10 item 2): a second connection on the same file holds the write lock. */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'

let store: SessionStore
let other: Database.Database
beforeEach(async () => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
  await store.createSession('s', 'cli')
  other = new Database(store.path)
})
afterEach(() => {
  if (other.inTransaction) other.exec('ROLLBACK')
  other.close()
  store.close()
  cleanupTempDirs()
})

const contents = () =>
  (
    rawDb(store).prepare("SELECT content FROM messages WHERE session_id = 's' ORDER BY id").all() as Array<{
      content: string
    }>
  ).map((r) => r.content)

describe('writes under a foreign lock', () => {
  it('wait off the event loop, then commit in call order', async () => {
    other.exec('BEGIN IMMEDIATE')
    const writes = ['a', 'b', 'c'].map((c) => store.appendMessage('s', { role: 'user', content: c }))
    expect(store.pendingWrites).toBe(3)
    let ticks = 0
    const timer = setInterval(() => ticks++, 5)
    await new Promise((r) => setTimeout(r, 150))
    expect(contents()).toEqual([]) // nothing could be written yet …
    expect(store.getSession('s')?.id).toBe('s') // … while reads still answer
    other.exec('COMMIT')
    const ids = await Promise.all(writes)
    clearInterval(timer)
    expect(ticks).toBeGreaterThan(3) // the event loop kept running while the writes waited
    expect(contents()).toEqual(['a', 'b', 'c'])
    expect(ids).toEqual([...ids].sort((x, y) => x - y))
  })

  it('an uncontended write with nothing queued is visible as soon as the call returns', () => {
    void store.appendMessage('s', { role: 'user', content: 'now' })
    expect(contents()).toEqual(['now'])
  })

  it('gives up after the retry budget with a clear error, writes nothing, and the next write goes through', async () => {
    store.writeRetryMs = 200
    other.exec('BEGIN IMMEDIATE')
    await expect(store.appendMessage('s', { role: 'user', content: 'late' })).rejects.toMatchObject({
      name: 'WriteBusyError'
    })
    await expect(store.appendMessage('s', { role: 'user', content: 'late' })).rejects.toThrow(
      /locked by another program/
    )
    other.exec('COMMIT')
    expect(contents()).toEqual([])
    await store.appendMessage('s', { role: 'user', content: 'after' })
    expect(contents()).toEqual(['after'])
  })

  it('a nested write is a savepoint of the outer one: its error rolls the whole write back', async () => {
    await expect(
      store.write(() => {
        void store.appendMessage('s', { role: 'user', content: 'inner' })
        void store.appendMessage('missing', { role: 'user', content: 'x' }) // throws synchronously into the outer write
      })
    ).rejects.toThrow(/Unknown session/)
    expect(contents()).toEqual([])
  })
})
