// Fidelity with upstream on a home Caduceus never saw (scripts/golden/fidelity.py, test/fixtures/upstream/fidelity):
// two profiles written only by upstream's SessionDB (a live compression tip, nested delegates of an old parent,
// compaction and rewind, several images in one message, a NUL in a tool output, 1970 and 2099 sessions). Every
// #22 path runs through Caduceus's CLI/API and is compared with what upstream's own code answered on the same
// data; afterwards the system Python's SQLite (the one that indexed the home) runs upstream's integrity checks.
import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { MESSAGE_FIELD_MAX_BYTES, MESSAGE_PREVIEW_CHARS, MESSAGE_TEXT_CHUNK, type Message } from '@shared/contract'
import { mergeSummaryInto, rowSummary, splitMergedSummary } from '@shared/contract/merged-summary'
import { classifyRow, mergedSummaryOf, unreadText } from '@shared/contract/notice-rows'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { parseArgs } from '../src-main/host/cli/args'
import { sessionAdminCli } from '../src-main/host/cli/sessions-admin'
import { sessions as sessionsCli } from '../src-main/host/cli/sessions'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'
import { SessionStore } from '../src-main/store'
import { summarizeTurns } from '../src-renderer/pages/session/turn-usage'
import { pairToolCalls } from '../src-renderer/pages/session/tool-pairs'

type Rec = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const gold = resolve(import.meta.dirname, 'fixtures/upstream/fidelity')
const U = JSON.parse(readFileSync(join(gold, 'upstream.json'), 'utf8')) as Record<'default' | 'work', Rec>
const BACK = JSON.parse(readFileSync(join(gold, 'caduceus-through-upstream.json'), 'utf8')) as Rec
const PROFILES = ['default', 'work'] as const
const dbOf = (home: string, p: string) =>
  p === 'default' ? join(home, 'state.db') : join(home, 'profiles', p, 'state.db')
const jsonl = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Rec)

const PY = '/usr/bin/python3'
const hasPython = existsSync(PY)
/** Upstream's checks with the system SQLite, for many homes in one process: integrity + plain-word FTS answers. */
const PY_EYES = `
import json, sqlite3, sys
words = json.loads(sys.argv[1]); out = {}
for path in sys.argv[2:]:
    c = sqlite3.connect(path); fts = {}
    for (t,) in c.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"):
        try:
            c.execute(f"INSERT INTO {t}({t}) VALUES('integrity-check')"); fts[t] = "ok"
        except sqlite3.DatabaseError as e:
            fts[t] = str(e)
    fts["integrity_check"] = c.execute("PRAGMA integrity_check").fetchone()[0]
    q = "SELECT DISTINCT m.session_id FROM messages_fts f JOIN messages m ON m.id = f.rowid WHERE messages_fts MATCH ? AND (m.active = 1 OR m.compacted = 1) ORDER BY 1"
    out[path] = {"fts": fts, "search": {w: [r[0] for r in c.execute(q, (w,))] for w in words}}
    c.close()
print(json.dumps(out))
`
/** Plain words: upstream's search_messages answers them with one FTS5 MATCH, so the system SQLite can re-ask. */
const WORDS = [
  'heater',
  'delegate',
  'giraffe',
  'parchment',
  'tokyo',
  'oldword',
  'compactword',
  'report',
  'summary',
  'walrus'
]
const upstreamEyes = (paths: string[]) =>
  JSON.parse(execFileSync(PY, ['-c', PY_EYES, JSON.stringify(WORDS), ...paths], { encoding: 'utf8' })) as Record<
    string,
    { fts: Record<string, string>; search: Record<string, string[]> }
  >
const pickSearch = (s: Record<string, string[]>) => Object.fromEntries(WORDS.map((w) => [w, s[w]]))

afterAll(cleanupTempDirs)
// The CLI code run in this process logs into a temp folder, as the spawned CLI tests' children do, not into the
// user's data folder (test/support/fresh-file.ts restores the environment for the next file).
beforeAll(() => {
  process.env.CADUCEUS_LOG_DIR = tempDir('cad-fidelity-logs-')
})
const tmp = () => tempDir('cad-fidelity-')
const goldenHome = () => {
  const d = tmp()
  cpSync(join(gold, 'home'), d, { recursive: true })
  return d
}
const open = (home: string) =>
  createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
const call = async (host: Host, name: string, input: unknown): Promise<Rec> => {
  const r = await host.dispatcher.invoke(name as never, input as never)
  if (!r.ok) throw new Error(JSON.stringify(r.error))
  return r.output as Rec
}
/** Runs `caduceus sessions <sub> …` through the CLI's own code in-process and returns what it printed. */
const cli = async (host: Host, sub: string, arg: string | undefined, argv: string[]) => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {})
  try {
    expect(await sessionAdminCli(host, sub, arg, parseArgs(['sessions', sub, ...argv]))).toBe(0)
    return log.mock.calls.map((c) => String(c[0])).join('\n')
  } finally {
    log.mockRestore()
  }
}

