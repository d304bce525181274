// Import parsing yields to the event loop while it reads a 10 MB file (slices of a few ms; the stall itself is
// measured in the bench, not asserted here on a shared machine) and rejects bad lines by number. Times no Date can
// hold are kept as upstream keeps them, and every read and the Markdown export still answer.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { MessagePage, SessionDetail, SessionSummary } from '@shared/contract'
import { SessionStore } from './index'
import { importBatch, parseJsonlChunked } from './session-import'
import { toMarkdown } from './session-transfer'
import { HAS_UPSTREAM } from './test-fixtures/spawn-writer'

describe('parseJsonlChunked', () => {
  it('parses a 10 MB file in slices that let the event loop turn in between', async () => {
    const body = 'x'.repeat(5000)
    const line = (i: number) =>
      JSON.stringify({ id: `s${i}`, source: 'cli', messages: [{ role: 'user', content: `${i} ${body}` }] })
    const content = Array.from({ length: 2000 }, (_, i) => line(i)).join('\n') + '\n{oops\n'
    expect(content.length).toBeGreaterThan(10_000_000)
    // a self-renewing setImmediate counts event-loop turns the parser let through
    let ticks = 0
    let on = true
    const turn = () => {
      ticks++
      if (on) setImmediate(turn)
    }
    setImmediate(turn)
    const parsed = await parseJsonlChunked(content, 10_000)
    on = false
    expect(parsed.records).toHaveLength(2000)
    expect(parsed.records[1999]!.line).toBe(2000)
    expect(parsed.errors).toEqual([{ id: 'line 2001', line: 2001, reason: expect.stringContaining('invalid JSON') }])
    expect(ticks).toBeGreaterThan(0) // without a yield the loop never turns before the parse resolves
  })
})

describe('importBatch', () => {
  it('looks at the clock between long messages, not only every 40 rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-import-steps-'))
    try {
      const path = join(dir, 'state.db')
      const store = new SessionStore(path, { profile: 'default' })
      await store.createSession('seed', 'cli') // the file and its schema
      store.close()
      const db = new Database(path)
      // three 70,000-character messages: each alone is several ms in the FTS triggers, all three were one block
      const long = 'word '.repeat(14_000)
      const ordered = [
        {
          line: 1,
          rec: {
            id: 'long',
            source: 'cli',
            messages: Array.from({ length: 3 }, () => ({ role: 'user', content: long }))
          }
        }
      ]
      const room = { sessions: 10, rows: 1000, empty: true }
      const written = () =>
        db.prepare("SELECT count(*) FROM messages WHERE session_id = 'long'").pluck().get() as number
      db.exec('BEGIN IMMEDIATE')
      // a zero budget: every slice ends at the first pause, so each slice is one step of the writer
      let slice = importBatch(db, ordered, 0, room, 0)
      const perSlice = [written()]
      while (slice.inProgress) {
        slice = importBatch(db, ordered, slice.next, room, 0, slice.inProgress)
        perSlice.push(written() - perSlice.reduce((a, b) => a + b, 0))
      }
      expect(slice.landed).toEqual(['long'])
      expect(written()).toBe(3)
      expect(Math.max(...perSlice)).toBe(1)
      db.exec('ROLLBACK')
      db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('times no Date can hold', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  it('are imported as upstream stores them, never lose the row, and read and export without failing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-import-times-'))
    dirs.push(dir)
    const store = new SessionStore(join(dir, 'state.db'), { profile: 'default' })
    const session = (id: string, started: unknown, ts: unknown) =>
      JSON.stringify({
        id,
        source: 'cli',
        started_at: started,
        messages: [{ role: 'user', content: 'hi', timestamp: ts }]
      })
    const before = Date.now() / 1000
    const summary = await store.importJsonl(
      [
        session('good', 1700000000, 1700000001),
        session('far', 1700000000, 1e13), // year 318857: upstream keeps it
        session('inf', '1e999', 'inf'), // upstream's float(): inf, stored as REAL
        session('nan', 'nan', 'NaN'), // upstream fails its whole import (NOT NULL); here the defaults stand
        session('under', '1_700_000_000', 1700000001) // Python's float() reads digit groups
      ].join('\n'),
      100
    )
    expect(summary).toMatchObject({ imported: 5, errors: [] })
    const row = (id: string) => {
      const [rec] = store.exportSessions({ sessionId: id })
      return { started: rec!.started_at, ts: rec!.messages[0]!.timestamp }
    }
    expect(row('far')).toEqual({ started: 1700000000, ts: 1e13 })
    expect(row('inf')).toEqual({ started: Infinity, ts: Infinity })
    expect(row('nan').started).toBeGreaterThanOrEqual(Math.floor(before))
    expect(row('nan').ts).toBeGreaterThanOrEqual(row('nan').started as number) // the import's clock, as below
    expect(row('under').started).toBe(1700000000)
    // every read the app makes still answers in the contract's shape
    const list = store.listSessions({ limit: 10 })
    expect(list.items.map((s) => s.id).sort()).toEqual(['far', 'good', 'inf', 'nan', 'under'])
    for (const s of list.items) expect(SessionSummary.parse(s)).toEqual(s)
    for (const id of ['far', 'inf']) {
      const d = store.getSessionDetail(id)!
      expect(SessionDetail.parse(d)).toEqual(d)
      const page = store.getMessages({ sessionId: id })
      expect(MessagePage.parse(page)).toEqual(page)
    }
    const found = store.searchFull({ query: 'hi' })
    expect(found.hits).toHaveLength(5)
    for (const h of found.hits) expect(Number.isFinite(h.timestamp)).toBe(true)
    // the Markdown export shows what no Date can hold as it was stored, and the rest as dates
    const md = [...store.exportSessions()].map(toMarkdown).join('\n')
    expect(md).toContain('## user · 10000000000000 (out of range)')
    expect(md).toContain('- started: Infinity (out of range)')
    expect(md).toContain('## user · Infinity (out of range)')
    expect(md).toContain('## user · 2023-11-14T22:13:21.000Z')
    store.close()
  })
})

