// Issue #22: upstream stores each session's whole assembled system prompt (~22 KB) ahead of almost every column the
// list shows, so a list page read from the table walks each row's overflow pages. A home Caduceus writes gets a
// covering index of the list's columns (schema/indices.ts LIST_INDEX); the page reads its rows, parents and chain
// roots through it, answers exactly as without it, and stays current — and the file intact — when upstream's own
// SessionDB (Python's SQLite) changes a session in another process.
import { execFile } from 'node:child_process'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { rawDb } from './test-fixtures/raw-db'
import { HAS_UPSTREAM } from './test-fixtures/spawn-writer'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { LIST_INDEX } from './schema/indices'

afterAll(cleanupTempDirs)

const at = (n: number) => 1_700_000_000 + n * 60
const PROMPT = 'You are Hermes Agent. Follow the tool guidance, the memory and the skills index. '.repeat(270)
const UPDATES = resolve(import.meta.dirname, '../../test/fixtures/upstream-session-updates.py')

async function seed(path: string): Promise<SessionStore> {
  const store = new SessionStore(path, { profile: 'default' })
  let t = 0
  for (let i = 0; i < 24; i++) {
    const id = `s${i}`
    await store.createSession(id, i % 3 ? 'cli' : 'telegram', { startedAt: at(++t) })
    await store.setSystemPrompt(id, `${PROMPT}${id}`)
    await store.appendMessage(id, { role: 'user', content: `opening of ${id}`, timestamp: at(t) + 1 })
    if (i % 2) await store.setTitle(id, `session ${i}`)
  }
  // a compression chain (its tip is listed with the root's title) and a delegate child (counted on its parent)
  await store.createSession('tip', 'cli', { parentSessionId: 's4', startedAt: at(++t) })
  await store.setSystemPrompt('tip', PROMPT)
  await store.appendMessage('tip', { role: 'user', content: 'continued', timestamp: at(t) + 1 })
  await store.endSession('s4', 'compression', at(t))
  await store.createSession('sub', 'delegate', {
    parentSessionId: 's7',
    startedAt: at(++t),
    modelConfig: { _delegate_from: 's7' }
  })
  await store.setArchived('s9', true)
  return store
}

/** The page statements the store prepares from here on, by their SQL text (the statement cache prepares each once). */
function capturePrepares(db: Database.Database): string[] {
  const seen: string[] = []
  const prepare = db.prepare.bind(db)
  db.prepare = ((sql: string) => {
    seen.push(sql)
    return prepare(sql)
  }) as typeof db.prepare
  return seen
}

describe("the list's covering index", () => {
  it.skipIf(!HAS_UPSTREAM)(
    "serves the page without reading the rows' prompts, answers as the table does, and follows upstream's writes",
    async () => {
      const path = join(tempDir(), 'state.db')
      const store = await seed(path)
      try {
        const db = rawDb(store)
        expect(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(LIST_INDEX)).toBeTruthy()
        const prepared = capturePrepares(db)
        const withIndex = await store.listSessions({ limit: 100 })
        const page = prepared.find((s) => s.startsWith('SELECT json_group_array'))!
        const binds = new Array((page.match(/\?/g) ?? []).length).fill(null)
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${page}`).all(...binds) as Array<{ detail: string }>).map(
          (r) => r.detail
        )
        for (const alias of ['s', 'par', 'rt'])
          expect(plan).toContain(
            `SEARCH ${alias} USING COVERING INDEX ${LIST_INDEX} (id=?)${alias === 's' ? '' : ' LEFT-JOIN'}`
          )
        expect(withIndex.items.find((s) => s.id === 'tip')).toMatchObject({ rootId: 's4', chainLength: 2 })
        expect(withIndex.items.find((s) => s.id === 's7')).toMatchObject({ childCount: 1 })

        // upstream's SessionDB changes s2 — prompt, message, title, end — each its own commit
        const out = await promisify(execFile)('/usr/bin/python3', [
          UPDATES,
          process.env.HERMES_UPSTREAM ?? '/work/upstream',
          path,
          's2'
        ])
        expect(JSON.parse(out.stdout).integrity).toEqual(['ok'])
        const after = await store.listSessions({ limit: 100 })
        expect(after.items[0]).toMatchObject({
          id: 's2',
          title: 'Renamed by upstream',
          messageCount: 2,
          endReason: 'user_exit'
        })

        // the same page read from the table: identical
        const other = new Database(path)
        other.exec(`DROP INDEX ${LIST_INDEX}`)
        other.close()
        expect(await store.listSessions({ limit: 100 })).toEqual(after)
      } finally {
        store.close()
      }
    }
  )
})