/** JSON.parse, or `fallback` where upstream's reader falls back (raw content, [] for tool_calls). */
const parsed = (text: string, fallback: unknown) => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return fallback
  }
}
/** upstream's get_messages/get_session of a home, by its rules, read with plain SQL (what a v21 reader sees). */
function asUpstream(path: string) {
  const db = new Database(path, { readonly: true })
  try {
    const session = (id: string) => db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Rec | undefined
    const messages = (id: string) =>
      (db.prepare('SELECT * FROM messages WHERE session_id = ? AND active = 1 ORDER BY id').all(id) as Rec[]).map(
        (m) => ({
          ...m,
          content:
            typeof m.content === 'string' && m.content.startsWith('\u0000json:')
              ? parsed(m.content.slice(6), m.content)
              : m.content,
          tool_calls: m.tool_calls ? parsed(String(m.tool_calls), []) : m.tool_calls
        })
      )
    const ids = db.prepare('SELECT id FROM sessions ORDER BY id').pluck().all() as string[]
    return Object.fromEntries(ids.map((id) => [id, { session: session(id)!, messages: messages(id) }]))
  } finally {
    db.close()
  }
}
const MSG = ['role', 'content', 'tool_calls', 'tool_call_id', 'tool_name', 'finish_reason', 'reasoning']
const MSG_ALL = [...MSG, 'reasoning_details', 'token_count', 'timestamp']
const SESSION = [
  'source',
  'user_id',
  'model',
  'model_config',
  'system_prompt',
  'parent_session_id',
  'started_at',
  'ended_at',
  'end_reason',
  'title',
  'archived',
  'input_tokens',
  'output_tokens'
]
const noId = ({ id: _id, ...m }: Rec) => m // eslint-disable-line @typescript-eslint/no-unused-vars
const pick = (m: Rec, keys: string[]) => Object.fromEntries(keys.map((k) => [k, m[k] ?? null]))