describe('a message without a usable time', () => {
  it('gets the import’s clock, kept increasing past the times around it, as upstream’s import stamps it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-import-clock-'))
    const store = new SessionStore(join(dir, 'state.db'), { profile: 'default' })
    try {
      const before = Date.now() / 1000
      const msgs = (...ts: unknown[]) => ts.map((t, i) => ({ role: 'user', content: `m${i}`, timestamp: t }))
      const summary = await store.importJsonl(
        [
          { id: 'past', source: 'cli', started_at: 1e9, messages: msgs(null, 1600000000, undefined, 'soon') },
          { id: 'future', source: 'cli', started_at: 1e9, messages: msgs(4e9, null) }
        ]
          .map((r) => JSON.stringify(r))
          .join('\n'),
        10
      )
      const after = Date.now() / 1000
      expect(summary).toMatchObject({ imported: 2, errors: [] })
      const times = (id: string) => [...store.exportSessions({ sessionId: id })][0]!.messages.map((m) => m.timestamp)
      // upstream's _insert_message_rows: its clock starts at the time of the insert, and after each message moves to
      // max(clock + 1e-6, that message's time + 1e-6); a message without a time it can read takes the clock
      const [t0, t1, t2, t3] = times('past') as number[]
      expect(t0).toBeGreaterThanOrEqual(before)
      expect(t0).toBeLessThanOrEqual(after)
      expect(t1).toBe(1600000000)
      expect(t2).toBe(Math.max(t0! + 1e-6 + 1e-6, t1! + 1e-6))
      expect(t3).toBe(t2! + 1e-6)
      expect(times('future')).toEqual([4e9, 4e9 + 1e-6])
    } finally {
      store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a title another session holds', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  it('is refused by the import, also in a home without upstream unique-title index, so no duplicate is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-import-title-'))
    dirs.push(dir)
    const store = new SessionStore(join(dir, 'state.db'), { profile: 'default' })
    const session = (id: string, title: string) =>
      JSON.stringify({ id, source: 'cli', title, messages: [{ role: 'user', content: `hello from ${id}` }] })
    const summary = await store.importJsonl(
      [session('mine', 'Boiler plan'), session('theirs', 'Boiler plan'), session('other', 'Garden')].join('\n'),
      100
    )
    expect(summary.imported).toBe(2)
    expect(summary.errors).toEqual([
      { id: 'theirs', line: 2, reason: "Title 'Boiler plan' is already in use by session mine" }
    ])
    const titles = store.listSessions({ limit: 10 }).items.map((s) => [s.id, s.title])
    expect(titles.sort()).toEqual([
      ['mine', 'Boiler plan'],
      ['other', 'Garden']
    ])
    store.close()
  })
})

