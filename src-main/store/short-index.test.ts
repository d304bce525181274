/**
 * Caduceus's short-text index (short-index.ts) through `sessions.search`'s store path: absent on a home Caduceus
 * never wrote (complete scan, still complete), built by Caduceus's own writes only, catching up with another
 * program's inserts and deletes, and a complete scan again when it is far behind; upstream's FTS tables stay
 * consistent throughout.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { StoreRegistry } from './index'
import { makeHome, upstream } from './test-fixtures/homes'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { changedSinceVerified, isShortTerm, markVerified, Rechecks, shortIndexStep } from './short-index'
import { detectShape } from './shape'
import { SessionWatcher } from './watcher'
import { rawDb } from './test-fixtures/raw-db'

afterAll(() => cleanupTempDirs())

const sessionsOf = (reg: StoreRegistry, q: string) => {
  const r = reg.searchAll({ query: q, limit: 50 })
  return { ids: (r.sessions ?? []).map((g) => g.sessionId).sort(), fallback: r.fallback ?? '' }
}
/** One Caduceus run on the homes under `root` (a CLI command, or the app from start to quit): its registry, closed after. */
const runsOn =
  (root: string) =>
  async <T>(fn: (reg: StoreRegistry) => T | Promise<T>): Promise<T> => {
    const reg = new StoreRegistry(root)
    try {
      return await fn(reg)
    } finally {
      reg.closeAll()
    }
  }
const cadTables = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'cad_short%'").pluck().all() as string[]).sort()
  } finally {
    db.close()
  }
}