describe('reads of an upstream-written home (export, lineage, search, list, show)', () => {
  let host: Host
  let home: string
  beforeAll(async () => {
    home = goldenHome()
    host = await open(home)
  })
  afterAll(() => host.close())

  it.each(PROFILES)(
    "export of profile %s is upstream's export_all: same sessions in the same order, every field upstream wrote",
    async (profile) => {
      const mine = jsonl((await call(host, 'sessions.export', { profile, format: 'jsonl' })).content)
      const theirs = U[profile].export_all as Rec[]
      expect(mine.map((r) => r.id)).toEqual(theirs.map((r) => r.id))
      theirs.forEach((t, i) => {
        const m = mine[i]!
        const { messages, ...session } = t
        expect(pick(m, Object.keys(session))).toEqual(session)
        expect(m.messages.map((x: Rec) => pick(x, Object.keys(messages[0] ?? {})))).toEqual(messages)
        for (const x of m.messages) expect(x.active).toBe(1)
      })
    }
  )

  it("--lineage is upstream's export_session_lineage, for a 4-segment chain and for a session never continued", async () => {
    for (const [id, want] of Object.entries(U.default.lineage as Record<string, Rec>)) {
      const got = jsonl(
        (await call(host, 'sessions.export', { profile: 'default', format: 'jsonl', lineage: true, sessionId: id }))
          .content
      )
      expect(got).toHaveLength(1)
      const g = got[0]!
      expect(pick(g, ['id', 'lineage_session_ids', 'message_count', 'title', 'ended_at'])).toEqual(
        pick(want, ['id', 'lineage_session_ids', 'message_count', 'title', 'ended_at'])
      )
      expect(g.segments.map((s: Rec) => s.id)).toEqual(want.segments.map((s: Rec) => s.id))
      expect(g.messages.map((m: Rec) => pick(m, ['session_id', ...MSG_ALL]))).toEqual(
        want.messages.map((m: Rec) => pick(m, ['session_id', ...MSG_ALL]))
      )
    }
  })

  it("search answers upstream's search_messages, compacted rows found and rewound ones not; emoji is Caduceus's fallback", async () => {
    for (const profile of PROFILES)
      for (const [q, want] of Object.entries(U[profile].search as Record<string, string[]>)) {
        const r = await call(host, 'sessions.search', { profile, query: q, limit: 200 })
        const got = [...new Set((r.hits as Rec[]).map((h) => h.sessionId as string))].sort()
        if (q === '🚀') {
          // upstream's FTS5 cannot answer an emoji (it finds nothing); Caduceus scans and says so
          expect(want).toEqual([])
          expect(got).toEqual(profile === 'default' ? ['chain-0', 'chain-1', 'chain-2', 'chain-3'] : [])
          expect(r.fallback).toBeTruthy()
        } else expect({ q, profile, got }).toEqual({ q, profile, got: want })
      }
  })

  it("the list is in upstream's last-activity order (last message time, even one dated before the start)", async () => {
    for (const profile of PROFILES) {
      const r = await call(host, 'sessions.list', { profile, limit: 500 })
      // every row upstream lists, in its order: roots, chain tips, and a /branch (`_branched_from`) on its own
      expect((r.items as Rec[]).map((s) => s.id)).toEqual(U[profile].list)
      // the time shown is upstream's last_active (export_all carries it), in the list and in the detail alike
      const lastActive = Object.fromEntries((U[profile].export_all as Rec[]).map((e) => [e.id, e.last_active]))
      for (const item of r.items as Rec[]) {
        if (item.kind === 'continuation') continue // a chain's tip: upstream projects the chain's latest
        const detail = await call(host, 'sessions.get', { profile, sessionId: item.id })
        expect({ id: item.id, list: item.lastActiveAt, detail: detail.summary.lastActiveAt }).toEqual({
          id: item.id,
          list: lastActive[item.id],
          detail: lastActive[item.id]
        })
      }
    }
  })

  it('show keeps a NUL-bearing tool output whole and multimodal parts as text plus image placeholders', async () => {
    const page = await call(host, 'sessions.messages', { profile: 'default', sessionId: 'big-tools' })
    expect((page.items as Rec[]).map((m) => m.content)).toEqual([
      'write the heater report',
      '',
      'wrote 1 file',
      'binary\u2400output parchment',
      'Report written.'
    ])
    const mm = await call(host, 'sessions.messages', { profile: 'default', sessionId: 'mm-many' })
    expect((mm.items as Rec[])[0]!.content).toBe(
      'compare these giraffe photos\n[image: image/png, 192 B]\n[image: image/jpeg, 162 B]\nand this one\n[image: image/png, 192 B]'
    )
    // a search hit in a multimodal row is cut from its text and placeholders, not from its stored JSON
    const hits = (await call(host, 'sessions.search', { profile: 'default', query: 'walrus' })).hits as Rec[]
    const snippets = hits.map((h) => (h.snippet as Rec[]).map((p) => p.text).join(''))
    expect(snippets).toContain('[audio: audio]\nhear this walrus')
    for (const t of snippets) expect(t).not.toMatch(/"type"|\u0000/)
    const big = (page.items as Rec[])[1]!.toolCalls as Rec[]
    expect(big.map((c) => c.name)).toEqual(['write_file', 'terminal'])
    // upstream's compaction: compacted rows stay shown and are marked; rewound rows (inactive only) are not shown
    const compact = (await call(host, 'sessions.messages', { profile: 'default', sessionId: 'compact' })).items as Rec[]
    expect(compact.map((m) => [m.content, m.compacted ?? false])).toEqual([
      ['compactword early detail', true],
      ['early answer', true],
      ['summary of earlier turns', false],
      ['never mind', false]
    ])
    // …and `caduceus sessions show` says so too (the CLI's own code, in-process)
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    try {
      expect(await sessionsCli(parseArgs(['sessions', 'show', 'compact', '--home', home]))).toBe(0)
      expect(String(log.mock.calls[0]?.[0]).split('\n').slice(-4)).toEqual([
        '[user · compacted] compactword early detail',
        '[assistant · compacted] early answer',
        '[user] summary of earlier turns',
        '[user] never mind'
      ])
      // upstream's calls under their message, arguments read as text (upstream stores them ASCII-escaped)
      expect(await sessionsCli(parseArgs(['sessions', 'show', 'big-tools', '--home', home]))).toBe(0)
      const shown = String(log.mock.calls[1]?.[0]).split('\n')
      // each call's result printed under it, read as text: the NUL-bearing output whole, not the stored JSON
      expect(shown).toContain('      binary\u2400output parchment')
      expect(shown.filter((l) => l.startsWith('  → '))).toEqual([
        expect.stringMatching(
          /^ {2}→ write_file\(path: rapport-été\.md · content: Heater ✓ ünïcödé 東京 Heater ✓ .*…\)$/
        ),
        '  → terminal(cmd: ls -la)'
      ])
    } finally {
      log.mockRestore()
    }
    // the list's preview of an untitled session that opens with an image message: its text and placeholders, never
    // the stored JSON; when the message is too long to read whole, what its first 600 characters hold
    const list = (await call(host, 'sessions.list', { profile: 'default', limit: 500 })).items as Rec[]
    const previews = Object.fromEntries(list.map((s) => [s.id, s.preview]))
    expect(previews['mm-many']).toBe('compare these giraffe photos [image] [image]')
    const work = (await call(host, 'sessions.list', { profile: 'work', limit: 500 })).items as Rec[]
    expect(work.find((s) => s.id === 'work-mm')?.preview).toMatch(/^\[image: image\/png, 192 B\]/)
  })
})

