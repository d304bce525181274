// Issue #22: a list page reads its compression chains (root, length, the root's title, archived flag and opening
// message) in its one statement, so a page of chain tips costs as many statements as a page of plain sessions —
// and each summary is the one the single-row read (summaryById: a walk and lookups per row) gives.
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SessionSummary } from '@shared/contract'
import { SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'
import { makeHome } from './test-fixtures/homes'
import type { ListOptions } from './read-list'

const at = (n: number) => 1_700_000_000 + n * 100
let chainHome: string
let loopHome: string
let v21Home: string

/** Chains of 2–6 segments, titled and untitled roots and tips, archived roots, a passed-over sibling, plain rows. */
async function seed(path: string): Promise<void> {
  const store = new SessionStore(path, { profile: 'default' })
  let t = 0
  for (let c = 0; c < 30; c++) {
    const length = 2 + (c % 5)
    let prev: string | null = null
    for (let k = 0; k < length; k++) {
      const id = `ch${c}-${k}`
      await store.createSession(id, c % 4 === 0 ? 'telegram' : 'cli', {
        startedAt: at(++t),
        ...(prev ? { parentSessionId: prev } : {})
      })
      await store.appendMessage(id, { role: 'user', content: `opening of ${id}`, timestamp: at(t) + 1 })
      if (k === 0 && c % 3 === 0) await store.setTitle(id, `chain ${c}`)
      if (k === length - 1 && c % 5 === 1) await store.setTitle(id, `tip of ${c}`)
      if (prev) await store.endSession(prev, 'compression', at(t))
      prev = id
    }
    if (c % 7 === 2) await store.setArchived(`ch${c}-0`, true)
    if (c % 11 === 3) await store.setArchived(prev!, true) // a tip archived alone (an older upstream's way)
  }
  for (let i = 0; i < 10; i++) {
    await store.createSession(`plain${i}`, 'cli', { startedAt: at(++t) })
    await store.appendMessage(`plain${i}`, { role: 'user', content: `plain ${i}`, timestamp: at(t) + 1 })
  }
  // A root whose chain went on through its later child: the earlier one (and what continues it) was passed over.
  await store.createSession('sib-root', 'cli', { startedAt: at(++t) })
  await store.appendMessage('sib-root', { role: 'user', content: 'sibling root opening', timestamp: at(t) + 1 })
  await store.createSession('sib-a', 'cli', { parentSessionId: 'sib-root', startedAt: at(++t) })
  await store.createSession('sib-b', 'cli', { parentSessionId: 'sib-root', startedAt: at(++t) })
  await store.appendMessage('sib-b', { role: 'user', content: 'chosen', timestamp: at(t) + 1 })
  await store.endSession('sib-root', 'compression', at(t))
  await store.endSession('sib-a', 'compression', at(++t))
  await store.createSession('sib-a2', 'cli', { parentSessionId: 'sib-a', startedAt: at(++t) })
  store.close()
}

beforeAll(async () => {
  chainHome = join(tempDir(), 'state.db')
  loopHome = join(tempDir(), 'state.db')
  await seed(chainHome)
  await seed(loopHome)
  // A corrupt home: parent pointers that loop (upstream never writes one); the list's walk stops at its cap and the
  // row is read as pathFromRoot reads it.
  const store = new SessionStore(loopHome, { profile: 'default' })
  await store.createSession('loop-x', 'cli', { startedAt: at(900) })
  await store.createSession('loop-y', 'cli', { parentSessionId: 'loop-x', startedAt: at(901) })
  await store.createSession('loop-self', 'cli', { startedAt: at(902) })
  rawDb(store)
    .prepare(
      `UPDATE sessions SET end_reason = 'compression', ended_at = started_at,
         parent_session_id = CASE id WHEN 'loop-x' THEN 'loop-y' WHEN 'loop-self' THEN 'loop-self' ELSE parent_session_id END
       WHERE id LIKE 'loop-%'`
    )
    .run()
  store.close()

  // An older upstream's home (v21: no archived flag, no last_activity_at; read through the shim), chains of 2–4.
  v21Home = makeHome(tempDir(), 21)
  const raw = new Database(v21Home)
  const session = raw.prepare(
    'INSERT INTO sessions (id, source, parent_session_id, started_at, ended_at, end_reason, title) VALUES (?, ?, ?, ?, ?, ?, ?)'
  )
  const message = raw.prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)`)
  for (let c = 0, t = 0; c < 20; c++) {
    const length = 2 + (c % 3)
    for (let k = 0; k < length; k++) {
      const last = k === length - 1
      t++
      const title = (k === 0 && c % 2 === 0) || (last && c % 5 === 3) ? `v21 ${c}.${k}` : null
      session.run(
        `v${c}-${k}`,
        'cli',
        k ? `v${c}-${k - 1}` : null,
        at(t),
        last ? null : at(t + 1),
        last ? null : 'compression',
        title
      )
      message.run(`v${c}-${k}`, `v21 opening ${c}.${k}`, at(t) + 1)
    }
  }
  raw.close()
})
afterAll(cleanupTempDirs)

/** A store on `path` whose every statement run (get, all, run, iterate) is counted, from its first one on. */
function counted(path: string): { store: SessionStore; count: () => number } {
  const store = new SessionStore(path, { profile: 'default' })
  const db = rawDb(store)
  let n = 0
  const prepare = db.prepare.bind(db)
  db.prepare = ((sql: string) => {
    const st = prepare(sql)
    for (const m of ['get', 'all', 'run', 'iterate'] as const) {
      const run = st[m].bind(st) as (...a: unknown[]) => unknown
      ;(st as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
        n++
        return run(...a)
      }
    }
    return st
  }) as Database.Database['prepare']
  return { store, count: () => n }
}

const FILTERS: ListOptions[] = [{}, { archived: 'include' }, { archived: 'only' }, { includeChildren: true }]

describe('a list page of compression chains', () => {
  it.each([
    ['a home of chains', () => chainHome, 2],
    ["an older upstream's (v21) home", () => v21Home, -1]
  ])('on %s, costs as many statements as a page without chains, whatever the page holds', (_, home, archived) => {
    const { store, count } = counted(home())
    for (const q of FILTERS) {
      store.listSessions({ ...q, limit: 200 }) // the list index learns the pages' first messages once
      const statements = (limit: number) => {
        const before = count()
        const page = store.listSessions({ ...q, limit })
        return { n: count() - before, chains: page.items.filter((s) => s.chainLength > 1).length }
      }
      const one = statements(1)
      const all = statements(200)
      expect(all.chains).toBeGreaterThan(q.archived === 'only' ? archived : 15)
      expect([q, all.n]).toEqual([q, one.n])
      expect(all.n).toBeLessThanOrEqual(2)
    }
    store.close()
  })

  it.each([
    ['a home of chains', () => chainHome],
    ['a home whose parent pointers loop', () => loopHome],
    ["an older upstream's (v21) home", () => v21Home]
  ])('on %s, gives each row the summary a single-row read gives', (_, home) => {
    const store = new SessionStore(home(), { profile: 'default' })
    let chains = 0
    for (const q of FILTERS) {
      let cursor: string | null = null
      do {
        const page = store.listSessions({ ...q, limit: 7, cursor })
        for (const s of page.items) {
          const one = store.summary(s.id) as SessionSummary
          expect({ ...s, lastActiveAt: 0 }).toEqual({ ...one, lastActiveAt: 0 })
          if (s.chainLength > 1) chains++
        }
        cursor = page.nextCursor
      } while (cursor)
    }
    expect(chains).toBeGreaterThan(30)
    store.close()
  })

  it('reads a chain as the filter walks it: a passed-over sibling is its own root; a loop as far as it first repeats', () => {
    const store = new SessionStore(loopHome, { profile: 'default' })
    const rows = new Map(store.listSessions({ includeChildren: true, limit: 500 }).items.map((s) => [s.id, s]))
    const chainOf = (id: string) => [rows.get(id)?.rootId, rows.get(id)?.chainLength]
    expect(chainOf('sib-a2')).toEqual(['sib-root', 3])
    // sib-a, ended by compression, is the child sib-root's chain goes on through (upstream's pick); sib-b was passed over
    expect(chainOf('sib-b')).toEqual(['sib-b', 1])
    expect(chainOf('ch4-5')).toEqual(['ch4-0', 6])
    expect(chainOf('loop-x')).toEqual(['loop-y', 2])
    expect(chainOf('loop-y')).toEqual(['loop-x', 2])
    expect(chainOf('loop-self')).toEqual(['loop-self', 1])
    store.close()
  })
})