describe('short-text index', () => {
  it('short terms: 1 and 2 characters of CJK/emoji/symbols', () => {
    expect(isShortTerm('東京')).toBe(true)
    expect(isShortTerm('🚀')).toBe(true)
    expect(isShortTerm('東京タ')).toBe(false) // 3 characters: the trigram index's
    expect(isShortTerm('a東')).toBe(false) // a letter FTS5 splits: not a gram of any run
  })

  it('a catch-up step looks at its budget after every row, not after a whole batch of them', () => {
    const path = makeHome(tempDir(), 21)
    const raw = new Database(path)
    try {
      const up = upstream(raw, 21)
      up.createSession('s')
      for (const text of ['東京で会議', '大阪 🚀', '京都の寺']) up.append('s', 'user', text)
      const ids = raw.prepare('SELECT id FROM messages ORDER BY id').pluck().all() as number[]
      const indexedTo = () => raw.prepare("SELECT v FROM cad_short_grams_state WHERE k = 'indexed_to'").pluck().get()
      // a spent budget: one row per step (at least one, so it always moves on), never the whole batch
      shortIndexStep(raw, detectShape(raw), { budgetMs: 0 })
      expect(indexedTo()).toBe(ids[0])
      shortIndexStep(raw, detectShape(raw), { budgetMs: 0 })
      expect(indexedTo()).toBe(ids[1])
      shortIndexStep(raw, detectShape(raw), { budgetMs: 15 })
      expect(indexedTo()).toBe(ids[2])
      expect(raw.prepare("SELECT message_id FROM cad_short_grams WHERE gram = '京'").pluck().all()).toEqual([
        ids[0],
        ids[2]
      ])
    } finally {
      raw.close()
    }
  })

  it('grams read from another text than the home indexes are never looked up, and are read again', () => {
    const root = tempDir()
    const path = makeHome(root, 21)
    const raw = new Database(path)
    const reg = new StoreRegistry(root)
    try {
      const up = upstream(raw, 21)
      up.createSession('calls')
      const id = up.append('calls', 'assistant', 'running it')
      // upstream v21's indexes hold the tool calls: '$' is in this row for them
      raw
        .prepare('UPDATE messages SET tool_calls = ? WHERE id = ?')
        .run('[{"arguments": "{\\"cmd\\": \\"echo $5\\"}"}]', id)
      const v21 = detectShape(raw)
      const v30 = { ...v21, fts: 'external', trigram: 'external' } as const
      const grams = () => raw.prepare("SELECT message_id FROM cad_short_grams WHERE gram = '$'").pluck().all()
      const state = () =>
        Object.fromEntries(raw.prepare('SELECT k, v FROM cad_short_grams_state').raw().all() as Array<[string, number]>)
      // an index an earlier Caduceus read from content and tool name only: current, but not of this home's text
      shortIndexStep(raw, v30, { budgetMs: Number.POSITIVE_INFINITY })
      expect(grams()).toEqual([])
      let r = sessionsOf(reg, '$')
      expect(r.ids).toEqual(['calls'])
      expect(r.fallback).toContain('complete scan')
      // a slice reads every row again, of the text this home indexes
      shortIndexStep(raw, v21, { budgetMs: Number.POSITIVE_INFINITY })
      expect(state()).toMatchObject({ text: 1, indexed_to: id })
      expect(grams()).toEqual([id])
      r = sessionsOf(reg, '$')
      expect(r.ids).toEqual(['calls'])
      expect(r.fallback).toContain("Caduceus's short-text index")
      // the home moved to v30's storage (no tool calls indexed): the wider grams are emptied, not looked up
      shortIndexStep(raw, v30, { budgetMs: Number.POSITIVE_INFINITY })
      expect(state()).toMatchObject({ text: 0, indexed_to: id })
      expect(grams()).toEqual([])
    } finally {
      reg.closeAll()
      raw.close()
    }
  })

  it('never-written home scans; Caduceus writes build it; other programs’ inserts and deletes are caught up', async () => {
    const root = tempDir()
    const path = makeHome(root, 21)
    const raw = new Database(path)
    const up = upstream(raw, 21)
    for (const [id, text] of [
      ['tokyo', '東京で会議'],
      ['rocket', 'ship it 🚀 now'],
      ['plain', 'nothing to see']
    ]) {
      up.createSession(id)
      up.append(id, 'user', text)
    }
    const reg = new StoreRegistry(root)
    try {
      // a home Caduceus never wrote: reads create nothing, the scan answers completely and says so
      let r = sessionsOf(reg, '東京')
      expect(r.ids).toEqual(['tokyo'])
      expect(r.fallback).toContain('complete scan')
      expect(r.fallback).toContain('not built here')
      expect(cadTables(path)).toEqual([])
      // `^` in the scan: only where the message starts with it
      expect(sessionsOf(reg, '^東京').ids).toEqual(['tokyo'])
      expect(sessionsOf(reg, '^🚀').ids).toEqual([])

      // Caduceus's first write builds it
      await reg.get('default').createSession('mine', 'cli')
      expect(cadTables(path)).toEqual(['cad_short_grams', 'cad_short_grams_message', 'cad_short_grams_state'])
      // the write indexes what its time budget allows and timer slices the rest: on a loaded machine the rows may
      // still be catching up right after it (the scan answers meanwhile), so wait for the index to be current
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((ok) => setTimeout(ok, 20)))
        if (sessionsOf(reg, '東京').fallback.includes('short-text index')) break
      r = sessionsOf(reg, '東京')
      expect(r.ids).toEqual(['tokyo'])
      expect(r.fallback).toContain('short-text index')
      expect(sessionsOf(reg, '🚀').ids).toEqual(['rocket'])
      expect(sessionsOf(reg, '^🚀').ids).toEqual([]) // the gram index knows where, not whether a message starts so
      expect(sessionsOf(reg, '^東京').ids).toEqual(['tokyo'])

      // upstream adds a row and deletes a session afterwards: found / gone without any Caduceus write
      up.createSession('later')
      up.append('later', 'user', '東京タワー')
      up.deleteSession('tokyo')
      r = sessionsOf(reg, '東京')
      expect(r.ids).toEqual(['later'])
      expect(r.fallback).toContain('short-text index')
      expect(sessionsOf(reg, '東').ids).toEqual(['later'])

      // the next Caduceus write indexes the new row and purges the deleted one's grams
      await reg.get('default').appendMessage('mine', { role: 'user', content: 'ab 東京タ 🚀!' })
      // its grams: runs of CJK/emoji/symbols only, 1 and 2 characters (Latin words are FTS5's)
      // (as above: on a loaded machine the write's time budget may end before this row; a timer slice takes it)
      const gramsOfNewest = () =>
        raw
          .prepare(
            "SELECT gram FROM cad_short_grams WHERE message_id = (SELECT max(id) FROM messages WHERE session_id = 'mine')"
          )
          .pluck()
          .all() as string[]
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((ok) => setTimeout(ok, 20)))
        if (gramsOfNewest().length) break
      const grams = gramsOfNewest()
      expect(grams.sort()).toEqual(['タ', '京', '京タ', '東', '東京', '🚀'].sort())
      expect(sessionsOf(reg, '京').ids).toEqual(['later', 'mine'])
      expect(sessionsOf(reg, '🚀').ids).toEqual(['mine', 'rocket'])
      const left = raw
        .prepare(
          'SELECT count(*) FROM cad_short_grams g WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = g.message_id)'
        )
        .pluck()
        .get()
      expect(left).toBe(0)
      // NOT and OR combine index lookups like FTS5 would
      expect(sessionsOf(reg, '京 NOT 🚀').ids).toEqual(['later'])
      expect(sessionsOf(reg, '東 OR 🚀').ids).toEqual(['later', 'mine', 'rocket'])

      // far behind (another program ran ahead by more than STALE_ROWS): a complete scan, still complete
      raw.prepare("UPDATE cad_short_grams_state SET v = -100000 WHERE k = 'indexed_to'").run()
      r = sessionsOf(reg, '京')
      expect(r.ids).toEqual(['later', 'mine'])
      expect(r.fallback).toContain('rows behind')

      // upstream's own FTS tables never saw any of it
      up.integrityCheck()
    } finally {
      reg.closeAll()
      raw.close()
    }
  })

  it('a long backlog is caught up in slices off the write path, the search complete all along', async () => {
    const root = tempDir()
    const path = makeHome(root, 21)
    const raw = new Database(path)
    const up = upstream(raw, 21)
    // a home another program wrote and Caduceus never indexed: more rows than a write indexes itself (WRITE_STEP)
    up.createSession('bulk')
    raw.transaction(() => {
      for (let i = 0; i < 1000; i++)
        up.append('bulk', i % 2 ? 'assistant' : 'user', i % 100 === 7 ? `東京 ${i}` : `row ${i}`)
    })()
    const indexedTo = () =>
      Number(raw.prepare("SELECT v FROM cad_short_grams_state WHERE k = 'indexed_to'").pluck().get())
    const reg = new StoreRegistry(root)
    try {
      const store = reg.get('default')
      // Caduceus's writes create the index but leave the backlog alone: no write pays for the home
      await store.createSession('mine', 'cli')
      await store.appendMessage('mine', { role: 'user', content: '東京 mine' })
      expect(indexedTo()).toBe(0)
      // the search is complete meanwhile (what is not indexed yet is scanned)
      expect(sessionsOf(reg, '東京').ids).toEqual(['bulk', 'mine'])
      // slices of its own, between writes, catch it up
      const last = Number(raw.prepare('SELECT max(id) FROM messages').pluck().get())
      for (let i = 0; i < 300 && indexedTo() < last; i++) await new Promise((r) => setTimeout(r, 10))
      expect(indexedTo()).toBe(last)
      const r = sessionsOf(reg, '東京')
      expect(r).toEqual({ ids: ['bulk', 'mine'], fallback: expect.stringContaining('short-text index') })
      // current again: a write indexes its own row in its own transaction
      await store.appendMessage('mine', { role: 'assistant', content: 'ok 🚀' })
      expect(indexedTo()).toBe(last + 1)
      expect(sessionsOf(reg, '🚀').ids).toEqual(['mine'])
      up.integrityCheck()
    } finally {
      reg.closeAll()
      raw.close()
    }
  })

  it('hundreds of matching sessions: every one counted, a chain under its tip, a row another program hid is gone', async () => {
    const root = tempDir()
    const reg = new StoreRegistry(root)
    try {
      const store = reg.get('default')
      await store.createSession('seg1', 'cli')
      await store.appendMessage('seg1', { role: 'user', content: '東京 first part' })
      await store.endSession('seg1', 'compression')
      await store.createSession('seg2', 'cli', { parentSessionId: 'seg1' })
      await store.appendMessage('seg2', { role: 'user', content: 'later part, no match' })
      const raw = new Database(store.path)
      const ins = raw.prepare('INSERT INTO sessions (id, source, started_at) VALUES (?, ?, ?)')
      const msg = raw.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)')
      raw.transaction(() => {
        for (let i = 0; i < 320; i++) {
          ins.run(`bulk${i}`, 'cli', 1_700_000_000 + i)
          msg.run(`bulk${i}`, 'user', `行く 東京 ${i}`, 1_700_000_000 + i)
        }
      })()
      await store.appendMessage('seg2', { role: 'assistant', content: 'indexes the bulk rows' })
      const r = reg.searchAll({ query: '東京', limit: 50 })
      expect(r.fallback).toContain('short-text index')
      const ids = (r.sessions ?? []).map((g) => g.sessionId)
      expect(ids).toHaveLength(321)
      expect(ids).toContain('seg2')
      expect(ids).not.toContain('seg1')
      // another program rewinds one session's row (v30 `active = 0`): no longer found, without a Caduceus write
      raw.prepare("UPDATE messages SET active = 0 WHERE session_id = 'bulk7'").run()
      const after = (reg.searchAll({ query: '東京', limit: 50 }).sessions ?? []).map((g) => g.sessionId)
      expect(after).toHaveLength(320)
      expect(after).not.toContain('bulk7')
      // another program deletes a session's row and leaves its messages; another session gets a title
      raw.pragma('foreign_keys = OFF')
      raw.prepare("DELETE FROM sessions WHERE id = 'bulk9'").run()
      raw.prepare("UPDATE sessions SET title = '東京の旅' WHERE id = 'bulk3'").run()
      const last = reg.searchAll({ query: '東京', limit: 50 }).sessions ?? []
      expect(last.map((g) => g.sessionId)).toHaveLength(319)
      expect(last.map((g) => g.sessionId)).not.toContain('bulk9')
      expect(last.find((g) => g.sessionId === 'bulk3')).toMatchObject({ title: '東京の旅', hits: 1 })
      raw.close()
    } finally {
      reg.closeAll()
    }
  })
})

