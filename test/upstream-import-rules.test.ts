// `sessions import` writes what upstream's import_sessions writes, column by column (golden from upstream's own
// code: scripts/golden/import_rules.py, test/fixtures/upstream/import-rules/): live runtime state left at its
// defaults, upstream's per-message rules, the first line of a duplicated id kept, and every FTS index consistent
// for the system Python's SQLite (3.40) after a NUL in an indexed column.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { ftsIntegrity, hasSystemPython } from './support/fts-integrity'

const gold = join(resolve(import.meta.dirname, '..'), 'test/fixtures/upstream/import-rules')
const input = readFileSync(join(gold, 'input.jsonl'), 'utf8')
const want = JSON.parse(readFileSync(join(gold, 'upstream.json'), 'utf8')) as {
  sessions: Record<string, Record<string, unknown>>
  messages: Record<string, Array<Record<string, unknown>>>
  fts: Record<string, string>
}

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
/** A home (an upstream-made empty one, or none: Caduceus creates its own), `content` imported through the host. */
async function imported(content: string, upstreamHome: boolean) {
  const home = mkdtempSync(join(tmpdir(), 'cad-import-rules-'))
  dirs.push(home)
  if (upstreamHome) copyFileSync(join(gold, 'empty.db'), join(home, 'state.db'))
  const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
  try {
    const r = await host.dispatcher.invoke('sessions.import', { profile: 'default', content })
    const list = await host.dispatcher.invoke('sessions.list', { profile: 'default', limit: 50 })
    return {
      home,
      db: join(home, 'state.db'),
      summary: (r as { output: Record<string, unknown> }).output,
      order: (list as { output: { items: Array<{ id: string; lastActiveAt: number }> } }).output.items
    }
  } finally {
    await host.close()
  }
}

function rows(file: string) {
  const db = new Database(file, { readonly: true })
  try {
    const sessions = Object.fromEntries(
      (db.prepare('SELECT * FROM sessions ORDER BY id').all() as Array<Record<string, unknown>>).map((s) => [s.id, s])
    )
    const messages: Record<string, Array<Record<string, unknown>>> = {}
    for (const m of db.prepare('SELECT * FROM messages ORDER BY id').all() as Array<Record<string, unknown>>)
      (messages[String(m.session_id)] ??= []).push(m)
    const defaults = Object.fromEntries(
      (
        db.prepare('SELECT name, dflt_value FROM pragma_table_info(?)').all('sessions') as Array<{
          name: string
          dflt_value: string | null
        }>
      ).map((c) => [c.name, c.dflt_value === null ? null : Number(c.dflt_value.replace(/^'|'$/g, ''))])
    )
    return { sessions, messages, defaults }
  } finally {
    db.close()
  }
}
const only = (r: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, r[k]]))

describe.each([
  ['an upstream home', true],
  ['a home Caduceus made (v30)', false]
])('import into %s', (_, upstreamHome) => {
  it('writes every column as upstream does: runtime state at defaults, upstream’s message rules', async () => {
    const { db, summary } = await imported(input, upstreamHome)
    expect(summary).toMatchObject({ imported: 4, skipped: 0, detached: 0 })
    const got = rows(db)
    expect(Object.keys(got.sessions).sort()).toEqual(Object.keys(want.sessions).sort())
    for (const [id, s] of Object.entries(want.sessions)) {
      expect(only(got.sessions[id]!, Object.keys(s)), id).toEqual(s)
      // columns upstream's fork lacks (v30's): at their default, except the prompt's hash Caduceus keeps with it
      for (const [c, v] of Object.entries(got.sessions[id]!))
        if (!(c in s) && c !== 'system_prompt_hash') expect(v, `${id}.${c}`).toBe(got.defaults[c] ?? null)
    }
    for (const [id, ms] of Object.entries(want.messages)) {
      const mine = got.messages[id]!.map(({ id: _id, ...m }) => m)
      expect(
        mine.map((m, i) => only(m, Object.keys(ms[i] ?? {}))),
        id
      ).toEqual(ms)
      for (const m of mine)
        for (const c of ['_compressed_summary', 'display_order', 'display_kind', 'api_content'])
          if (c in m) expect(m[c] ?? null, `${id}.${c}`).toBe(c === '_compressed_summary' ? 0 : null)
    }
  })

  it.skipIf(!hasSystemPython)(
    'leaves every FTS index consistent for the system SQLite after a NUL in tool_name',
    async () => {
      const { db } = await imported(input, upstreamHome)
      expect(ftsIntegrity(db)).toMatchObject(want.fts)
    }
  )
})

