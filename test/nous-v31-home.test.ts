// A home written on the NEWEST upstream schema (NousResearch/hermes-agent, SCHEMA_VERSION 31), not the v21 fork:
// test/fixtures/upstream/nous-v31, made by scripts/golden/nous_v31_home.py from upstream's own DDL — message
// identity (message_uid & co., minted by a trigger for a writer that binds none), the per-day usage ledger, display
// triggers, word/trigram FTS and, in the default profile, the CJK-bigram index of an install that has upstream's
// `cjk_unicode61` tokenizer extension (which this SQLite cannot load). Driven through headless host requests.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { Message, TurnFinished } from '@shared/contract'
import { classifyRow } from '@shared/contract/notice-rows'
import { rowSummary } from '@shared/contract'
import type { LogRecord } from '@shared/contract/log'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { startScriptedProvider } from '../src-main/agent/scripted'
import { startApiServer } from '../src-main/channels'
import { apiConversations } from '../src-main/host/app-channels'
import { apiHostHome } from '../src-main/channels/test-fixtures/api-home'
import { hasSystemPython, SYSTEM_PYTHON } from './support/fts-integrity'

const FIXTURE = join(__dirname, 'fixtures', 'upstream', 'nous-v31')
const HEATER = '20251201_090000_a1b2c3'
const CHILD = '20251201_090010_d3e4f5'
const TELEGRAM = '20251202_101500_0a0b0c'
const TIP = '20251203_093000_c0ffef'
const DESK = '20251205_140000_de5k01'
const API = '20251204_101010_ap1ap1'
const SIDECAR = '20251205_170000_apic01'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cad-nous-v31-'))
  dirs.push(dir)
  cpSync(FIXTURE, dir, { recursive: true })
  return dir
}

type Call = <O>(name: string, input: unknown) => Promise<O>