describe("imports, both directions, read through upstream's eyes", () => {
  it("upstream's export imported into an empty root reads as upstream's own home (system prompt included)", async () => {
    const home = tmp()
    const host = await open(home)
    try {
      const content = (U.default.export_all as Rec[]).map((r) => JSON.stringify(r)).join('\n')
      const file = join(home, 'in.jsonl')
      execFileSync('sh', ['-c', 'cat > "$1"', 'sh', file], { input: content })
      const out = await cli(host, 'import', file, ['--json'])
      expect(JSON.parse(out)).toMatchObject({
        imported: U.default.export_all.length,
        skipped: 0,
        detached: 0,
        errors: []
      })
    } finally {
      await host.close()
    }
    const back = asUpstream(join(home, 'state.db'))
    for (const [id, v] of Object.entries(U.default.view as Record<string, Rec>)) {
      expect(back[id]!.messages.map((m: Rec) => pick(m, MSG_ALL))).toEqual(
        (v.messages as Rec[]).filter((m) => m.active === 1).map((m) => pick(m, MSG_ALL))
      )
      expect(pick(back[id]!.session, SESSION)).toEqual(pick(v.session, SESSION))
    }
    expect(back['big-tools']!.session.system_prompt).toBe('Système: réponds brièvement ✓')
    if (hasPython)
      expect(upstreamEyes([join(home, 'state.db')])[join(home, 'state.db')]!.fts).toMatchObject({
        messages_fts: 'ok',
        integrity_check: 'ok'
      })
  })

  it("the default profile's export imported into the work profile (upstream-indexed, one id shared) matches upstream's import", async () => {
    const home = goldenHome()
    const host = await open(home)
    try {
      const file = join(home, 'in.jsonl')
      execFileSync('sh', ['-c', 'cat > "$1"', 'sh', file], {
        input: (U.default.export_all as Rec[]).map((r) => JSON.stringify(r)).join('\n')
      })
      const out = await cli(host, 'import', file, ['--json', '--profile', 'work'])
      const want = U.work.import_default_export
      expect(JSON.parse(out)).toMatchObject({ imported: want.result.imported, skipped: want.result.skipped })
    } finally {
      await host.close()
    }
    const path = dbOf(home, 'work')
    const back = asUpstream(path)
    const want = U.work.import_default_export
    expect(Object.keys(back).sort()).toEqual(Object.keys(want.sessions).sort())
    for (const [id, v] of Object.entries(want.view as Record<string, Rec>)) {
      expect(back[id]!.messages.map((m: Rec) => pick(m, MSG_ALL))).toEqual(
        (v.messages as Rec[]).filter((m) => m.active === 1).map((m) => pick(m, MSG_ALL))
      )
      expect(pick(back[id]!.session, SESSION)).toEqual(pick(v.session, SESSION))
    }
    if (hasPython) {
      const eyes = upstreamEyes([path])[path]!
      expect(eyes.fts).toEqual(want.fts)
      expect(eyes.search).toEqual(pickSearch(want.search))
    }
  })

  it('a Caduceus→Caduceus round trip keeps rewound and compacted rows inactive: counts, search and flags as before', async () => {
    const src = await open(goldenHome())
    let content: string
    try {
      content = (await call(src, 'sessions.export', { profile: 'default', format: 'jsonl' })).content
    } finally {
      await src.close()
    }
    const host = await open(tmp())
    try {
      expect(await call(host, 'sessions.import', { profile: 'default', content })).toMatchObject({ errors: [] })
      for (const [q, want] of Object.entries(U.default.search as Record<string, string[]>)) {
        // '🚀' is Caduceus's scan (above); the new root is v30, whose index takes a tool row through substr(), which
        // ends at a NUL: 'parchment' (after the NUL in a tool output) is out of v30's reach, as in upstream v30's own
        if (q === '🚀' || q === 'parchment') continue
        const hits = (await call(host, 'sessions.search', { profile: 'default', query: q, limit: 200 })).hits as Rec[]
        expect({ q, got: [...new Set(hits.map((h) => h.sessionId))].sort() }).toEqual({ q, got: want })
      }
      const list = (await call(host, 'sessions.list', { profile: 'default', limit: 500, includeChildren: true }))
        .items as Rec[]
      const byId = new Map(list.map((s) => [s.id, s]))
      for (const [id, v] of Object.entries(U.default.view as Record<string, Rec>)) {
        const active = (v.messages as Rec[]).filter((m) => m.active === 1)
        if (byId.has(id)) expect({ id, n: byId.get(id)!.messageCount }).toEqual({ id, n: active.length })
      }
    } finally {
      await host.close()
    }
  })

  it.each(PROFILES)(
    "Caduceus's export of %s, imported by upstream (committed), reads back as upstream's own view",
    async (profile) => {
      const host = await open(goldenHome())
      let mine: Rec[]
      try {
        mine = jsonl((await call(host, 'sessions.export', { profile, format: 'jsonl' })).content)
      } finally {
        await host.close()
      }
      // today's export is, message by message, the one upstream imported when the golden was made
      const committed = jsonl(readFileSync(join(gold, `caduceus-export-${profile}.jsonl`), 'utf8'))
      expect(mine.map((r) => r.id)).toEqual(committed.map((r) => r.id))
      mine.forEach((r, i) => {
        expect(r.messages.map((m: Rec) => pick(m, MSG_ALL))).toEqual(
          committed[i]!.messages.map((m: Rec) => pick(m, MSG_ALL))
        )
        expect(pick(r, SESSION)).toEqual(pick(committed[i]!, SESSION))
      })
      // …and what upstream read from it is what upstream reads from its own home
      const back = BACK[profile]
      expect(back.import).toMatchObject({ ok: true, imported: mine.length, errors: [] })
      expect(back.fts).toEqual({ messages_fts: 'ok', messages_fts_trigram: 'ok', integrity_check: 'ok' })
      // upstream's own export leaves compacted rows out, so its own round trip cannot find them either (the
      // work profile's import of the default export, upstream's code end to end, answers the same)
      const compacted = profile === 'default' ? { compactword: U.work.import_default_export.search.compactword } : {}
      expect(compacted).toEqual(profile === 'default' ? { compactword: [] } : {})
      expect(back.search).toEqual({ ...U[profile].search, ...compacted })
      for (const [id, v] of Object.entries(U[profile].view as Record<string, Rec>)) {
        // every column upstream reads back, but the row id (a new home numbers its own rows)
        expect(back.view[id].messages.map(noId)).toEqual((v.messages as Rec[]).filter((m) => m.active === 1).map(noId))
        expect(pick(back.view[id].session, SESSION)).toEqual(pick(v.session, SESSION))
      }
    }
  )
})