describe('import file shapes', () => {
  it('keeps the first line of a duplicated id and reports the later one by its line', async () => {
    const { summary, db } = await imported(input, false)
    const lines = input.split('\n').filter((l) => l.trim())
    const dup = lines.findLastIndex((l) => (JSON.parse(l) as { id: string }).id === 'x') + 1
    expect(summary.errors).toEqual([{ id: 'x', line: dup, reason: 'duplicate session id' }])
    expect(only(rows(db).sessions.x!, ['title', 'parent_session_id'])).toEqual({
      title: 'first',
      parent_session_id: 'p'
    })
  })

  it('reads a file that starts with a UTF-8 byte order mark (and CRLF line ends)', async () => {
    const text = '\ufeff' + input.split('\n').join('\r\n')
    const { summary } = await imported(text, false)
    expect(summary).toMatchObject({ imported: 4, detached: 0 })
    expect((summary.errors as unknown[]).length).toBe(1) // the duplicate only
  })

  it('places an imported session in the list by its last message (its own activity columns are not imported)', async () => {
    const { order } = await imported(input, false)
    // gw's exported last_activity_at (T + 5000) is the exporting machine's; its last message is T + 2
    expect(order.find((s) => s.id === 'gw')!.lastActiveAt).toBe(1_600_000_002)
    expect(order.map((s) => s.id)).toEqual(['p', 'edges', 'gw']) // x is p's child
  })
})

describe('numbers as a file spells them', () => {
  // upstream's import of each line alone (scripts/golden/import_rules.py numbers.json): what the value is to Python's
  // json (2.0 a float, -0 the int 0, an int past 2**53 exact) decides what lands — SQLite 3.40's text of the float
  // upstream binds for content, json.dumps for the JSON it re-dumps, str() for an id
  const lines = readFileSync(join(gold, 'numbers.jsonl'), 'utf8')
  const golden = JSON.parse(readFileSync(join(gold, 'numbers.json'), 'utf8')) as {
    lines: Array<{
      line: number
      result: { ok?: boolean; raised?: string }
      sessions: Array<Record<string, unknown>>
      messages: Array<Record<string, unknown>>
    }>
  }
  it('stores what upstream stores for each, and refuses the line upstream cannot import', async () => {
    // the store's import, which the host's sessions.import runs (no host to start: the rules are the store's)
    const home = mkdtempSync(join(tmpdir(), 'cad-import-numbers-'))
    dirs.push(home)
    const db = join(home, 'state.db')
    copyFileSync(join(gold, 'empty.db'), db)
    const store = new SessionStore(db)
    const summary = await store.importJsonl(lines, 100).finally(() => store.close())
    const raised = golden.lines.filter((l) => l.result.raised).map((l) => l.line)
    expect(summary.imported).toBe(golden.lines.length - raised.length)
    expect((summary.errors as Array<{ line: number }>).map((e) => e.line)).toEqual(raised)
    const file = new Database(db, { readonly: true })
    try {
      for (const l of golden.lines) {
        const ids = l.sessions.map((s) => s.id)
        const sessions = ids.map((id) =>
          file
            .prepare(
              `SELECT id, model_config, input_tokens, message_count, tool_call_count,
                 input_tokens || ',' || output_tokens AS tokens_text FROM sessions WHERE id = ?`
            )
            .get(id)
        )
        expect(sessions, `line ${l.line}`).toEqual(l.sessions)
        const messages = ids.flatMap((id) =>
          file
            .prepare(
              `SELECT session_id, role, content, typeof(content) AS content_type, tool_calls, token_count,
                 reasoning_details, codex_reasoning_items, codex_message_items,
                 CAST(token_count AS TEXT) AS token_count_text FROM messages WHERE session_id = ? ORDER BY id`
            )
            .all(id)
        )
        expect(messages, `line ${l.line}`).toEqual(l.messages)
      }
    } finally {
      file.close()
    }
  })
})