async function withHost<T>(dir: string, fn: (call: Call, host: Host) => Promise<T>) {
  const records: LogRecord[] = []
  const log = createLogger()
  log.attach((r) => records.push(r))
  const host = await createHost({ home: dir, headless: true, live: true, validateOutput: true, log })
  const call = async <O>(name: string, input: unknown): Promise<O> => {
    const r = await host.dispatcher.invoke(name as never, input as never)
    if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r)}`)
    return (r as unknown as { output: O }).output
  }
  try {
    return await fn(call, host)
  } finally {
    await host.close()
    expect(records.filter((r) => /no such (column|table|tokenizer)|database is locked/i.test(r.message))).toEqual([])
  }
}

/** What upstream checks of a state.db it opens: SQLite's integrity and each FTS5 index against its content. */
function upstreamChecks(path: string) {
  const db = new Database(path, { readonly: true })
  try {
    const has = (name: string) => db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined
    for (const t of ['messages_fts', 'messages_fts_trigram'].filter(has))
      db.prepare(`SELECT * FROM ${t} WHERE ${t} MATCH 'x' LIMIT 0`).all() // opens the index
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      version: db.prepare('SELECT MAX(version) FROM schema_version').pluck().get(),
      cjkTriggers: db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts_cjk_%' ORDER BY name"
        )
        .pluck()
        .all(),
      cjkStale: db.prepare("SELECT value FROM state_meta WHERE key = 'fts_cjk_stale'").pluck().get() ?? null,
      cjkTable: has('messages_fts_cjk'),
      // v31 message identity: every row has a uid (upstream's trigger mints one for a writer that binds none)
      withoutUid: db.prepare('SELECT COUNT(*) FROM messages WHERE message_uid IS NULL').pluck().get()
    }
  } finally {
    db.close()
  }
}

/** FTS5's own 'integrity-check' (what upstream's optimize/repair runs) on a writable copy of the checks' target. */
function ftsIntegrity(path: string): string[] {
  const db = new Database(path)
  const bad: string[] = []
  try {
    for (const t of ['messages_fts', 'messages_fts_trigram']) {
      try {
        db.prepare(`INSERT INTO ${t}(${t}, rank) VALUES('integrity-check', 1)`).run()
      } catch (e) {
        bad.push(`${t}: ${(e as Error).message}`)
      }
    }
  } finally {
    db.close()
  }
  return bad
}

describe('a home on the newest upstream schema (v31, NousResearch/hermes-agent)', () => {
  it('reads it as upstream shows it: lineage, usage, multimodal, tool calls, hidden scaffolding left out', async () => {
    const dir = home()
    await withHost(dir, async (call) => {
      const list = await call<{
        items: Array<{ id: string; profile: string; preview: string | null }>
        notices?: unknown[]
      }>('sessions.list', { profile: 'all' })
      // v31 is a schema Caduceus reads and writes beside as it is: no "newer than this Caduceus knows" notice
      expect(list.notices ?? []).toEqual([])
      // hidden (internal tool) and archived sessions are not listed; the compressed chain shows as its tip
      expect(list.items.map((s) => s.id).sort()).toEqual(
        [API, '20251204_060000_cr0n01', DESK, SIDECAR, TIP, '20251201_120000_b4a9c1', HEATER].sort()
      )
      // kanban workers and one-shot runs are not conversations: upstream's human session lists leave them out, and
      // a source filter that names them lists them
      const kanban = await call<{ items: Array<{ id: string }> }>('sessions.list', {
        profile: 'work',
        sources: ['kanban', 'oneshot']
      })
      expect(kanban.items.map((s) => s.id).sort()).toEqual(['20251205_150000_kanb01', '20251205_160000_one001'])
      // an untitled session's preview is its first user message a person saw, not upstream's hidden scaffolding
      expect(list.items.find((s) => s.id === DESK)?.preview).toBe('Plan the team offsite in Lisbon')

      const detail = await call<{
        systemPrompt: string | null
        usage: Array<{ model: string; task: string }>
        lineage: { delegateChildren: Array<{ id: string }>; branches: Array<{ id: string }> }
      }>('sessions.get', { profile: 'default', sessionId: HEATER })
      expect(detail.systemPrompt).toBe('You are Hermes. Be brief and exact.')
      expect(detail.usage.map((u) => `${u.model}/${u.task}`).sort()).toEqual([
        'anthropic/claude-sonnet-4/',
        'openai/gpt-4o-mini/title_generation'
      ])
      expect(detail.lineage.delegateChildren.map((c) => c.id)).toEqual([CHILD])
      expect(detail.lineage.branches.map((c) => c.id)).toEqual(['20251201_120000_b4a9c1'])

      type Msg = { role: string; content: string | null; displayKind: string | null; toolCalls: unknown[] | null }
      const heater = (await call<{ items: Msg[] }>('sessions.messages', { profile: 'default', sessionId: HEATER }))
        .items
      expect(heater.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'tool',
        'assistant',
        'user',
        'assistant',
        'user'
      ])
      expect(heater.some((m) => m.displayKind === 'hidden')).toBe(false)
      expect(heater[1].toolCalls).toHaveLength(2)
      const shed = (await call<{ items: Msg[] }>('sessions.messages', { profile: 'default', sessionId: TELEGRAM }))
        .items
      expect(shed[0].content).toContain('What kind of wood is this shed made of?')
      expect(shed[0].content).toContain('[image')

      const search = async (query: string) =>
        (await call<{ hits: Array<{ sessionId: string }> }>('sessions.search', { profile: 'all', query })).hits
          .map((h) => h.sessionId)
          .sort()
      expect(await search('checkpoint scaffolding')).toEqual([]) // only in rows upstream hides
      expect(await search('索引')).toEqual([HEATER, HEATER])
      expect(await search('spreadsheet')).toEqual([])
      expect(await search('budget memo')).toEqual([API, API])

      const subagents = await call<{ items: Array<{ childSessionId: string }> }>('subagents.list', {
        profile: 'default'
      })
      expect(subagents.items.map((s) => s.childSessionId)).toContain(CHILD)
      // per-day spend comes from upstream's own session_daily_usage ledger
      const costs = await call<{ byDay: Array<{ day: string }> }>('costs.summary', { profile: 'default', days: 3650 })
      expect(costs.byDay.map((d) => d.day)).toEqual(['2025-12-01', '2025-12-02', '2025-12-03'])
      await call('costs.session', { profile: 'default', sessionId: HEATER })
      await call('costs.summary', { profile: 'all' })
      for (const [name, input] of [
        ['memory.events', { profile: 'default' }],
        ['memory.entries', { profile: 'work' }],
        ['memory.providers', { profile: 'default' }],
        ['memory.health', { profile: 'all' }],
        ['subagents.list', { profile: 'work' }],
        ['sessions.get', { profile: 'default', sessionId: TIP }],
        ['sessions.get', { profile: 'work', sessionId: DESK }]
      ] as const)
        await call(name, input)
    })
  }, 30_000)

  it("a session's cost is upstream's one rule everywhere: routes (auxiliary calls too) plus the row's excess", async () => {
    const dir = home()
    await withHost(dir, async (call) => {
      type Money = { usd: number | null }
      const list = await call<{ items: Array<{ id: string; cost: Money }> }>('sessions.list', { profile: 'default' })
      const detail = await call<{ summary: { cost: Money } }>('sessions.get', { profile: 'default', sessionId: HEATER })
      const own = await call<{ own: Money }>('costs.session', { profile: 'default', sessionId: HEATER })
      const summary = await call<{ topSessions: Array<{ sessionId: string; own: Money }> }>('costs.summary', {
        profile: 'default',
        days: 3650,
        allSessions: true
      })
      // the sessions row holds the main loop's $0.0213; the title_generation route's $0.0002 is only in its route row
      expect(own.own.usd).toBeCloseTo(0.0215, 6)
      expect(list.items.find((s) => s.id === HEATER)?.cost.usd).toBeCloseTo(0.0215, 6)
      expect(detail.summary.cost.usd).toBeCloseTo(0.0215, 6)
      expect(summary.topSessions.find((s) => s.sessionId === HEATER)?.own.usd).toBeCloseTo(0.0215, 6)
      // a compression route ($0.011) beside the row's $0.04: the same rule
      const chainRoot = await call<{ summary: { cost: Money } }>('sessions.get', {
        profile: 'default',
        sessionId: '20251203_080000_c0ffee'
      })
      expect(chainRoot.summary.cost.usd).toBeCloseTo(0.051, 6)
      // upstream's hidden internal session is in no session list, nor in the Costs page's sessions
      expect(summary.topSessions.map((s) => s.sessionId)).not.toContain('20251201_130000_hidden')
    })
  }, 30_000)

  it("upstream's async delegation and the child session it ran show as one Subagents entry", async () => {
    const dir = home()
    await withHost(dir, async (call) => {
      type Item = { delegationId: string; childSessionId: string; goal: string; summary: string | null }
      const { items } = await call<{ items: Item[] }>('subagents.list', { profile: 'default' })
      // the row records no child id: the child is found as upstream runs it — a delegate child of the parent whose
      // first user message is the goal, started in the delegation's window
      expect(items.map((i) => [i.delegationId, i.childSessionId, i.goal])).toEqual([
        ['dlg_7f3a', CHILD, 'Find the expansion vessel pre-charge for a Vaillant ecoTEC']
      ])
      expect(items[0]!.summary).toBe('pre-charge is 0.75 bar')
    })
  }, 30_000)

  it("the Sessions page's source filter can offer every source the profiles have, those listed only when named too", async () => {
    const dir = home()
    await withHost(dir, async (call) => {
      type Page = { items: Array<{ source: string }>; nextCursor: string | null }
      const work = await call<Page>('sessions.list', { profile: 'work', limit: 1 })
      // kanban workers and one-shot runs are not listed by default (as the newest upstream hides them) ...
      expect(work.items.map((s) => s.source)).not.toContain('kanban')
      // ... but the profile's sources name them, so the filter can offer them
      const sources = (profile: string) => call<{ sources: string[] }>('sessions.sources', { profile })
      expect((await sources('work')).sources).toEqual(['api_server', 'cron', 'desktop', 'kanban', 'oneshot'])
      // every profile's sources; the hidden internal `tool` session's is not one a filter could list
      expect((await sources('all')).sources).toEqual([
        'api_server',
        'cli',
        'cron',
        'desktop',
        'kanban',
        'oneshot',
        'subagent',
        'telegram',
        'tui'
      ])
      // the list itself carries none: its first page is the hot path
      expect(work).not.toHaveProperty('sources')
    })
  }, 30_000)

  it('a "[System: …]" note stored as a user turn, and a session_meta row, are in no transcript, as upstream\'s clients leave them out', async () => {
    const dir = home()
    // as upstream's gateway stores its runtime notes (a model switch) and Caduceus its continuation prompts: user rows
    const db = new Database(join(dir, 'profiles', 'work', 'state.db'))
    const add = db.prepare(
      'INSERT INTO messages(session_id, role, content, timestamp, display_kind) VALUES (?, ?, ?, ?, ?)'
    )
    const at = 1764950000
    add.run(DESK, 'user', '[System: The user switched the model to openai/gpt-5 — carry on with it.]', at, null)
    add.run(
      DESK,
      'user',
      '\n [System: The output length limit cut your last reply short.]',
      at + 1,
      'continuation_notice'
    )
    add.run(DESK, 'user', '[Systemd] why does my unit restart every minute?', at + 2, null)
    add.run(DESK, 'user', '[System] is what my log line starts with', at + 3, null)
    add.run(DESK, 'assistant', '[System: an assistant reply is no note]', at + 4, null)
    // upstream's gateway opens a session's transcript with a `session_meta` row (its append_message, no content): a
    // record for its logs, which its resume, HTML export and history load all skip; it read "Session_meta (empty
    // message)" at the transcript's end
    add.run(DESK, 'session_meta', null, at + 5, null)
    db.close()
    await withHost(dir, async (call) => {
      const { items } = await call<{ items: Array<{ role: string; content: string | null }> }>('sessions.messages', {
        profile: 'work',
        sessionId: DESK
      })
      expect(items.filter((m) => m.role === 'session_meta')).toEqual([])
      const texts = items.map((m) => m.content ?? '')
      expect(texts.filter((t) => t.includes('switched the model') || t.includes('length limit'))).toEqual([])
      expect(texts.slice(-3)).toEqual([
        '[Systemd] why does my unit restart every minute?',
        '[System] is what my log line starts with',
        '[System: an assistant reply is no note]'
      ])
      // a search hit is a row the transcript shows
      const hits = await call<{ hits: Array<{ sessionId: string }> }>('sessions.search', {
        profile: 'work',
        query: 'switched'
      })
      expect(hits.hits).toEqual([])
    })
  }, 30_000)

  it("a row v31's _compressed_summary marks is a summary whatever it opens with; unmarked, the openings decide", async () => {
    const dir = home()
    // a later upstream's summary opening no reader knows yet, in the row upstream flagged, and the same words a user
    // types (no flag), and a flagged summary merged into the kept question
    const NEW_OPENING = '[HANDOFF NOTES — a later upstream] Earlier turns gathered receipts for quarters 0-5.'
    const db = new Database(join(dir, 'state.db'))
    // this SQLite cannot load the CJK index's tokenizer its triggers write through: this test only reads the rows
    for (const t of db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts_cjk_%'")
      .pluck()
      .all() as string[])
      db.exec(`DROP TRIGGER "${t}"`)
    db.prepare('UPDATE messages SET content = ? WHERE session_id = ? AND _compressed_summary = 1').run(NEW_OPENING, TIP)
    db.prepare('INSERT INTO messages(session_id, role, content, timestamp) VALUES (?, ?, ?, ?)').run(
      TIP,
      'user',
      NEW_OPENING,
      1764950000
    )
    db.close()
    await withHost(dir, async (call) => {
      const page = await call<{ items: Message[] }>('sessions.messages', { profile: 'default', sessionId: TIP })
      const typed = page.items.filter((m) => m.content === NEW_OPENING)
      expect(typed.map((m) => [m.compressedSummary ?? false, classifyRow(m)?.kind ?? null])).toEqual([
        [true, 'summary'],
        [false, null]
      ])
      // the Markdown export folds the flagged row only
      const md = await call<{ content: string }>('sessions.export', {
        profile: 'default',
        sessionId: TIP,
        format: 'markdown'
      })
      expect(md.content.match(/<details><summary>Compaction summary/g)).toHaveLength(1)
    })
  }, 30_000)

  it("a resumed continuation merges upstream's flagged summary and the user's next turn, the turn still the user's", () => {
    // the continuation opens with the summary upstream flagged, then the user's question: two user turns, which the
    // history sent to a model runs together — flagged as holding a summary, the question kept apart from it
    const store = new SessionStore(join(home(), 'state.db'))
    try {
      const [first, next] = store.getMessagesAsConversation(TIP, { repairAlternation: true })
      expect(first!.compressedSummary).toBe(true)
      expect(rowSummary('user', first!.content, first!.compressedSummary)?.kept).toBe(
        'Now file the quarterly VAT return'
      )
      expect(next!.role).toBe('assistant')
    } finally {
      store.close()
    }
  })

  it('writes keep working beside a CJK index whose tokenizer is missing, as upstream itself keeps them', async () => {
    const dir = home()
    const exported = await withHost(dir, async (call) => {
      const jsonl = await call<{ content: string }>('sessions.export', { profile: 'work', sessionId: API })
      await call('sessions.update', { profile: 'default', sessionId: HEATER, title: 'Boiler fix', archived: true })
      expect(await call('sessions.delete', { profile: 'default', sessionId: TELEGRAM })).toEqual({
        deleted: true,
        detachedChildren: 0
      })
      const pruned = await call<{ deleted: number }>('sessions.prune', { profile: 'default', olderThanDays: null })
      expect(pruned.deleted).toBeGreaterThan(0)
      const imported = await call<{ imported: number; errors: unknown[] }>('sessions.import', {
        profile: 'default',
        content: jsonl.content
      })
      expect(imported).toMatchObject({ imported: 1, errors: [] })
      expect(
        (await call<{ hits: Array<{ sessionId: string }> }>('sessions.search', { profile: 'default', query: 'budget' }))
          .hits[0]?.sessionId
      ).toBe(API)
      return jsonl.content
    })
    expect(exported).toContain('budget')
    const path = join(dir, 'state.db')
    // upstream's rule for a process without the tokenizer: index marked stale, its triggers dropped, table kept
    expect(upstreamChecks(path)).toEqual({
      integrity: 'ok',
      version: 31,
      cjkTriggers: [],
      cjkStale: '1',
      cjkTable: true,
      withoutUid: 0
    })
    expect(ftsIntegrity(path)).toEqual([])
    // the profile without a CJK index keeps its schema untouched by that rule
    expect(upstreamChecks(join(dir, 'profiles', 'work', 'state.db'))).toMatchObject({ cjkStale: null, cjkTable: false })
  }, 30_000)

  it.skipIf(!hasSystemPython)(
    "a Caduceus turn lands in it as upstream expects: uid minted, FTS whole for upstream's SQLite, deletable there",
    async () => {
      const provider = await startScriptedProvider({
        handler: () => ({ text: '检查膨胀罐的预充压力 — check the vessel' })
      })
      const { root, host } = await apiHostHome({
        prefix: 'cad-nous-v31-turn-',
        baseUrl: provider.baseUrl,
        key: 'k-nous-turn-0123456789',
        before: (dir) => cpSync(join(FIXTURE, 'state.db'), join(dir, 'state.db'))
      })
      dirs.push(root)
      const server = await startApiServer({
        gateway: host.gateway,
        vault: host.vault,
        profile: 'default',
        home: root,
        port: 0,
        sessions: apiConversations(host.stores, 'default')
      })
      let sid = ''
      try {
        const r = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: 'Bearer k-nous-turn-0123456789', 'content-type': 'application/json' },
          body: JSON.stringify({ messages: [{ role: 'user', content: '膨胀罐 pre-charge again?' }] })
        })
        expect(r.status).toBe(200)
        sid = r.headers.get('x-hermes-session-id')!
      } finally {
        await server.close()
        await host.close()
        await provider.close()
      }
      const path = join(root, 'state.db')
      expect(upstreamChecks(path)).toMatchObject({ integrity: 'ok', version: 31, cjkTriggers: [], withoutUid: 0 })
      // upstream's SQLite (3.40): its FTS checks pass, and it deletes the new session as its delete_session does
      const py = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA foreign_keys=ON")
n = c.execute("SELECT COUNT(*) FROM messages WHERE session_id = ?", (sys.argv[2],)).fetchone()[0]
c.execute("DELETE FROM messages WHERE session_id = ?", (sys.argv[2],))
c.execute("DELETE FROM session_model_usage WHERE session_id = ?", (sys.argv[2],))
c.execute("DELETE FROM sessions WHERE id = ?", (sys.argv[2],))
c.commit()
out = {"messages": n}
for t in ("messages_fts", "messages_fts_trigram"):
    c.execute(f"INSERT INTO {t}({t}, rank) VALUES('integrity-check', 1)"); out[t] = "ok"
print(json.dumps(out))`
      expect(JSON.parse(execFileSync(SYSTEM_PYTHON, ['-c', py, path, sid], { encoding: 'utf8' }))).toEqual({
        messages: 2,
        messages_fts: 'ok',
        messages_fts_trigram: 'ok'
      })
    },
    30_000
  )

  it('a resumed session replays what upstream sent the model (api_content), not only what it showed', async () => {
    const dir = home()
    const provider = await startScriptedProvider({ handler: () => ({ text: 'Six.' }) })
    writeFileSync(
      join(dir, 'profiles', 'work', 'config.yaml'),
      `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\n`
    )
    try {
      await withHost(dir, async (call, host) => {
        const finished = new Promise<void>((resolve) =>
          host.bus.subscribe((e) => {
            if (e.event === 'turn.finished' && (e.payload as TurnFinished).sessionId === SIDECAR) resolve()
          })
        )
        await call('sessions.resume', { profile: 'work', sessionId: SIDECAR, text: 'And 3+3?' })
        await finished
      })
      const sent = (provider.requests[0]!.body!.messages as Array<{ role: string; content: unknown }>).filter(
        (m) => m.role !== 'system'
      )
      expect(sent.map((m) => [m.role, m.content])).toEqual([
        ['user', 'What is 2+2?\n\n[memory: the user prefers one-word answers]'],
        ['assistant', 'Four.'],
        ['user', 'And 3+3?']
      ])
    } finally {
      await provider.close()
    }
  }, 30_000)
})