describe('short-text index: a message another program rewrites in place', () => {
  /** A home Caduceus wrote (its short-text index current), its watcher running, and another program's connection. */
  async function home() {
    const root = tempDir()
    const reg = new StoreRegistry(root)
    const s = reg.get('default')
    await s.createSession('a', 'cli')
    const [first, second] = await s.appendMessages('a', [
      { role: 'user', content: '東京 tower' },
      { role: 'tool', content: 'no symbols here', toolCallId: 'c1', toolName: 'terminal' }
    ])
    await s.createSession('b', 'cli')
    await s.appendMessage('b', { role: 'user', content: '大阪の城' })
    const events: string[][] = []
    const watcher = new SessionWatcher(s, (e) => events.push(e.sessionIds)).start()
    const other = new Database(s.path)
    return { reg, s, watcher, other, first: first!, second: second! }
  }
  const settle = async (reg: StoreRegistry, watcher: SessionWatcher) => {
    watcher.check()
    // the recheck slices and the re-read write run on the store's timers
    for (
      let i = 0;
      i < 40 && reg.get('default').searchFull({ query: '京', limit: 5 }).fallback?.includes('rewrote');
      i++
    )
      await new Promise((r) => setTimeout(r, 30))
  }

  it('old text stops matching and new text matches at once, and the index is re-read off the write path', async () => {
    const { reg, s, watcher, other, first, second } = await home()
    try {
      expect(sessionsOf(reg, '東京').ids).toEqual(['a'])
      expect(sessionsOf(reg, '東京').fallback).toContain("Caduceus's short-text index")
      // upstream (or a hand edit) rewrites two rows' text in place: a redaction, and a tool result given symbols
      other.prepare('UPDATE messages SET content = ? WHERE id = ?').run('[redacted] tower', first)
      other.prepare('UPDATE messages SET content = ? WHERE id = ?').run('cost: ¥500 in 京都', second)
      other.close()
      watcher.check()
      // right at once: the rewritten rows are read by their text until rechecked
      expect(sessionsOf(reg, '東京').ids).toEqual([])
      expect(sessionsOf(reg, '¥').ids).toEqual(['a'])
      expect(sessionsOf(reg, '京').ids).toEqual(['a'])
      expect(sessionsOf(reg, '大阪').ids).toEqual(['b'])
      expect(sessionsOf(reg, '京').fallback).toContain('by their text the rows another program rewrote')
      // and once the recheck slice and its write ran, the grams themselves say so
      await settle(reg, watcher)
      const grams = rawDb(s).prepare('SELECT gram FROM cad_short_grams WHERE message_id = ?').pluck()
      expect(grams.all(first)).toEqual([])
      expect(grams.all(second)).toEqual(expect.arrayContaining(['¥', '京', '京都']))
      expect(sessionsOf(reg, '東京').ids).toEqual([])
      expect(sessionsOf(reg, '¥').ids).toEqual(['a'])
      expect(sessionsOf(reg, '京').fallback).not.toContain('rewrote')
    } finally {
      watcher.stop()
      reg.closeAll()
    }
  })

  it('while no Caduceus watched (closed, or only the CLI ran): the next open reads indexed rows by text until rechecked', async () => {
    const root = tempDir()
    const run = runsOn(root)
    const [nara] = await run(async (reg) => {
      const s = reg.get('default')
      await s.createSession('a', 'cli')
      const ids = await s.appendMessages('a', [{ role: 'user', content: '奈良に行きたい' }])
      await s.createSession('b', 'cli')
      await s.appendMessage('b', { role: 'user', content: '大阪の城' })
      return ids
    })
    // nothing written since: the next run trusts the index without reading a row again
    await run((reg) => {
      expect(sessionsOf(reg, '奈良')).toEqual({ ids: ['a'], fallback: expect.not.stringContaining('rewrote') })
    })
    // the system sqlite3 (upstream's SQLite) rewrites the row in place while no Caduceus runs
    execFileSync('sqlite3', [
      join(root, 'state.db'),
      `UPDATE messages SET content = '神戸に行きたい' WHERE id = ${nara}`
    ])
    const gramsOf = (reg: StoreRegistry) =>
      rawDb(reg.get('default')).prepare('SELECT gram FROM cad_short_grams WHERE message_id = ?').pluck().all(nara)
    // a one-shot search (the CLI's): right, and it writes nothing
    const bytes = readFileSync(join(root, 'state.db'))
    await run((reg) => {
      // the grams still hold 奈良 for that row: read by its text, it is 神戸 now
      expect(sessionsOf(reg, '奈良').ids).toEqual([])
      expect(sessionsOf(reg, '神戸')).toEqual({ ids: ['a'], fallback: expect.stringContaining('rewrote') })
      expect(sessionsOf(reg, '大阪').ids).toEqual(['b'])
    })
    expect(readFileSync(join(root, 'state.db')).equals(bytes)).toBe(true)
    await run(async (reg) => {
      expect(gramsOf(reg)).toContain('奈良')
      // the app (its watcher running) rechecks off the write path and re-reads the row's grams
      const watcher = new SessionWatcher(reg.get('default'), () => undefined).start()
      for (let i = 0; i < 100 && sessionsOf(reg, '神戸').fallback.includes('rewrote'); i++)
        await new Promise((r) => setTimeout(r, 30))
      watcher.stop()
      expect(gramsOf(reg)).toContain('神戸')
      expect(gramsOf(reg)).not.toContain('奈良')
    })
    // …and leaves its mark: the run after it trusts the index again
    await run((reg) => {
      expect(sessionsOf(reg, '神戸')).toEqual({ ids: ['a'], fallback: expect.not.stringContaining('rewrote') })
      expect(sessionsOf(reg, '奈良').ids).toEqual([])
    })
  })

  it('a rewrite after another program checkpointed and restarted the WAL is named from its frames', async () => {
    const { reg, s, watcher, other, first } = await home()
    try {
      other.close()
      watcher.check()
      const rows = watcher.stats.rowDiffs
      // the system sqlite3 (upstream's SQLite): a checkpoint that restarts the WAL, an insert and an in-place rewrite
      execFileSync('sqlite3', [
        s.path,
        `PRAGMA wal_checkpoint(TRUNCATE);
        INSERT INTO messages (session_id, role, content, timestamp) VALUES ('b', 'user', '京都にも', 1);
        UPDATE messages SET content = '奈良 tower' WHERE id = ${first};`
      ])
      watcher.check()
      expect(watcher.stats.rowDiffs).toBe(rows + 1) // the frames named the rows: no recheck of every indexed row
      expect(sessionsOf(reg, '東京').ids).toEqual([])
      expect(sessionsOf(reg, '奈良').ids).toEqual(['a'])
      expect(sessionsOf(reg, '京').ids).toEqual(['b'])
      await settle(reg, watcher)
      expect(rawDb(s).prepare('SELECT gram FROM cad_short_grams WHERE message_id = ?').pluck().all(first)).toEqual(
        expect.arrayContaining(['奈', '奈良'])
      )
      expect(sessionsOf(reg, '東京').ids).toEqual([])
    } finally {
      watcher.stop()
      reg.closeAll()
    }
  })

  it('a rewrite no FTS index sees (a message of one emoji: no word, no trigram) is read again at the next open', async () => {
    const root = tempDir()
    const run = runsOn(root)
    const [rocket] = await run(async (reg) => {
      const s = reg.get('default')
      await s.createSession('a', 'cli')
      await s.createSession('b', 'cli')
      await s.appendMessage('b', { role: 'user', content: '東京 🚀' })
      return s.appendMessages('a', [{ role: 'user', content: '🚀' }])
    })
    await run((reg) => expect(sessionsOf(reg, '🚀').ids).toEqual(['a', 'b']))
    // another program's connection: upstream's triggers run, and neither FTS index changes (no term either side)
    const other = new Database(join(root, 'state.db'))
    other.prepare("UPDATE messages SET content = '🎉' WHERE id = ?").run(rocket)
    other.close()
    await run((reg) => {
      expect(sessionsOf(reg, '🎉')).toEqual({ ids: ['a'], fallback: expect.stringContaining('rewrote') })
      expect(sessionsOf(reg, '🚀').ids).toEqual(['b'])
    })
    // the app reads the row into the index again, and the run after it finds it there
    await run(async (reg) => {
      const watcher = new SessionWatcher(reg.get('default'), () => undefined).start()
      for (let i = 0; i < 100 && sessionsOf(reg, '🎉').fallback.includes('rewrote'); i++)
        await new Promise((r) => setTimeout(r, 30))
      watcher.stop()
    })
    await run((reg) => {
      expect(sessionsOf(reg, '🎉')).toEqual({ ids: ['a'], fallback: expect.not.stringContaining('rewrote') })
      expect(sessionsOf(reg, '🚀').ids).toEqual(['b'])
    })
  })

  it('an upstream session while no Caduceus ran: the next open reads only the rows it wrote by their text', async () => {
    const root = tempDir()
    const path = join(root, 'state.db')
    const run = runsOn(root)
    /** What a search of this run reads by text instead of the grams (every row above `before`, and `ids`). */
    const byText = (reg: StoreRegistry) =>
      (
        reg.get('default') as unknown as { rechecks: { forSearch(): { before: number; ids: number[] } | null } }
      ).rechecks.forSearch()
    const [nara, kyoto] = await run(async (reg) => {
      const s = reg.get('default')
      await s.createSession('a', 'cli')
      await s.appendMessages(
        'a',
        Array.from({ length: 40 }, (_, i) => ({ role: 'user' as const, content: `東京 ${i}` }))
      )
      return s.appendMessages('a', [
        { role: 'user', content: '奈良に行きたい' },
        { role: 'assistant', content: '京都もいい' }
      ])
    })
    // upstream's SQLite (the system sqlite3): a session's turns, a deleted message, a hand edit in place
    execFileSync('sqlite3', [
      path,
      `INSERT INTO sessions (id, source, started_at) VALUES ('u', 'cli', 1);
      INSERT INTO messages (session_id, role, content, timestamp) VALUES ('u', 'user', '大阪の城', 1), ('u', 'assistant', 'ok', 2);
      DELETE FROM messages WHERE id = ${kyoto};
      UPDATE messages SET content = '神戸に行きたい' WHERE id = ${nara};`
    ])
    const bytes = readFileSync(path)
    await run((reg) => {
      expect(byText(reg)).toEqual({ before: Number.POSITIVE_INFINITY, ids: expect.arrayContaining([nara, kyoto]) })
      expect(byText(reg)!.ids.length).toBeLessThan(10) // not the 40 rows nobody touched
      expect(sessionsOf(reg, '奈良').ids).toEqual([])
      expect(sessionsOf(reg, '神戸').ids).toEqual(['a'])
      expect(sessionsOf(reg, '京都').ids).toEqual([])
      expect(sessionsOf(reg, '大阪').ids).toEqual(['u'])
      expect(sessionsOf(reg, '東京').ids).toEqual(['a'])
    })
    expect(readFileSync(path).equals(bytes)).toBe(true) // a one-shot search wrote nothing
    // the app rechecks those rows, and its close leaves the mark: the run after it reads none by text
    await run(async (reg) => {
      const watcher = new SessionWatcher(reg.get('default'), () => undefined).start()
      for (let i = 0; i < 100 && byText(reg); i++) await new Promise((r) => setTimeout(r, 30))
      watcher.stop()
      expect(byText(reg)).toBeNull()
    })
    await run((reg) => {
      expect(byText(reg)).toBeNull()
      expect(sessionsOf(reg, '神戸').ids).toEqual(['a'])
      expect(sessionsOf(reg, '奈良').ids).toEqual([])
    })
  })

  it('the rows named since the verified state hold every row written since, across FTS merges and reused segment ids', () => {
    let seed = 11
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const db = new Database(makeHome(tempDir(), 21))
    try {
      const shape = detectShape(db)
      db.prepare(`INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)`).run()
      const add = db.prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', ?, 1)`)
      const say = () =>
        Array.from(
          { length: 1 + Math.floor(rnd() * 30) },
          () => '東京 大阪 word 🎉 x'.split(' ')[Math.floor(rnd() * 5)]
        ).join(' ')
      for (let c = 0; c < 20; c++)
        db.transaction(() => {
          for (let i = 0; i < 10; i++) add.run(say())
        })()
      const rows = () => new Map(db.prepare<[], [number, string]>('SELECT id, content FROM messages').raw().all())
      for (let round = 0; round < 6; round++) {
        db.transaction(() => {
          shortIndexStep(db, shape, { budgetMs: Number.POSITIVE_INFINITY })
          markVerified(db)
        })()
        const before = rows()
        // upstream's commits, one segment each, merged as FTS5 goes (segment ids freed and taken again)
        for (let c = 0; c < 3 + round * 4; c++)
          db.transaction(() => {
            const ids = [...rows().keys()]
            const id = ids[Math.floor(rnd() * ids.length)]!
            const r = rnd()
            if (r < 0.4) add.run(say())
            else if (r < 0.7) db.prepare('UPDATE messages SET content = ? WHERE id = ?').run(say(), id)
            else db.prepare('DELETE FROM messages WHERE id = ?').run(id)
          })()
        const named = new Set(changedSinceVerified(db))
        const after = rows()
        // (a deleted row's grams never answer: the search joins messages; a merge may drop its FTS entries for good)
        const missed = [...before].filter(([id, text]) => after.has(id) && after.get(id) !== text && !named.has(id))
        expect(missed).toEqual([])
      }
    } finally {
      db.close()
    }
  })

  it('a segment FTS5 merges old segments into, begun before the verified state, names none of the rows it moves', () => {
    const db = new Database(makeHome(tempDir(), 21))
    try {
      const shape = detectShape(db)
      db.prepare(`INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)`).run()
      const ins = db.prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', ?, 1)`)
      const commit = (fn: () => void) => db.transaction(fn)()
      for (let c = 0; c < 6; c++)
        commit(() => {
          for (let i = 0; i < 250; i++) ins.run(`東京 w${c}x${i} m${i} t${i}`)
        })
      // FTS5's merge of those segments under way (a few pages a step, as its automerge goes), then the verified state
      const step = () => db.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('merge', -2)")
      step()
      commit(() => {
        shortIndexStep(db, shape, { budgetMs: Number.POSITIVE_INFINITY })
        markVerified(db)
      })
      // the merge carried on: its output grows with rows the verified state held as they were
      step()
      step()
      expect(changedSinceVerified(db)).toEqual([])
      commit(() => db.prepare("UPDATE messages SET content = '神戸' WHERE id = 7").run())
      expect(changedSinceVerified(db)).toEqual([7])
    } finally {
      db.close()
    }
  })

  it('too many rows named to list, every indexed row from the lowest of them is read again, not the whole index', () => {
    const r = new Rechecks()
    expect(r.note([5, 9])).toBe(false)
    expect(r.forSearch()).toEqual({ before: Number.POSITIVE_INFINITY, ids: [5, 9] })
    const many = Array.from({ length: 20_000 }, (_, i) => 480_001 + i)
    expect(r.note(many)).toBe(true)
    expect(r.forSearch()).toEqual({ before: 4, ids: [] }) // the rows named before count too
    const again = new Rechecks()
    again.note(many)
    expect(again.forSearch()).toEqual({ before: 480_000, ids: [] })
    again.note(null)
    expect(again.forSearch()).toEqual({ before: 0, ids: [] })
  })

  it('where the WAL cannot say which rows a commit wrote, every indexed row is read by its text until rechecked', async () => {
    const { reg, s, watcher, other, second } = await home()
    try {
      other.prepare('UPDATE messages SET content = ? WHERE id = ?').run('¥ again', second)
      other.close()
      s.noteRowsWritten(null)
      expect(sessionsOf(reg, '¥').ids).toEqual(['a'])
      expect(sessionsOf(reg, '東京').ids).toEqual(['a'])
      await settle(reg, watcher)
      expect(rawDb(s).prepare('SELECT gram FROM cad_short_grams WHERE message_id = ?').pluck().all(second)).toEqual([
        '¥'
      ])
      expect(sessionsOf(reg, '¥').fallback).not.toContain('rewrote')
    } finally {
      watcher.stop()
      reg.closeAll()
    }
  })
})