// Upstream's CLI (`hermes sessions prune`, scripts/golden/prune_cli.py) drops the 90-day cutoff once any filter is
// given, where its SessionDB.prune_sessions keeps it: the same flags select the same sessions, in the same order.
describe("prune's selection is upstream CLI's for the same flags", () => {
  const golden = JSON.parse(readFileSync(join(gold, 'prune-cli.json'), 'utf8')) as {
    cases: Array<{ flags: string[]; candidates: string[] }>
    archive_cases: Array<{ flags: string[]; candidates: string[] | 'refused' }>
    archive_written: Array<{ flags: string[]; archived: string[] }>
  }
  let host: Host
  beforeAll(async () => {
    host = await open(goldenHome())
  })
  afterAll(() => host.close())

  it.each(golden.cases.map((c) => [c.flags.join(' ') || '(no flag)', c] as const))('%s', async (_, c) => {
    const dry = JSON.parse(await cli(host, 'prune', undefined, [...c.flags, '--dry-run', '--json']))
    expect(dry.candidates.map((r: Rec) => r.id)).toEqual(c.candidates)
  })

  it.each(golden.archive_cases.map((c) => [c.flags.join(' ') || '(no flag)', c] as const))(
    'archive %s',
    async (_, c) => {
      const argv = [...c.flags, '--dry-run', '--json']
      if (c.candidates === 'refused')
        return expect(
          sessionAdminCli(host, 'archive', undefined, parseArgs(['sessions', 'archive', ...argv]))
        ).rejects.toThrow(/at least one filter/)
      const dry = JSON.parse(await cli(host, 'archive', undefined, argv))
      expect(dry.candidates.map((r: Rec) => r.id)).toEqual(c.candidates)
    }
  )

  // Upstream archives each match's whole compression lineage (set_session_archived): a chain stays one conversation.
  it.each(golden.archive_written.map((c) => [c.flags.join(' '), c] as const))(
    'archive %s --yes leaves archived what upstream leaves archived, and deletes nothing',
    async (_, c) => {
      const home = goldenHome()
      const other = await open(home)
      const rows = () => {
        const db = new Database(join(home, 'state.db'), { readonly: true })
        try {
          return db.prepare('SELECT id, archived FROM sessions ORDER BY id').all() as Array<{
            id: string
            archived: number
          }>
        } finally {
          db.close()
        }
      }
      try {
        const before = rows().map((r) => r.id)
        expect(await cli(other, 'archive', undefined, [...c.flags, '--yes'])).toMatch(/^Archived \d+ session\(s\)\./)
        const after = rows()
        expect(after.map((r) => r.id)).toEqual(before)
        expect(after.filter((r) => r.archived === 1).map((r) => r.id)).toEqual(c.archived)
      } finally {
        await other.close()
      }
    }
  )

  it('--json never deletes without --yes: there is no one to ask', async () => {
    await expect(
      sessionAdminCli(host, 'prune', undefined, parseArgs(['sessions', 'prune', '--source', 'cli', '--json']))
    ).rejects.toThrow(/--json deletes only with --yes/)
    const dry = JSON.parse(await cli(host, 'prune', undefined, ['--source', 'cli', '--dry-run', '--json']))
    expect(dry.candidates.length).toBe(golden.cases[1]!.candidates.length)
  })

  it('the golden covers both rules: a bare prune keeps the cutoff, a filter drops it', () => {
    const of = (...flags: string[]) => golden.cases.find((c) => c.flags.join(' ') === flags.join(' '))!.candidates
    expect(of().length).toBeGreaterThan(0)
    expect(of('--source', 'cli').filter((id) => !of().includes(id)).length).toBeGreaterThan(0)
  })
})

