import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MessagePage, SessionDetail, SessionPage } from '@shared/contract'
import { SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'

let store: SessionStore
const at = (n: number) => 1_700_000_000 + n * 100

beforeAll(async () => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
  for (let i = 0; i < 25; i++) {
    const id = `s${String(i).padStart(2, '0')}`
    await store.createSession(id, i % 3 === 0 ? 'telegram' : 'cli', { startedAt: at(i) })
    await store.appendMessage(id, {
      role: 'user',
      content: `  question number ${i}\n with   spaces `,
      timestamp: at(i) + 1
    })
  }
  // chain: s00 → c1 → c2 (tip); activity of the tip is the newest of all
  await store.setTitle('s00', 'Chain root title')
  await store.endSession('s00', 'compression')
  await store.createSession('c1', 'cli', { parentSessionId: 's00', startedAt: at(30) })
  await store.endSession('c1', 'compression')
  await store.createSession('c2', 'cli', { parentSessionId: 'c1', startedAt: at(31) })
  await store.appendMessage('c2', { role: 'user', content: 'continued', timestamp: at(40) })
  await store.createSession('br', 'cli', {
    parentSessionId: 's05',
    modelConfig: { _branched_from: 's05' },
    startedAt: at(26)
  })
  await store.createSession('dg', 'delegate', {
    parentSessionId: 's05',
    modelConfig: { _delegate_from: 's05' },
    startedAt: at(27)
  })
  await store.setArchived('s01', true)
  rawDb(store).prepare("UPDATE sessions SET hidden = 1 WHERE id = 's02'").run()
})
afterAll(() => {
  store.close()
  cleanupTempDirs()
})

function all(q: Parameters<SessionStore['listSessions']>[0] = {}) {
  const out: string[] = []
  let cursor: string | null = null
  for (let i = 0; i < 100; i++) {
    const page: SessionPage = store.listSessions({ ...q, cursor })
    SessionPage.parse(page)
    out.push(...page.items.map((s) => s.id))
    cursor = page.nextCursor
    if (!cursor) break
  }
  return out
}

describe('listSessions', () => {
  it('projects a compression chain to one row (its tip), lists a branch, hides subagent runs, archived and hidden rows', () => {
    const ids = all({ limit: 7 })
    expect(ids[0]).toBe('c2')
    expect(ids).not.toContain('s00')
    expect(ids).not.toContain('c1')
    expect(ids).toContain('br') // a /branch is a conversation of its own: upstream lists it too
    expect(ids).not.toContain('dg')
    expect(ids).not.toContain('s01')
    expect(ids).not.toContain('s02')
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toHaveLength(24) // 25 roots - s00 (projected to c2) - s01 (archived) - s02 (hidden) + c2 + br
    const tip = store.listSessions({ limit: 1 }).items[0]
    expect(tip).toMatchObject({
      id: 'c2',
      rootId: 's00',
      chainLength: 3,
      kind: 'continuation',
      title: 'Chain root title'
    })
  })

  it('keyset pages are stable and ordered by last activity desc', () => {
    const paged = all({ limit: 4 })
    const single = store.listSessions({ limit: 500 }).items.map((s) => s.id)
    expect(paged).toEqual(single)
    const acts = store.listSessions({ limit: 500 }).items.map((s) => s.lastActiveAt)
    expect([...acts].sort((a, b) => b - a)).toEqual(acts)
  })

  it('filters: sources, archived only/include, from/to, idPrefix, includeChildren', () => {
    expect(all({ sources: ['telegram'] }).every((id) => Number(id.slice(1)) % 3 === 0)).toBe(true)
    expect(all({ archived: 'only' })).toEqual(['s01'])
    expect(all({ archived: 'include' })).toContain('s01')
    expect(all({ from: at(20), to: at(22) + 50 })).toEqual(['s22', 's21', 's20'])
    expect(all({ idPrefix: 's1' })).toHaveLength(10)
    // a compressed part is found by its own id, though the unfiltered list shows only its chain's tip
    expect(all({ idPrefix: 'c1' })).toEqual(['c1'])
    expect(all({ idPrefix: 's00' })).toEqual(['s00'])
    const withKids = all({ includeChildren: true })
    expect(withKids).toEqual(expect.arrayContaining(['br', 'dg']))
    expect(all({})).not.toContain('dg')
    expect(() => store.listSessions({ cursor: 'garbage' })).toThrow(/cursor/)
  })

  it('summaries carry preview, delegate childCount and money', () => {
    const s05 = store.summary('s05')!
    expect(s05).toMatchObject({
      preview: 'question number 5 with spaces',
      childCount: 1,
      kind: 'root',
      cost: { status: 'none', usd: 0 }
    })
    expect(store.summary('dg')).toMatchObject({ kind: 'delegate' })
    expect(store.summary('br')).toMatchObject({ kind: 'branch' })
    expect(store.summary('nope')).toBeNull()
  })
})

