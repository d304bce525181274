/**
 * A state.db another program is creating at the moment this one opens it (several `caduceus run -z` on an empty
 * home): a foreign lock on a file that is empty or half made means "busy, try again", never "cannot be read".
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { openStateDb } from './open'
import { isBusy } from './write-queue'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

const HOLDER = resolve(import.meta.dirname, 'test-fixtures/creating-lock.mjs')
const open: Array<{ close(): void }> = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const c of open.splice(0)) c.close()
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill()
  cleanupTempDirs()
})

/** Starts the creator on `path`; resolves once it holds the lock. `release()` resolves when it has committed. */
async function creatorHolding(path: string, mode: 'empty' | 'partial') {
  const child = spawn(process.execPath, [HOLDER, path, mode], { cwd: import.meta.dirname, stdio: 'pipe' })
  children.push(child)
  const lines = createInterface({ input: child.stdout })
  const said = (word: string) => new Promise<void>((ok) => lines.on('line', (l) => l === word && ok()))
  const locked = said('locked')
  const released = said('released')
  await locked
  return {
    release: async () => {
      child.stdin.end()
      await released
    }
  }
}

const fileSessions = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare('SELECT id FROM sessions ORDER BY id').all()
  } finally {
    db.close()
  }
}

describe('opening a state.db another program is creating', () => {
  it('an empty file under a foreign lock opens as "no state.db yet"; the first write waits for the lock', async () => {
    const path = join(tempDir(), 'state.db')
    const creator = await creatorHolding(path, 'empty')
    const store = new SessionStore(path, { profile: 'default', lazyCreate: true })
    open.push(store)
    expect(store.listSessions().items).toEqual([])
    const write = store.createSession('s1', 'cli')
    await new Promise((r) => setTimeout(r, 150))
    expect(store.pendingWrites).toBe(1) // waiting off the loop, not failed
    await creator.release()
    await write
    expect(fileSessions(path)).toEqual([{ id: 's1' }])
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it('a half-made file under a foreign lock is busy, not unreadable; it opens once the creator commits', async () => {
    const path = join(tempDir(), 'state.db')
    const creator = await creatorHolding(path, 'partial')
    let err: unknown
    try {
      open.push(openStateDb(path).sqlite)
    } catch (e) {
      err = e
    }
    expect((err as Error).message).not.toMatch(/cannot be read/)
    expect(isBusy(err)).toBe(true)
    await creator.release()
    const store = new SessionStore(path, { profile: 'default', lazyCreate: true })
    open.push(store)
    await store.createSession('s1', 'cli')
    expect(fileSessions(path)).toEqual([{ id: 's1' }])
  })
})

describe('creating a missing state.db', () => {
  it('appears complete (schema, WAL, 0600) with no temp file left beside it', () => {
    const dir = tempDir()
    const path = join(dir, 'state.db')
    const store = new SessionStore(path, { profile: 'default', lazyCreate: true })
    open.push(store)
    store.prepareWrite()
    const db = new Database(path, { readonly: true })
    open.push(db)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.prepare('SELECT count(*) AS n FROM schema_version').get()).toEqual({ n: 1 })
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir).filter((f) => !f.startsWith('state.db'))).toEqual([])
  })

  it('keeps the file another program created after the open, never replacing it', async () => {
    const path = join(tempDir(), 'state.db')
    const store = new SessionStore(path, { profile: 'default', lazyCreate: true })
    open.push(store)
    const theirs = new Database(path) // another program wins the race to create it
    theirs.exec("CREATE TABLE theirs (v TEXT); INSERT INTO theirs VALUES ('kept')")
    const id = statSync(path).ino
    theirs.close()
    await store.createSession('s1', 'cli')
    expect(statSync(path).ino).toBe(id)
    const db = new Database(path, { readonly: true })
    open.push(db)
    expect(db.prepare('SELECT v FROM theirs').all()).toEqual([{ v: 'kept' }])
    expect(fileSessions(path)).toEqual([{ id: 's1' }])
  })

  it('clears the temp files a creator that crashed left behind, but not a fresh one', async () => {
    const dir = tempDir()
    const path = join(dir, 'state.db')
    const stale = join(dir, '.state.db.4242.0123456789ab.new')
    const fresh = join(dir, '.state.db.4343.ba9876543210.new')
    for (const f of [stale, `${stale}-wal`, fresh]) writeFileSync(f, '')
    const old = (Date.now() - 2 * 3_600_000) / 1000 // past create.ts's hour
    for (const f of [stale, `${stale}-wal`]) utimesSync(f, old, old)
    const store = new SessionStore(path, { profile: 'default', lazyCreate: true })
    open.push(store)
    await store.createSession('s1', 'cli')
    expect(
      readdirSync(dir)
        .filter((n) => n.endsWith('.new') || n.includes('.new-'))
        .sort()
    ).toEqual(['.state.db.4343.ba9876543210.new'])
  })
})
