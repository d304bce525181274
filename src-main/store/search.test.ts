import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SearchHit } from '@shared/contract'
import { SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'

let store: SessionStore
beforeAll(async () => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'work' })
  await store.createSession('s1', 'cli')
  await store.setTitle('s1', 'Deploy notes')
  await store.appendMessages('s1', [
    { role: 'user', content: 'How do we deploy the billing service to production?' },
    { role: 'assistant', content: 'Run the deploy pipeline, then watch the dashboards.' },
    { role: 'tool', content: 'x'.repeat(9000) + ' needleinlongtool', toolName: 'terminal', toolCallId: 'c' }
  ])
  await store.createSession('s2', 'cli')
  await store.appendMessage('s2', { role: 'user', content: 'Deployment checklist for "blue/green" rollouts' })
})
afterAll(() => {
  store.close()
  cleanupTempDirs()
})

const ids = (q: string) =>
  store
    .search({ query: q })
    .map((h) => h.sessionId)
    .sort()

describe('FTS search', () => {
  it('finds words, phrases and prefixes, with highlighted snippet parts', () => {
    expect(ids('billing')).toEqual(['s1'])
    expect(ids('deploy*')).toEqual(['s1', 's1', 's2'])
    expect(ids('"deploy pipeline"')).toEqual(['s1'])
    const hit = store.search({ query: 'billing' })[0]
    expect(SearchHit.parse(hit)).toMatchObject({ profile: 'work', sessionTitle: 'Deploy notes', role: 'user' })
    expect(hit.snippet.filter((p) => p.hit).map((p) => p.text.toLowerCase())).toEqual(['billing'])
    expect(hit.snippet.map((p) => p.text).join('')).toContain('deploy the billing service')
  })

  it('indexes only the first 8192 chars of tool output', () => {
    expect(ids('needleinlongtool')).toEqual([])
  })

  it('never throws: quotes, operators, unbalanced quotes, punctuation, 3,000 chars', () => {
    const nasty = [
      '"',
      '"unbalanced',
      'deploy "',
      'AND',
      'OR NOT',
      'NEAR(a b)',
      '*',
      '**',
      '-',
      '(',
      ')',
      ':',
      'col:deploy',
      'deploy AND',
      '""',
      '"" ""',
      '^deploy',
      "'; DROP TABLE messages; --",
      '\u0000',
      'x'.repeat(3000),
      'deploy '.repeat(500),
      '🚀 deploy'
    ]
    for (const q of nasty) {
      expect(() => store.search({ query: q }), q.slice(0, 30)).not.toThrow()
      expect(Array.isArray(store.search({ query: q }))).toBe(true)
    }
    expect(ids('deploy "')).toEqual(['s1', 's1']) // a word, as FTS5 reads it: "Deployment" is another word
    expect(ids('blue/green')).toEqual(['s2'])
    expect(ids('deploy '.repeat(500)).length).toBeGreaterThan(0)
    expect(store.search({ query: '' })).toEqual([])
    expect(store.search({ query: 42 as unknown as string })).toEqual([])
  })

  it('tolerates stray quotes and punctuation-only queries', () => {
    expect(ids('"billing')).toEqual(['s1']) // an unclosed phrase still searches
    expect(ids('billing"production')).toEqual(['s1']) // a quote inside a word splits it
    expect(ids('--- ***')).toEqual([])
  })

  it('a missing or foreign FTS table degrades to []', async () => {
    const other = new SessionStore(join(tempDir(), 'state.db'))
    await other.createSession('s', 'cli')
    rawDb(other).exec('DROP TABLE messages_fts')
    expect(other.search({ query: 'anything' })).toEqual([])
    other.close()
  })
})

describe('what the search leaves out, as the list does', () => {
  it("a tool's, kanban or one-shot run and a hidden session only when their source is asked for", async () => {
    const path = join(tempDir(), 'state.db')
    const s = new SessionStore(path, { profile: 'default' })
    try {
      for (const [id, source] of [
        ['person', 'cli'],
        ['task', 'tool'],
        ['worker', 'kanban'],
        ['once', 'oneshot'],
        ['hid', 'api']
      ] as const) {
        await s.createSession(id, source)
        await s.appendMessage(id, { role: 'user', content: `zephyr report from ${id}: 東京タワー` })
      }
      rawDb(s).prepare('UPDATE sessions SET hidden = 1 WHERE id = ?').run('hid')
      // every way a search reads its matches: the word index, the trigram index (3 CJK characters), a complete scan
      // (2), and a tree mixing them — the page's hits and every matching session's count alike
      for (const query of ['zephyr', '東京タ', '東京', 'zephyr AND 東京']) {
        const found = (filters?: Parameters<SessionStore['search']>[0]['filters']) => {
          const r = s.searchFull({ query, filters })
          return { hits: r.hits.map((h) => h.sessionId).sort(), counted: [...r.sessions.keys()].sort() }
        }
        const only = (ids: string[]) => ({ hits: ids, counted: ids })
        expect(found(), query).toEqual(only(['person']))
        expect(found({ sources: ['tool', 'kanban'] }), query).toEqual(only(['task', 'worker']))
        expect(found({ sources: ['api'] }), query).toEqual(only([]))
      }
      expect(s.listSessions({}).items.map((r) => r.id)).toEqual(['person'])
      // hundreds of matching sessions (the filter reads the sessions that fail it, not each match's): the same answer
      const db = rawDb(s)
      const addSession = db.prepare('INSERT INTO sessions (id, source, started_at, hidden) VALUES (?, ?, ?, ?)')
      const addMessage = db.prepare(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'zephyr again: 東京タワー', ?)"
      )
      const visible: string[] = ['person']
      const kanbanRuns: string[] = ['worker']
      db.transaction(() => {
        for (let i = 0; i < 320; i++) {
          const id = `many${String(i).padStart(3, '0')}`
          const source = i % 7 === 0 ? 'kanban' : 'cli'
          const hidden = i % 11 === 0 ? 1 : 0
          addSession.run(id, source, 1_700_000_000 + i, hidden)
          addMessage.run(id, 1_700_000_000 + i)
          if (!hidden) (source === 'cli' ? visible : kanbanRuns).push(id)
        }
      })()
      // and messages whose session row is gone (another program's delete, foreign keys off): in no session's count
      db.pragma('foreign_keys = OFF')
      try {
        for (let i = 0; i < 3; i++) addMessage.run(`gone${i}`, 1_700_001_000 + i)
      } finally {
        db.pragma('foreign_keys = ON')
      }
      for (const query of ['zephyr', '東京タ', '東京', 'zephyr AND 東京']) {
        const r = s.searchFull({ query, limit: 200 })
        expect([...r.sessions.keys()].sort(), query).toEqual(visible.sort())
        expect(new Set(r.hits.map((h) => h.sessionId)).size, query).toBe(200)
        expect(
          r.hits.every((h) => visible.includes(h.sessionId)),
          query
        ).toBe(true)
        const kanban = s.searchFull({ query, filters: { sources: ['kanban'] } })
        expect([...kanban.sessions.keys()].sort(), query).toEqual(kanbanRuns.sort())
      }
    } finally {
      s.close()
    }
  })
})