describe('list page rows', () => {
  it('each row equals the session read on its own (parent, kind, childCount, preview, chain title)', () => {
    const page = store.listSessions({ includeChildren: true, archived: 'include', limit: 500 })
    expect(page.items.length).toBeGreaterThan(20)
    for (const row of page.items) {
      const { lastActiveAt: _listed, ...own } = store.summary(row.id)!
      const { lastActiveAt, ...listed } = row
      expect(listed, row.id).toEqual(own)
      expect(lastActiveAt).toBeGreaterThanOrEqual(own.startedAt)
    }
    expect(page.items.find((s) => s.id === 's05')).toMatchObject({
      childCount: 1,
      preview: 'question number 5 with spaces'
    })
    expect(page.items.find((s) => s.id === 'c2')).toMatchObject({ kind: 'continuation', title: 'Chain root title' })
  })

  it('another connection’s writes reorder the next page; a lost activity table is rebuilt', () => {
    const other = new Database(store.path)
    try {
      const top = () => store.listSessions({ limit: 3 }).items.map((s) => s.id)
      expect(top()[0]).toBe('c2')
      other
        .prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)')
        .run('s07', 'user', 'later', at(50))
      expect(top()[0]).toBe('s07')
      other.prepare('INSERT INTO sessions (id, source, started_at) VALUES (?, ?, ?)').run('fresh', 'cli', at(60))
      expect(top().slice(0, 2)).toEqual(['fresh', 's07'])
      rawDb(store).exec('DROP TABLE cad_activity')
      other
        .prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)')
        .run('s09', 'user', 'latest', at(70))
      expect(top()).toEqual(['s09', 'fresh', 's07'])
      // a deleted message re-reads every session's activity; that pass and the rebuild leave the connection's cache
      // setting (activity-index.ts withSmallCache) as the store made it
      other.prepare("DELETE FROM messages WHERE content = 'later'").run()
      expect(top()).toEqual(['s09', 'fresh', 'c2'])
      expect(rawDb(store).pragma('cache_size', { simple: true })).toBe(-65536)
    } finally {
      other.prepare("DELETE FROM messages WHERE content IN ('later', 'latest')").run()
      other.prepare("DELETE FROM sessions WHERE id = 'fresh'").run()
      other.close()
    }
  })
})

describe('branches and subagent runs', () => {
  it('a compressed branch shows as its latest part; a compressed subagent run stays hidden', async () => {
    const own = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    try {
      await own.createSession('root', 'cli', { startedAt: at(1) })
      for (const [id, marker, source] of [
        ['br', { _branched_from: 'root' }, 'cli'],
        ['dg', { _delegate_from: 'root' }, 'delegate']
      ] as const) {
        await own.createSession(id, source, { parentSessionId: 'root', modelConfig: marker, startedAt: at(2) })
        await own.endSession(id, 'compression')
        await own.createSession(`${id}2`, source, { parentSessionId: id, startedAt: at(3) })
      }
      const ids = own.listSessions({ limit: 10 }).items.map((s) => [s.id, s.kind, s.rootId])
      expect(ids).toEqual(
        expect.arrayContaining([
          ['br2', 'continuation', 'br'],
          ['root', 'root', 'root']
        ])
      )
      expect(ids.map(([id]) => id).sort()).toEqual(['br2', 'root'])
    } finally {
      own.close()
    }
  })
  it("an unmarked child is a subagent run by either source: 'subagent' (upstream's, now Caduceus's) and 'delegate' (older Caduceus rows)", async () => {
    const own = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    try {
      await own.createSession('root', 'cli', { startedAt: at(1) })
      await own.createSession('new', 'subagent', { parentSessionId: 'root', startedAt: at(2) })
      await own.createSession('old', 'delegate', { parentSessionId: 'root', startedAt: at(3) })
      expect(own.listSessions({ limit: 10 }).items.map((s) => s.id)).toEqual(['root'])
      expect([own.summary('new')?.kind, own.summary('old')?.kind]).toEqual(['delegate', 'delegate'])
      expect(own.summary('root')?.childCount).toBe(2)
    } finally {
      own.close()
    }
  })
})

