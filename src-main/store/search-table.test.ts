/**
 * The README's "Search semantics" table, query by query, through `sessions.search`'s store path on a home whose
 * answers are known; every query here is a row of the README table and every row is tested.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StoreRegistry } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

const HOME: Record<string, string> = {
  heat: 'my heater makes a clicking noise',
  theater: 'we went to the theater',
  both: 'the heater in the theater broke',
  docker: 'docker compose up for the heater service',
  python: 'python script',
  tokyo: '東京で日本語を勉強したい',
  tower: '東京タワー is tall',
  emoji: 'ship it 🚀 now',
  path: 'edit src/main.ts please',
  cpp: 'I like C++ a lot'
}

/**
 * `read`: FTS5 has no meaning for part of what was typed; the result says how it was read (`fallback`).
 * `malformed` / `explained`: nothing searched, and the result says why in one line (`message`).
 */
type Row = [
  query: string,
  sessions: string[] | 'malformed' | 'explained',
  fallback: 'none' | 'trigram' | 'short' | 'read'
]
const ROWS: Row[] = [
  ['heater', ['both', 'docker', 'heat'], 'none'],
  ['heat', [], 'none'],
  ['heat*', ['both', 'docker', 'heat'], 'none'],
  ['heater AND theater', ['both'], 'none'],
  ['heater theater', ['both'], 'none'],
  ['heater OR python', ['both', 'docker', 'heat', 'python'], 'none'],
  ['heater NOT theater', ['docker', 'heat'], 'none'],
  ['heater -theater', ['both'], 'read'],
  ['python OR docker AND theater', ['python'], 'none'],
  ['(python OR docker) AND theater', [], 'none'],
  ['"the theater"', ['both', 'theater'], 'none'],
  ['src/main.ts', ['path'], 'none'],
  ['日本語', ['tokyo'], 'trigram'],
  ['C++', ['cpp'], 'trigram'],
  ['東京', ['tokyo', 'tower'], 'short'],
  ['🚀', ['emoji'], 'short'],
  ['東京 AND tall', ['tower'], 'short'],
  ['^my', ['heat'], 'none'],
  ['^"the heater"', ['both'], 'none'],
  ['^東京', ['tokyo', 'tower'], 'short'],
  ['^heater', [], 'none'],
  ['theater + broke', ['both'], 'none'],
  ['+heater', ['both', 'docker', 'heat'], 'read'],
  ['heater)', ['both', 'docker', 'heat'], 'read'],
  ['(docker', ['docker'], 'read'],
  ['(python OR docker) AND theater)', [], 'read'],
  ['NEAR(heater theater, 3)', ['both'], 'none'],
  ['NEAR(heater theater, 1)', [], 'none'],
  ['NEAR(heater theater)', ['both'], 'none'],
  ['NEAR(東京 tall)', ['tower'], 'read'],
  ['content:heater', ['both', 'docker', 'heat'], 'none'],
  ['-content:heater', [], 'none'],
  ['content:東京', ['tokyo', 'tower'], 'short'],
  ['src:main', ['path'], 'read'],
  ['heater OR', 'malformed', 'none'],
  ['NEAR(heater OR theater)', 'malformed', 'none'],
  ['{foo}:heater', 'malformed', 'none'],
  ['*', 'explained', 'none'],
  ['+', 'explained', 'none'],
  ['-', 'explained', 'none']
]

let reg: StoreRegistry
beforeAll(async () => {
  reg = new StoreRegistry(tempDir())
  const s = reg.get('default')
  for (const [id, content] of Object.entries(HOME)) {
    await s.createSession(id, 'cli')
    await s.appendMessage(id, { role: 'user', content })
  }
})
afterAll(() => {
  reg.closeAll()
  cleanupTempDirs()
})

describe('README search-semantics table', () => {
  it('lists exactly the queries tested here', () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## Search semantics'), readme.indexOf('## Memory providers'))
    const queries = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1])
    expect(queries).toEqual(ROWS.map((r) => r[0]))
  })

  it.each(ROWS)('%s', (query, want, fallback) => {
    const r = reg.searchAll({ query, limit: 50 })
    if (want === 'malformed' || want === 'explained') {
      expect(r.hits).toEqual([])
      expect(r.message).toMatch(want === 'malformed' ? /^Search query is malformed: / : /^[^\n]{20,}$/)
      return
    }
    expect(r.sessions!.map((g) => g.sessionId).sort()).toEqual(want)
    expect([...new Set(r.hits.map((h) => h.sessionId))].sort()).toEqual(want)
    // a `^` query that finds nothing says what ^ means, never a bare empty list
    if (query.startsWith('^')) expect(r.message).toEqual(want.length ? undefined : expect.stringMatching(/start/))
    if (fallback === 'none') expect(r.fallback).toBeUndefined()
    else if (fallback === 'read') expect(r.fallback).toMatch(/read/)
    // a home Caduceus wrote: its short-text index answers (short-index.test.ts has the never-written home's scan)
    else expect(r.fallback).toContain(fallback === 'short' ? 'short-text index' : 'trigram index')
  })
})
