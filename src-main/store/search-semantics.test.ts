/**
 * Search semantics through the contract request users make (`sessions.search`), on a fresh (v30) home and on
 * an upstream v21 home (legacy inline FTS + its own trigram table).
 */
import { copyFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { SearchResult } from '@shared/contract'
import { StoreRegistry } from './index'
import { makeHome, upstream } from './test-fixtures/homes'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'
import { txDb } from './write-tx'
import { shortIndexStep } from './short-index'

afterAll(cleanupTempDirs)

async function fill(root: string): Promise<StoreRegistry> {
  const reg = new StoreRegistry(root)
  const s = reg.get('default')
  await s.createSession('jp', 'cli', { title: 'Trip planning' })
  await s.appendMessages('jp', [
    { role: 'user', content: '東京で日本語を勉強したい' },
    { role: 'assistant', content: 'The heater in the 数据库 room is fine.' }
  ])
  await s.createSession('heat', 'cli', { title: 'Boiler diary' })
  const [, rewound, compacted] = await s.appendMessages('heat', [
    { role: 'user', content: 'my heater makes a clicking noise' },
    { role: 'assistant', content: 'rewound answer about the radiator valve' },
    { role: 'assistant', content: 'compacted summary mentions the radiator valve' },
    { role: 'assistant', content: 'Bleed the radiator, then check the heater pressure gauge.' }
  ])
  await s.write((tx) => {
    const db = txDb(tx)
    db.prepare('UPDATE messages SET active = 0, compacted = 0 WHERE id = ?').run(rewound)
    db.prepare('UPDATE messages SET active = 0, compacted = 1 WHERE id = ?').run(compacted)
  })
  await s.createSession('other', 'cli', { title: 'Groceries' })
  await s.appendMessage('other', { role: 'user', content: 'buy apples and pears, no heater parts' })
  return reg
}

const search = (reg: StoreRegistry, query: string): SearchResult => reg.searchAll({ query, limit: 50 })
const sessionsOf = (r: SearchResult) => [...new Set(r.hits.map((h) => h.sessionId))].sort()

function semantics(reg: StoreRegistry): void {
  // CJK: 2-character (scan) and 3-character (trigram) queries
  expect(sessionsOf(search(reg, '東京'))).toEqual(['jp'])
  expect(sessionsOf(search(reg, '日本語'))).toEqual(['jp'])
  expect(sessionsOf(search(reg, '数据库'))).toEqual(['jp'])
  // FTS5's words: "heat" is not "heater"; a prefix finds it
  expect(sessionsOf(search(reg, 'heat'))).toEqual([])
  expect(sessionsOf(search(reg, 'heat*'))).toEqual(['heat', 'jp', 'other'])
  // OR / NOT / phrase
  expect(sessionsOf(search(reg, 'apples OR clicking'))).toEqual(['heat', 'other'])
  expect(sessionsOf(search(reg, 'heater NOT apples'))).toEqual(['heat', 'jp'])
  expect(sessionsOf(search(reg, '"pressure gauge"'))).toEqual(['heat'])
  expect(sessionsOf(search(reg, '"gauge pressure"'))).toEqual([])
  // `^` (FTS5's initial token): at the start of the message, in every index and scan, case-insensitive
  expect(sessionsOf(search(reg, '^東京'))).toEqual(['jp'])
  expect(sessionsOf(search(reg, '^日本語'))).toEqual([])
  expect(sessionsOf(search(reg, '^bleed'))).toEqual(['heat'])
  expect(sessionsOf(search(reg, '^heater'))).toEqual([])
  // lower-case or/not are plain words, not operators
  expect(search(reg, 'heater not').message).toBeUndefined()
  // a title hit lists the session
  const t = search(reg, 'boiler')
  expect(t.hits).toEqual([])
  expect(t.sessions).toEqual([
    { profile: 'default', sessionId: 'heat', title: 'Boiler diary', hits: 0, titleMatch: true }
  ])
  // rewound hidden, compacted shown
  const valve = search(reg, 'radiator valve')
  expect(valve.hits.map((h) => h.snippet.map((p) => p.text).join(''))).toEqual([
    expect.stringContaining('compacted summary')
  ])
  // each snippet from its own row: the assistant hit shows the assistant's text
  const heater = search(reg, 'heater')
  for (const h of heater.hits) {
    const own = rawDb(reg.get('default')).prepare('SELECT content FROM messages WHERE id = ?').get(h.messageId) as {
      content: string
    }
    expect(own.content).toContain(
      h.snippet
        .map((p) => p.text)
        .join('')
        .replace(/…/g, '')
        .trim()
    )
    expect(h.snippet.some((p) => p.hit && p.text.toLowerCase() === 'heater')).toBe(true)
  }
  const grouped = heater.sessions!.find((g) => g.sessionId === 'heat')!
  expect(grouped.hits).toBe(heater.hits.filter((h) => h.sessionId === 'heat').length)
  // malformed queries answer with a message, never throw
  for (const q of ['OR', 'heater OR', 'NOT heater', 'heater AND AND pears']) {
    const r = search(reg, q)
    expect(r.hits, q).toEqual([])
    expect(r.message, q).toMatch(/malformed|besides OR/)
  }
  expect(search(reg, 'x'.repeat(5000)).hits).toEqual([])
  // past 32 terms the rest is left out, and the result says so (never a silent answer to part of the query)
  const long = search(reg, `heater ${Array.from({ length: 40 }, (_, i) => `w${i}`).join(' OR ')}`)
  expect(long.fallback).toMatch(/^Only the first 32 terms were searched/)
}

describe('search semantics', () => {
  it('on a fresh (v30) home', async () => {
    const reg = await fill(tempDir())
    semantics(reg)
    // FTS5's column filters over a v30 home's three word-index columns, also where a substring source answers
    const s = reg.get('default')
    await s.createSession('tools', 'cli')
    await s.appendMessages('tools', [
      { role: 'assistant', content: 'checking', toolCalls: [{ id: 'c1', name: 'thermostat', arguments: '{}' }] },
      { role: 'tool', content: '東京 is 21°C', toolCallId: 'c1', toolName: 'thermostat' }
    ])
    expect(sessionsOf(search(reg, 'tool_calls:thermostat'))).toEqual(['tools'])
    expect(sessionsOf(search(reg, 'content:thermostat'))).toEqual([])
    expect(sessionsOf(search(reg, '{tool_name tool_calls}:thermostat'))).toEqual(['tools'])
    expect(sessionsOf(search(reg, 'content:東京'))).toEqual(['jp', 'tools'])
    expect(sessionsOf(search(reg, 'tool_name:東京'))).toEqual([])
    expect(sessionsOf(search(reg, 'content:°C'))).toEqual(['tools'])
    expect(sessionsOf(search(reg, 'NEAR(東京 21)'))).toEqual(['tools'])
    // a short term beside one the trigram index cannot take (a column it lacks): the one scan reads both, and
    // OR never finds less than its sides (the short term went to the trigram index, which holds no 2 characters)
    const either = search(reg, '東京 OR tool_calls:東京タワー')
    expect(sessionsOf(either)).toEqual(['jp', 'tools'])
    expect(either.fallback).toBe(
      'Not a word search: complete scan for 東京タワー (a column the trigram index does not have); complete scan for 東京 (read with the rest of the query, which is scanned).'
    )
    expect(sessionsOf(search(reg, '°C OR {tool_calls}:東京タワー'))).toEqual(['tools'])
    reg.closeAll()
  })

  it('on an upstream v21 home (legacy inline FTS), after upstream wrote too', async () => {
    const root = tempDir()
    const path = makeHome(root, 21)
    const raw = new Database(path)
    upstream(raw, 21).createSession('up')
    upstream(raw, 21).append('up', 'user', 'upstream wrote 東京タワー here')
    raw.close()
    const reg = await fill(root)
    expect(sessionsOf(search(reg, '東京'))).toEqual(['jp', 'up'])
    await reg.get('default').deleteSession('up')
    semantics(reg)
    // FTS5's column filters name this home's own columns: upstream v21 indexes one, content (text, tool name and
    // calls together), so content: filters nothing and tool_name: is no column here (read as text, and said)
    expect(sessionsOf(search(reg, 'content:heater'))).toEqual(['heat', 'jp', 'other'])
    expect(search(reg, 'content:heater').fallback).toBeUndefined()
    expect(sessionsOf(search(reg, '-content:heater'))).toEqual([])
    expect(search(reg, 'tool_name:heater').fallback).toMatch(
      /^tool_name: names no column .*\(it has content\): read as text\./
    )
    expect(sessionsOf(search(reg, 'NEAR(heater pressure, 3)'))).toEqual(['heat'])
    reg.closeAll()
  })
})

/**
 * Completeness on homes upstream's code wrote (scripts/golden/search_complete.py): every term, short or long, finds
 * exactly the rows whose indexed text holds it — upstream's own FTS answers for the rows its trigram index holds,
 * and the rows that index leaves out (v30: tool output, cron, subagent and delegated sessions) found all the same —
 * so a longer term never finds more or less than a substring check says. The truth is that check, in plain JS, over
 * the text each home's own index holds: content and tool name (v30), plus the tool calls (v21's inline indexes).
 */
describe('complete on homes upstream wrote', () => {
  const QUERIES: Array<[string, (text: string, toolName: string) => boolean, v30only?: true]> = [
    ['北京', (t) => t.includes('北京')],
    ['北京大学', (t) => t.includes('北京大学')],
    ['北京大学的图书馆', (t) => t.includes('北京大学的图书馆')],
    ['テスト', (t) => t.includes('テスト')],
    ['テストケース', (t) => t.includes('テストケース')],
    ['テスト実行', (t) => t.includes('テスト実行')],
    ['$', (t) => t.includes('$')],
    ['$100', (t) => t.includes('$100')],
    ['🚀', (t) => t.includes('🚀')],
    ['🚀🚀', (t) => t.includes('🚀🚀')],
    ['C++', (t) => t.toLowerCase().includes('c++')],
    // a phrase with a space is matched in the joined text, as upstream's index holds it
    ['"🚀🚀 launch"', (t) => t.includes('🚀🚀 launch')],
    ['北京大学 OR テストケース', (t) => t.includes('北京大学') || t.includes('テストケース')],
    ['北京大学 NOT テスト', (t) => t.includes('北京大学') && !t.includes('テスト')],
    ['北京大学 テストケース', (t) => t.includes('北京大学') && t.includes('テストケース')],
    // plain as FTS5's word: not inside a run of letters of any script (東京タワーplain is one word)
    ['東京タワー AND plain', (t) => t.includes('東京タワー') && /(?<![\p{L}\p{N}])plain(?![\p{L}\p{N}])/iu.test(t)],
    ['$100 AND 北京', (t) => t.includes('$100') && t.includes('北京')],
    // a column filter the trigram index can apply: its left-out rows (here tool rows only) are read in that column
    // (v21's indexes have one column, content: tool_name: is read as text there)
    ['tool_name:テスト実行', (_, name) => name.includes('テスト実行'), true]
  ]
  const fixture = (name: string) => resolve(import.meta.dirname, '../../test/fixtures/upstream/search-complete', name)

  /** The text each row's session holds for the home's indexes: content and tool name, plus tool calls (v21). */
  function texts(path: string, calls: boolean): Array<[string, string, string]> {
    const db = new Database(path, { readonly: true })
    try {
      const rows = db
        .prepare('SELECT session_id AS s, content, tool_name AS name, tool_calls AS calls FROM messages')
        .all() as Array<{ s: string; content: string | null; name: string | null; calls: string | null }>
      return rows.map((r) => [
        r.s,
        [r.content ?? '', r.name ?? '', ...(calls ? [r.calls ?? ''] : [])].join(' '),
        r.name ?? ''
      ])
    } finally {
      db.close()
    }
  }
  /** Each query's matching sessions with their numbers of matching messages, by a substring check. */
  function truth(
    rows: Array<[string, string, string]>,
    q: (text: string, toolName: string) => boolean
  ): Record<string, number> {
    const out: Record<string, number> = {}
    for (const [s, text, name] of rows) if (q(text, name)) out[s] = (out[s] ?? 0) + 1
    return out
  }

  function check(reg: StoreRegistry, path: string, calls: boolean, via: RegExp): void {
    const rows = texts(path, calls)
    for (const [query, q, v30only] of QUERIES) {
      if (v30only && calls) continue
      const r = reg.searchAll({ query, limit: 200, filters: { includeChildren: true } })
      const found = Object.fromEntries((r.sessions ?? []).map((g) => [g.sessionId, g.hits]))
      expect(found, query).toEqual(truth(rows, q))
      expect(r.hits.length, query).toBe(Object.values(found).reduce((a, b) => a + b, 0))
      if (/^[\p{Script=Han}\p{Script=Katakana}]{3,}$/u.test(query)) expect(r.fallback, query).toMatch(via)
    }
    // which sessions a search lists is unchanged: delegated children only with the children filter
    const kids = reg.searchAll({ query: '北京', limit: 200, filters: { includeChildren: false } })
    expect(kids.sessions!.map((g) => g.sessionId)).not.toContain('s05')
    expect(Object.keys(truth(rows, (t) => t.includes('北京')))).toContain('s05')
  }

  it('v30: the rows its trigram index leaves out are found, by a scan or by the short-text index', async () => {
    const root = tempDir()
    const path = join(root, 'state.db')
    copyFileSync(fixture('v30.db'), path)
    const reg = new StoreRegistry(root)
    try {
      // never written by Caduceus: a complete scan of just those rows
      check(reg, path, false, /leaves out \(tool output, cron, subagent and delegated runs\) by a complete scan/)
      const s = reg.get('default')
      await s.write((tx) => shortIndexStep(txDb(tx), s.shape, { budgetMs: Number.POSITIVE_INFINITY }))
      check(reg, path, false, /leaves out .* by Caduceus's short-text index/)
      // another program's rows after the index's end: read by the scan of that tail
      const raw = new Database(path)
      raw
        .prepare(
          "INSERT INTO messages (session_id, role, content, tool_name, timestamp) VALUES ('s02', 'tool', '北京大学 テストケース $100', 'テスト実行', 1)"
        )
        .run()
      raw.close()
      check(reg, path, false, /leaves out .* by Caduceus's short-text index/)
    } finally {
      reg.closeAll()
    }
  })

  it('v21: a scan and the short-text index read the tool calls, as its indexes do', async () => {
    const root = tempDir()
    const path = join(root, 'state.db')
    copyFileSync(fixture('v21.db'), path)
    const reg = new StoreRegistry(root)
    try {
      check(reg, path, true, /trigram index/)
      const s = reg.get('default')
      await s.write((tx) => shortIndexStep(txDb(tx), s.shape, { budgetMs: Number.POSITIVE_INFINITY }))
      expect(reg.searchAll({ query: '$', limit: 5 }).fallback).toContain("Caduceus's short-text index")
      check(reg, path, true, /trigram index/)
    } finally {
      reg.closeAll()
    }
  })
})