describe('a page carried as JSON text', () => {
  it('keeps every digit of a real, a NUL in text, and falls back to plain rows for a BLOB another writer left', () => {
    const other = new Database(store.path)
    const started = 1_733_400_000.123_456_7 // needs 17 significant digits to round-trip
    try {
      other
        .prepare('INSERT INTO sessions (id, source, started_at, title) VALUES (?, ?, ?, ?)')
        .run('exact', 'cli', started, 'nul\u0000inside')
      const row = store.listSessions({ limit: 1 }).items[0]
      expect(row).toMatchObject({ id: 'exact', startedAt: started, lastActiveAt: started, title: 'nul\u0000inside' })
      // json_array refuses a BLOB: the same statement runs as plain rows, and the page is still complete
      other
        .prepare('INSERT INTO sessions (id, source, started_at, model) VALUES (?, ?, ?, ?)')
        .run('blob', 'cli', started + 1, Buffer.from([0xff, 0x10]))
      const ids = store.listSessions({ limit: 2 }).items.map((s) => s.id)
      expect(ids).toEqual(['blob', 'exact'])
      // bytes json_array reads as a JSONB header: malformed JSON, or copied into text JSON.parse rejects
      const odd = other.prepare('INSERT INTO sessions (id, source, started_at, model) VALUES (?, ?, ?, ?)')
      odd.run('jsonb-bad', 'cli', started + 2, Buffer.from([0x03]))
      odd.run('jsonb-raw', 'cli', started + 3, Buffer.from([0x13, 0x41]))
      const all = store.listSessions({ limit: 4 }).items.map((s) => s.id)
      expect(all).toEqual(['jsonb-raw', 'jsonb-bad', 'blob', 'exact'])
    } finally {
      other.prepare("DELETE FROM sessions WHERE id IN ('exact', 'blob', 'jsonb-bad', 'jsonb-raw')").run()
      other.close()
    }
  })
})

describe('cursors', () => {
  it('are base64url of the keyset JSON, whatever characters the last id has', async () => {
    const home = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    try {
      const ids = ['a', 'ab', 'abc', 'abcd', 'sessión', '東京', '😀x', 'x\u007f', 'q"\\']
      for (const [i, id] of ids.entries()) {
        await home.createSession(id, 'cli', { startedAt: at(i) + 0.125 })
        await home.appendMessage(id, { role: 'user', content: 'q', timestamp: at(i) + 1.5 })
      }
      let cursor: string | null = null
      const seen: string[] = []
      for (let i = 0; i < ids.length; i++) {
        const page: SessionPage = home.listSessions({ limit: 1, cursor })
        const s = page.items[0]!
        seen.push(s.id)
        cursor = page.nextCursor
        if (i < ids.length - 1)
          expect(cursor, s.id).toBe(
            Buffer.from(JSON.stringify([s.lastActiveAt, s.startedAt, s.id]), 'utf8').toString('base64url')
          )
      }
      expect(cursor).toBeNull()
      expect(seen).toEqual([...ids].reverse())
    } finally {
      home.close()
    }
  })

  it("page by the list index's start where another program changed a row's started_at after it was indexed", async () => {
    const home = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    const other = new Database(home.path)
    try {
      // same last activity: the order falls to the start, then the id
      for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) {
        await home.createSession(id, 'cli', { startedAt: at(i) })
        await home.appendMessage(id, { role: 'user', content: `q ${id}`, timestamp: at(10) })
      }
      const pages = () => {
        const ids: string[] = []
        let cursor: string | null = null
        for (let i = 0; i < 10; i++) {
          const page: SessionPage = home.listSessions({ limit: 1, cursor })
          ids.push(...page.items.map((x) => x.id))
          if (!(cursor = page.nextCursor)) break
        }
        return ids
      }
      expect(pages()).toEqual(['d', 'c', 'b', 'a'])
      // the index keeps the start it read (no new message for these sessions); every row still comes once
      other.prepare("UPDATE sessions SET started_at = ? WHERE id = 'b'").run(at(3) + 50)
      other.prepare("UPDATE sessions SET started_at = ? WHERE id = 'd'").run(at(0) - 50)
      expect(pages()).toEqual(['d', 'c', 'b', 'a'])
    } finally {
      other.close()
      home.close()
    }
  })
})