describe.skipIf(!hasPython)(
  'delete and prune through the CLI leave what upstream leaves (system SQLite 3.40 checks)',
  () => {
    const DELETES: Array<[string, string]> = [
      ['default', 'old-parent'], // nested delegates (one live, one a grandchild) go; the branch is detached
      ['default', 'mm-many'], // multimodal rows indexed by 3.40
      ['default', 'dg-live'], // a live delegate with its own delegate child
      ['default', 'chain-1'], // mid-chain segment: the next segment is detached
      ['default', 'big-tools'], // a NUL inside plain text
      ['work', 'shared-id'] // the same id in another profile stays
    ]
    // The goldens are SessionDB.prune_sessions, archived sessions included unless the case says: `--include-archived`
    // (without it the CLI keeps them, as `hermes sessions prune` does: checked below).
    const PRUNES: Array<[string, string, string[]]> = [
      ['default', 'older30', ['--older-than', '30', '--include-archived']],
      [
        'default',
        'older30-cli-min2',
        ['--older-than', '30', '--source', 'cli', '--min-messages', '2', '--include-archived']
      ],
      ['default', 'archived-only', ['--older-than', '30', '--archived']],
      ['default', 'chat-dm', ['--older-than', '30', '--chat-type', 'dm', '--chat-id', 'c9', '--include-archived']],
      ['default', 'branch-none', ['--older-than', '30', '--branch', 'main', '--include-archived']],
      ['work', 'older30', ['--older-than', '30', '--include-archived']]
    ]
    // one home, one profile per case (a fresh copy of the golden profile each): one host, one Python run
    let host: Host
    let home: string
    const caseDb = (name: string) => join(home, 'profiles', name, 'state.db')
    beforeAll(async () => {
      home = tmp()
      copyFileSync(join(gold, 'home/state.db'), join(home, 'state.db'))
      const cases = [...DELETES.map(([p, id]) => [`d-${p}-${id}`, p]), ...PRUNES.map(([p, n]) => [`p-${p}-${n}`, p])]
      for (const [name, p] of cases) {
        mkdirSync(join(home, 'profiles', name!), { recursive: true })
        copyFileSync(dbOf(join(gold, 'home'), p!), caseDb(name!))
      }
      host = await open(home)
    })
    afterAll(() => host.close())

    const sessionsOf = (path: string) => {
      const db = new Database(path, { readonly: true })
      try {
        const rows = db
          .prepare(
            'SELECT s.id, s.parent_session_id AS parent, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages FROM sessions s ORDER BY s.id'
          )
          .all() as Array<{ id: string; parent: string | null; messages: number }>
        return Object.fromEntries(rows.map(({ id, ...r }) => [id, r]))
      } finally {
        db.close()
      }
    }

    it('every case: the same sessions, parents and message counts, FTS consistent for 3.40, same answers', async () => {
      const wants: Array<[string, Rec]> = []
      for (const [p, id] of DELETES) {
        const name = `d-${p}-${id}`
        expect(await cli(host, 'delete', id, ['--profile', name, '--yes'])).toContain(`Deleted session '${id}'.`)
        wants.push([name, U[p as 'default'].delete[id]])
      }
      // the CLI's default: upstream's selection for the same window minus upstream's archived-only selection
      const dflt = JSON.parse(
        await cli(host, 'prune', undefined, [
          '--older-than',
          '30',
          '--dry-run',
          '--json',
          '--profile',
          'p-default-older30'
        ])
      )
      const { older30, 'archived-only': archivedOnly } = U.default.prune
      expect(archivedOnly.candidates.length).toBeGreaterThan(0)
      expect(dflt.candidates.map((c: Rec) => c.id)).toEqual(
        older30.candidates.filter((id: string) => !archivedOnly.candidates.includes(id))
      )
      for (const [p, n, flags] of PRUNES) {
        const name = `p-${p}-${n}`
        const want = U[p as 'default'].prune[n]
        const dry = JSON.parse(
          await cli(host, 'prune', undefined, [...flags, '--dry-run', '--json', '--profile', name])
        )
        expect(dry.candidates.map((c: Rec) => c.id)).toEqual(want.candidates)
        expect(await cli(host, 'prune', undefined, [...flags, '--yes', '--profile', name])).toContain(
          want.result ? `Pruned ${want.result} session(s).` : 'No sessions match'
        )
        wants.push([name, want])
      }
      const eyes = upstreamEyes(wants.map(([name]) => caseDb(name)))
      for (const [name, want] of wants) {
        expect({ name, sessions: sessionsOf(caseDb(name)) }).toEqual({ name, sessions: want.sessions })
        expect({ name, fts: eyes[caseDb(name)]!.fts }).toEqual({ name, fts: want.fts })
        expect({ name, search: eyes[caseDb(name)]!.search }).toEqual({ name, search: pickSearch(want.search) })
      }
    })
  }
)

