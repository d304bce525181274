/**
 * A read on a rollback-journal home while another process holds EXCLUSIVE (a real child, creating-lock.mjs): it is
 * tried again on timers — the event loop keeps running — and answers once the lock is gone; a lock that outlasts
 * the budget is refused as "locked by another program", never as an unreadable file.
 */
import { spawn } from 'node:child_process'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { readRetrying } from './read-retry'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

const open: Array<{ close(): void }> = []
afterEach(() => {
  for (const c of open.splice(0)) c.close()
  cleanupTempDirs()
})

async function deleteJournalStore() {
  const path = join(tempDir(), 'state.db')
  const store = new SessionStore(path, { profile: 'default', journalMode: () => 'delete' })
  open.push(store)
  await store.createSession('s1', 'cli')
  return { path, store }
}

/** Another process holding EXCLUSIVE on `path` until `release()`. */
async function holdExclusive(path: string) {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'test-fixtures/creating-lock.mjs'), path], {
    stdio: ['pipe', 'pipe', 'inherit']
  })
  const lines = createInterface({ input: child.stdout! })
  const seen = (want: string) => new Promise<void>((r) => lines.on('line', (l) => l === want && r()))
  const released = seen('released')
  await seen('locked')
  return {
    release: async () => {
      child.stdin!.end()
      await released
    }
  }
}

describe('readRetrying on a rollback-journal home another process holds', () => {
  it('waits off the event loop and answers once the lock is released', async () => {
    const { path, store } = await deleteJournalStore()
    const lock = await holdExclusive(path)
    expect(() => store.getSession('s1')).toThrow(/database is locked/) // busy_timeout 0: fails fast
    let ticks = 0
    const timer = setInterval(() => ticks++, 10)
    const read = readRetrying(() => store.getSession('s1'))
    await new Promise((r) => setTimeout(r, 300))
    await lock.release()
    const row = await read
    clearInterval(timer)
    expect(row?.source).toBe('cli')
    expect(ticks).toBeGreaterThanOrEqual(15) // the loop kept turning while the read waited
  })

  it('refuses a lock that outlasts the budget as locked by another program', async () => {
    const { path, store } = await deleteJournalStore()
    const lock = await holdExclusive(path)
    try {
      const err = await readRetrying(() => store.getSession('s1'), 300).catch((e: unknown) => e)
      expect(err).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/locked by another program/) })
      expect(String((err as Error).message)).not.toMatch(/cannot be read/)
    } finally {
      await lock.release()
    }
  })
})