describe('untitled previews', () => {
  it('follow another process deleting the first user message, and adding an earlier one', async () => {
    const home = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    const other = new Database(home.path)
    try {
      await home.createSession('u', 'cli', { startedAt: at(0) })
      await home.appendMessage('u', { role: 'assistant', content: 'hello', timestamp: at(0) + 1 })
      await home.appendMessage('u', { role: 'user', content: 'first question', timestamp: at(0) + 2 })
      await home.appendMessage('u', { role: 'user', content: 'second question', timestamp: at(0) + 3 })
      const preview = () => home.listSessions({ limit: 5 }).items.find((x) => x.id === 'u')?.preview
      expect(preview()).toBe('first question')
      expect(preview()).toBe('first question') // the list index now knows where that message is
      other.prepare("DELETE FROM messages WHERE content = 'first question'").run()
      expect(preview()).toBe('second question')
      other
        .prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)')
        .run('u', 'user', 'even earlier', at(0))
      expect(preview()).toBe('even earlier')
      expect(home.summary('u')?.preview).toBe('even earlier')
    } finally {
      other.close()
      home.close()
    }
  })

  it('a long first message reads as the whole flattened text would, whatever whitespace sits where', async () => {
    const home = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    // the rule in full: the first 600 characters, whitespace runs as one space, 160 at most
    const expected = (text: string) => {
      const flat = text.slice(0, 600).replace(/\s+/g, ' ').trim()
      return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat || null
    }
    const texts = [
      'word '.repeat(120),
      `${' '.repeat(200)}${'x'.repeat(50)}${' \n\t '.repeat(40)}${'y'.repeat(200)}`,
      `${'a'.repeat(150)}${' '.repeat(170)}${'b'.repeat(300)}`, // a whitespace run across the first 320
      `${'a'.repeat(100)}${'\n'.repeat(219)} ${'c'.repeat(5)}${' '.repeat(400)}`, // flattens to 160 or fewer
      `${'é😀'.repeat(60)}${'\u00a0\u3000'.repeat(30)}${'z'.repeat(300)}`, // pairs, Unicode spaces
      `x\ty${' '.repeat(300)}${'n\r'.repeat(200)}`,
      `${'q'.repeat(158)}😀${'r'.repeat(400)}`, // a pair where the preview is cut
      // plain text, single spaces only (read without flattening): short, cut, long, with a space at either end
      ' plain words and single spaces ',
      `${'w '.repeat(80)}x`,
      ` ${'long plain text '.repeat(40)}`,
      `${'a'.repeat(319)}  b`, // two spaces right after the first 320
      ' ',
      'tab\tthen  two spaces',
      'two  spaces,  no other whitespace'
    ]
    try {
      for (const [i, content] of texts.entries()) {
        await home.createSession(`long${i}`, 'cli', { startedAt: at(i) })
        await home.appendMessage(`long${i}`, { role: 'user', content, timestamp: at(i) + 1 })
      }
      const items = home.listSessions({ limit: 20 }).items
      for (const [i, content] of texts.entries()) {
        expect(items.find((x) => x.id === `long${i}`)?.preview, `text ${i}`).toBe(expected(content))
        expect(home.summary(`long${i}`)?.preview, `text ${i}`).toBe(expected(content))
      }
    } finally {
      home.close()
    }
  })
})

describe('getSessionDetail', () => {
  it('returns chain, parent, branches and delegate children', () => {
    const d = SessionDetail.parse(store.getSessionDetail('c1'))
    expect(d.lineage.chain.map((r) => r.id)).toEqual(['s00', 'c1', 'c2'])
    const d5 = store.getSessionDetail('s05')!
    expect(d5.lineage.branches.map((r) => r.id)).toEqual(['br'])
    expect(d5.lineage.delegateChildren.map((r) => r.id)).toEqual(['dg'])
    expect(store.getSessionDetail('dg')!.lineage.parent?.id).toBe('s05')
    expect(store.getSessionDetail('missing')).toBeNull()
  })
})

describe('getMessages', () => {
  it('pages forward, backward and around an id', async () => {
    await store.createSession('long', 'cli')
    const ids = await store.appendMessages(
      'long',
      Array.from({ length: 30 }, (_, i) => ({ role: 'user', content: `m${i}` }))
    )
    const latest = MessagePage.parse(store.getMessages({ sessionId: 'long', limit: 10 }))
    expect(latest.items.map((m) => m.id)).toEqual(ids.slice(20))
    expect(latest).toMatchObject({ hasMoreBefore: true, hasMoreAfter: false })
    const before = store.getMessages({ sessionId: 'long', beforeId: ids[20], limit: 10 })
    expect(before.items.map((m) => m.id)).toEqual(ids.slice(10, 20))
    const after = store.getMessages({ sessionId: 'long', afterId: ids[4], limit: 3 })
    expect(after.items.map((m) => m.id)).toEqual(ids.slice(5, 8))
    const around = store.getMessages({ sessionId: 'long', aroundId: ids[15], limit: 6 })
    expect(around.items.map((m) => m.id)).toEqual(ids.slice(12, 18))
    expect(around).toMatchObject({ hasMoreBefore: true, hasMoreAfter: true })
    expect(store.getMessages({ sessionId: 'nope' })).toEqual({ items: [], hasMoreBefore: false, hasMoreAfter: false })
  })
})