// Upstream's own continuation (test/fixtures/upstream/compression-interop, scripts/golden/compression_interop.py), whose
// summary upstream gave the assistant role, read through the host: the transcript folds exactly the row the chain view
// opens the continuation with (one rule, shared/contract/merged-summary.ts rowSummary), the exports fold it too, and a
// user's words that read like a summary stay the user's.
describe("upstream's continuation read through the host: the fold and the chain view agree", () => {
  let host: Host
  const LOOKALIKE = 'Summary of the earlier conversation: we picked Lisbon. Now, which hotel?'
  beforeAll(async () => {
    const home = tmp()
    copyFileSync(resolve(gold, '../compression-interop/state.db'), join(home, 'state.db'))
    // the user goes on in upstream's continuation with words that read like a summary
    const store = new SessionStore(join(home, 'state.db'))
    await store.appendMessages('up-standalone-2', [
      { role: 'user', content: LOOKALIKE },
      { role: 'assistant', content: 'The Lisbon hotel is booked.' }
    ])
    store.close()
    host = await open(home)
  })
  afterAll(() => host.close())

  it('folds exactly the row the chain view opens the continuation with, and exports it so', async () => {
    const read = async (sessionId: string, page: Rec) =>
      (await call(host, 'sessions.messages', { profile: 'default', sessionId, limit: 100, ...page })).items as Message[]
    // the continuation as the chain shows it: its copies of the parent's head left out, so it opens with the summary
    const tip = await read('up-standalone-2', {})
    const older = await read('up-standalone', { carriedBy: 'up-standalone-2' })
    const folded = (ms: Message[]) => ms.filter((m) => classifyRow(m)?.kind === 'summary').map((m) => [m.id, m.role])
    expect(folded(older)).toEqual([])
    expect(folded(tip)).toEqual([[tip[0]!.id, 'assistant']])
    expect(rowSummary(tip[0]!.role, tip[0]!.content)).toEqual({
      summary: expect.stringMatching(/^UP-STANDALONE: the user set up a garden/),
      kept: null
    })
    // every other row is someone's words, the user's lookalike among them
    for (const m of tip.slice(1)) expect(rowSummary(m.role, m.content), m.content ?? '').toBeNull()
    const typed = tip.find((m) => m.content === LOOKALIKE)!
    expect(typed.role).toBe('user')
    expect(classifyRow(typed)).toBeNull()
    // the summary is no turn's reply: the turns' strips sit under real replies only
    const byId = Object.fromEntries(tip.map((m) => [m.id, m]))
    const strips = [...summarizeTurns(Object.keys(byId).map(Number), byId, pairToolCalls(byId)).keys()]
    expect(strips).not.toContain(tip[0]!.id)
    expect(strips).toContain(tip.at(-1)!.id)

    // the chain's Markdown export: the summary headed and folded, the lookalike the user's own
    const md = await call(host, 'sessions.export', {
      profile: 'default',
      sessionId: 'up-standalone-2',
      format: 'markdown',
      lineage: true
    })
    const sections = (md.content as string).split(/\n(?=## )/)
    const summaries = sections.filter((x) => x.startsWith('## compaction summary'))
    expect(summaries).toHaveLength(1)
    expect(summaries[0]).toMatch(
      /<details><summary>Compaction summary · [\d,]+ chars<\/summary>\n\n\[CONTEXT COMPACTION/
    )
    const asTyped = sections.filter((x) => x.includes(LOOKALIKE))
    expect(asTyped).toHaveLength(1)
    expect(asTyped[0]).toMatch(/^## user · /)
    expect(asTyped[0]).not.toContain('<details>')
  })
})

// A summary longer than a page's cut (MESSAGE_PREVIEW_CHARS) merged into a kept message, in each layout: upstream's
// compressor's own merged row and an earlier release's summary-first one (test/fixtures/upstream/long-merged,
// scripts/golden/long_merged.py), and Caduceus's (its compression's merge). The page reads the layout over the whole
// text, so the transcript shows the kept words and folds the summary's start, as the full text reads.
describe('a long summary merged into a kept message reads on a page as in full', () => {
  const long = resolve(gold, '../long-merged')
  const G = JSON.parse(readFileSync(join(long, 'golden.json'), 'utf8')) as Rec
  const SUMMARY = `## Progress\n${'- a step of the plan, kept in order\n'.repeat(1200)}`
  const KEPT = 'CAD-LONG: so which of the steps is left?'
  const HUGE = `## Progress\n${'- a step of a very long plan, kept in order\n'.repeat(100_000)}`
  const HUGE_KEPT = 'CAD-HUGE: the last step is left.'
  let host: Host
  beforeAll(async () => {
    const home = tmp()
    copyFileSync(join(long, 'state.db'), join(home, 'state.db'))
    const store = new SessionStore(join(home, 'state.db'))
    const sid = await store.createSession('cad-long-merged', 'cli')
    await store.appendMessages(sid, [
      { role: 'user', content: mergeSummaryInto(KEPT, SUMMARY), displayMetadata: { summaryMerged: true } },
      { role: 'assistant', content: 'Only the last step is left.' }
    ])
    G.cases.caduceus = { sessionId: sid, index: 0, role: 'user', kept: KEPT }
    // a summary over the page's read bound, merged into an assistant reply (either role can hold one)
    await store.createSession('cad-huge-merged', 'cli')
    await store.appendMessages('cad-huge-merged', [
      { role: 'user', content: 'what is left?' },
      { role: 'assistant', content: mergeSummaryInto(HUGE_KEPT, HUGE), displayMetadata: { summaryMerged: true } }
    ])
    store.close()
    host = await open(home)
  })
  afterAll(() => host.close())

  it.each(['merged', 'summary-first', 'caduceus'])('%s', async (key) => {
    const c = G.cases[key] as Rec
    const page = (await call(host, 'sessions.messages', { profile: 'default', sessionId: c.sessionId, limit: 50 }))
      .items as Message[]
    // the one long row (the page leaves out a continuation's copies of its parent's head, so not by position)
    const long = page.filter((m) => m.contentBytes !== undefined)
    expect(long).toHaveLength(1)
    const row = long[0]!
    expect(row.role).toBe(c.role)
    expect(row.contentBytes).toBeGreaterThan(MESSAGE_PREVIEW_CHARS)
    // shown as the kept message with its summary folded, not folded whole as a summary
    expect(row.summaryMerged).toBe(true)
    expect(classifyRow(row)).toBeNull()
    // the kept words, cut to a preview themselves where they are long (a pasted file)
    const merged = mergedSummaryOf(row)!
    const kept = c.kept as string
    expect(merged.kept.length).toBe(Math.min(kept.length, MESSAGE_PREVIEW_CHARS))
    expect(kept.startsWith(merged.kept)).toBe(true)
    // the full text ("show all") reads the same way: the same kept words, the summary the page's start continues
    let full = ''
    for (let offset = 0, total = 1; offset < total; offset += MESSAGE_TEXT_CHUNK) {
      const chunk = await call(host, 'sessions.messageText', {
        profile: 'default',
        sessionId: c.sessionId,
        messageId: row.id,
        field: 'content',
        offset
      })
      full += chunk.text as string
      total = chunk.total as number
    }
    const whole = splitMergedSummary(full)!
    expect(whole.kept === kept).toBe(true)
    expect(whole.summary.length).toBeGreaterThan(40_000)
    expect(whole.summary.startsWith(merged.summary)).toBe(true)
    expect(merged.summary.length).toBeGreaterThan(30_000)
  })

  it('over the read bound: not read for the page, which says it holds a merged summary; "show all" reads it whole', async () => {
    const page = (await call(host, 'sessions.messages', { profile: 'default', sessionId: 'cad-huge-merged' }))
      .items as Message[]
    const row = page[1]!
    expect(row.contentBytes).toBeGreaterThan(MESSAGE_FIELD_MAX_BYTES)
    // no text on the page (nothing of the 4 MB is read), and what it holds said: not an empty reply, nor a summary
    expect(row.content).toBe('')
    expect(row.summaryMerged).toBe(true)
    // (the transcript asks this before classifyRow, which reads text the page does not have)
    expect(unreadText(row)).toBe('merged')
    // what "show all" reads is laid out as the marker says
    const first = await call(host, 'sessions.messageText', {
      profile: 'default',
      sessionId: 'cad-huge-merged',
      messageId: row.id,
      field: 'content',
      offset: 0
    })
    // (every character of the text is one code point)
    expect(first.total).toBe(mergeSummaryInto(HUGE_KEPT, HUGE).length)
    expect(unreadText({ ...row, content: 'the question' })).toBeNull()
  })
})