describe('integers written as text', () => {
  it('are read as Python int() reads them: underscores between digits, any decimal digits, never a float', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-import-ints-'))
    try {
      const path = join(dir, 'state.db')
      const store = new SessionStore(path, { profile: 'default' })
      // upstream's import (hermes_state.py _import_int_or_none: int(value)) takes the first two, refuses the third
      const rec = (id: string, n: string) =>
        JSON.stringify({
          id,
          source: 'cli',
          input_tokens: n,
          messages: [{ role: 'user', content: 'hi', token_count: n }]
        })
      const summary = await store.importJsonl(
        [rec('a', '1_000'), rec('b', ' \u0661\u0662 '), rec('c', '12.0')].join('\n'),
        100
      )
      store.close()
      expect(summary.errors).toEqual([
        { id: 'c', line: 3, reason: expect.stringContaining('token_count must be an integer') }
      ])
      const db = new Database(path, { readonly: true })
      const rows = db
        .prepare(
          'SELECT s.id, s.input_tokens, m.token_count FROM sessions s JOIN messages m ON m.session_id = s.id ORDER BY s.id'
        )
        .all()
      db.close()
      expect(rows).toEqual([
        { id: 'a', input_tokens: 1000, token_count: 1000 },
        { id: 'b', input_tokens: 12, token_count: 12 }
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('export while upstream writes the session', () => {
  it.skipIf(!HAS_UPSTREAM)(
    'each record is one snapshot: its row and its messages agree, every call but the last turn’s has its result',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cad-export-live-'))
      const path = join(dir, 'state.db')
      // upstream's own writer, in another process: each message its own transaction, as its agent flushes a turn
      const writer = spawn('/usr/bin/python3', [
        join(import.meta.dirname, '../../test/fixtures/upstream-turns.py'),
        process.env.HERMES_UPSTREAM ?? '/work/upstream',
        path,
        'live',
        '0.4'
      ])
      const lines = createInterface({ input: writer.stdout })[Symbol.asyncIterator]()
      expect((await lines.next()).value).toBe('ready')
      const done = new Promise<number>((ok) => writer.once('close', (code) => ok(code ?? -1)))
      let running = true
      void done.then(() => (running = false))
      const store = new SessionStore(path)
      const seen: Array<{ count: unknown; rows: number; unanswered: number }> = []
      try {
        while (running) {
          for (const rec of store.exportSessions({ sessionId: 'live' })) {
            const answered = new Set(rec.messages.map((m) => m.tool_call_id))
            const calls = rec.messages.flatMap((m) => (m.tool_calls as Array<{ id: string }> | undefined) ?? [])
            seen.push({
              count: rec.message_count,
              rows: rec.messages.length,
              unanswered: calls.filter((c) => !answered.has(c.id)).length
            })
          }
          await new Promise((r) => setTimeout(r, 2))
        }
        expect(await done).toBe(0)
      } finally {
        store.close()
        rmSync(dir, { recursive: true, force: true })
      }
      expect(seen.length).toBeGreaterThan(10)
      // upstream counts a message in the transaction that writes it: a record read in one snapshot agrees with itself
      expect(seen.filter((s) => s.count !== s.rows)).toEqual([])
      // a turn in flight may show its call without the result yet; never more than that one
      expect(seen.filter((s) => s.unanswered > 1)).toEqual([])
    }
  )
})
