// Import/export, delete and prune against golden data upstream's own code wrote (scripts/golden/transfer.py,
// test/fixtures/upstream/transfer/README.md). Both directions are compared message by message through upstream's
// eyes: its get_messages of Caduceus's export (committed), and its rules applied to Caduceus's import. The home
// was indexed by the system Python's SQLite (3.40); after Caduceus deletes/prunes through its CLI, that SQLite
// runs upstream's integrity-check on every FTS table and answers upstream's searches.
import { execFile, execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { parseArgs } from '../src-main/host/cli/args'
import { sessionAdminCli } from '../src-main/host/cli/sessions-admin'
import { parsePyJson, PyNumber } from '../shared/contract/py-text'

const repo = resolve(import.meta.dirname, '..')
const gold = join(repo, 'test/fixtures/upstream/transfer')
const read = (f: string) => readFileSync(join(gold, f), 'utf8')
const json = (f: string) => JSON.parse(read(f)) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, any>) // eslint-disable-line @typescript-eslint/no-explicit-any

const PY = '/usr/bin/python3'
const hasPython = existsSync(PY)
/** Upstream's view of a home, with the system SQLite: integrity-check per FTS table + plain-word answers. */
const PY_CHECK = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
fts = {}
for (t,) in c.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"):
    try:
        c.execute(f"INSERT INTO {t}({t}) VALUES('integrity-check')"); fts[t] = "ok"
    except sqlite3.DatabaseError as e:
        fts[t] = str(e)
q = "SELECT DISTINCT m.session_id FROM messages_fts f JOIN messages m ON m.id = f.rowid WHERE messages_fts MATCH ? AND m.active = 1 ORDER BY 1"
print(json.dumps({"fts": fts, "search": {w: [r[0] for r in c.execute(q, (w,))] for w in sys.argv[2:]}}))
`
const upstreamEyes = (db: string, words: string[]) =>
  JSON.parse(execFileSync(PY, ['-c', PY_CHECK, db, ...words], { encoding: 'utf8' })) as {
    fts: Record<string, string>
    search: Record<string, string[]>
  }

const MSG_KEYS = [
  'role',
  'content',
  'tool_calls',
  'tool_call_id',
  'tool_name',
  'finish_reason',
  'reasoning',
  'token_count',
  'timestamp'
]
/** Session columns upstream reads back the same way it wrote them. */
const SESSION_KEYS = [
  'parent_session_id',
  'ended_at',
  'end_reason',
  'input_tokens',
  'output_tokens',
  'title',
  'archived',
  'model_config'
]
const pick = (m: Record<string, unknown>, keys = MSG_KEYS) => Object.fromEntries(keys.map((k) => [k, m[k] ?? null]))

const dirs: string[] = []
const homeWith = (db?: string) => {
  const d = mkdtempSync(join(tmpdir(), 'cad-up-transfer-'))
  dirs.push(d)
  if (db) copyFileSync(join(gold, db), join(d, 'state.db'))
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const open = (home: string) =>
  createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })

describe('export of an upstream-written home', () => {
  let host: Host
  let exported: Array<Record<string, any>> // eslint-disable-line @typescript-eslint/no-explicit-any
  beforeAll(async () => {
    host = await open(homeWith('home.db'))
    const r = await host.dispatcher.invoke('sessions.export', { profile: 'default', format: 'jsonl' })
    exported = lines((r as { output: { content: string } }).output.content)
  })
  afterAll(() => host.close())

  it("is upstream's shape: active rows only, lists kept as lists, rewound rows out of reach", () => {
    const byId = new Map(exported.map((r) => [r.id, r]))
    expect([...byId.keys()].sort()).toEqual(
      lines(read('upstream-export.jsonl'))
        .map((r) => r.id)
        .sort()
    )
    const tools = byId.get('s-tools')!
    expect(Array.isArray(tools.messages[1].tool_calls)).toBe(true)
    const mm = byId.get('s-mm')!.messages.map((m: { content: unknown }) => m.content)
    expect(mm[0]).toMatchObject([{ type: 'text' }, { type: 'image_url' }])
    expect(mm[2]).toBe('[{"type": "text", "text": "a string that looks like JSON"}]')
    expect(mm[3]).toBe('')
    const rw = byId.get('s-rewind')!
    expect(rw.messages.map((m: { content: string }) => m.content)).toEqual(['first question', 'first answer'])
    expect(rw.caduceus_inactive_messages.map((m: { active: number }) => m.active)).toEqual([0, 0])
    for (const r of exported) expect(r.messages.every((m: { active: number }) => m.active === 1)).toBe(true)
  })

  it('through the CLI, --session-id given more than once exports those sessions in that order (one HTML page)', async () => {
    const out = join(homeWith(), 'two.html')
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    try {
      const args = parseArgs(['sessions', 'export', '--session-id', 's-mm', '--session-id', 's-to', '--format', 'html'])
      expect(await sessionAdminCli(host, 'export', out, args)).toBe(0)
      expect(log.mock.calls.map((c) => String(c[0]))).toEqual([`Exported 2 sessions to ${out} (HTML)`])
    } finally {
      log.mockRestore()
    }
    const html = readFileSync(out, 'utf8')
    expect(html.match(/<!doctype html>/gi)).toHaveLength(1)
    expect(html.indexOf('theater poster')).toBeGreaterThan(-1)
    expect(html.indexOf('theater poster')).toBeLessThan(html.indexOf('check the heater logs'))
  })

  it('matches, message by message, the export upstream imported and read back identically (golden)', () => {
    const golden = new Map(lines(read('caduceus-export.jsonl')).map((r) => [r.id, r]))
    for (const r of exported) {
      const g = golden.get(r.id)!
      expect(r.messages.map((m: Record<string, unknown>) => pick(m))).toEqual(
        g.messages.map((m: Record<string, unknown>) => pick(m))
      )
      expect(pick(r, ['parent_session_id', 'end_reason', 'source', 'title', 'model_config'])).toEqual(
        pick(g, ['parent_session_id', 'end_reason', 'source', 'title', 'model_config'])
      )
    }
    // …and what upstream read from that export is what upstream reads from its own home
    const mine = json('upstream-view.json').sessions
    const back = json('caduceus-through-upstream.json')
    expect(back.import).toMatchObject({ ok: true, imported: exported.length, errors: [] })
    expect(back.fts).toEqual({ messages_fts: 'ok', messages_fts_trigram: 'ok' })
    expect(back.search).toEqual(json('upstream-view.json').search)
    expect(back.search.zebrasecret).toEqual([])
    for (const [id, v] of Object.entries(
      mine as Record<string, { messages: Array<{ active: number }>; session: Record<string, unknown> }>
    )) {
      expect(back.sessions[id].messages).toEqual(v.messages.filter((m) => m.active === 1))
      expect(pick(back.sessions[id].session, SESSION_KEYS)).toEqual(pick(v.session, SESSION_KEYS))
    }
  })

  it('shows multimodal rows as text plus an attachment placeholder (sessions.messages, Markdown)', async () => {
    const page = await host.dispatcher.invoke('sessions.messages', { profile: 'default', sessionId: 's-mm' })
    const first = (page as { output: { items: Array<{ content: string }> } }).output.items[0]!.content
    expect(first).toMatch(/^what is this theater poster 東京\n\[image: image\/png, \d+ B\]$/)
    const md = await host.dispatcher.invoke('sessions.export', {
      profile: 'default',
      sessionId: 's-mm',
      format: 'markdown'
    })
    const text = (md as { output: { content: string } }).output.content
    expect(text).toContain('[image: image/png,')
    expect(text).not.toContain('\u0000')
  })
})

describe("import of upstream's export", () => {
  it('makes a home that reads identically through upstream’s rules; bad lines rejected by number, unknown fields counted', async () => {
    const home = homeWith()
    const host = await open(home)
    try {
      const extra = [
        JSON.stringify({
          id: 'newer',
          source: 'cli',
          started_at: 1,
          future_field: 1,
          messages: [{ role: 'user', content: 'x', future_msg: 2 }]
        }),
        '{not json',
        JSON.stringify({ id: 'norole', messages: [{ content: 'no role' }] })
      ].join('\n')
      const r = await host.dispatcher.invoke('sessions.import', {
        profile: 'default',
        content: read('upstream-export.jsonl') + extra
      })
      const n = lines(read('upstream-export.jsonl')).length
      expect(r).toMatchObject({
        ok: true,
        output: {
          imported: n + 1,
          skipped: 0,
          detached: 0,
          errors: [
            { line: n + 2, reason: expect.stringContaining('invalid JSON') },
            { line: n + 3, id: 'norole', reason: 'messages[0].role must be a non-empty string' }
          ],
          ignoredFields: { future_field: 1, 'messages.future_msg': 1 }
        }
      })
    } finally {
      await host.close()
    }
    // upstream's get_messages, by its rules: active rows by id, marker decoded, tool_calls parsed
    const db = new Database(join(home, 'state.db'), { readonly: true })
    const view = json('upstream-view.json').sessions as Record<
      string,
      { messages: Array<Record<string, unknown>>; session: Record<string, unknown> }
    >
    for (const [id, v] of Object.entries(view)) {
      const rows = db
        .prepare('SELECT * FROM messages WHERE session_id = ? AND active = 1 ORDER BY id')
        .all(id) as Array<Record<string, unknown>>
      const asUpstream = rows.map((m) => ({
        ...m,
        content:
          typeof m.content === 'string' && m.content.startsWith('\u0000json:')
            ? JSON.parse(m.content.slice(6))
            : m.content,
        tool_calls: m.tool_calls ? JSON.parse(String(m.tool_calls)) : m.tool_calls
      }))
      expect(asUpstream.map((m) => pick(m))).toEqual(v.messages.filter((m) => m.active === 1).map((m) => pick(m)))
      const s = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown>
      expect(pick(s, SESSION_KEYS)).toEqual(pick(v.session, SESSION_KEYS))
      expect(s.message_count).toBe(asUpstream.length)
    }
    db.close()
    if (hasPython)
      expect(upstreamEyes(join(home, 'state.db'), ['theater']).fts).toEqual({
        messages_fts: 'ok',
        messages_fts_trigram: 'ok'
      })
  })
})

const run = promisify(execFile)
const cli = async (home: string, ...args: string[]) =>
  (
    await run(process.execPath, ['bin/caduceus.mjs', 'sessions', ...args, '--home', home], {
      cwd: repo,
      env: { ...process.env, CADUCEUS_LOG_DIR: join(home, 'logs'), HERMES_HOME: '' }
    })
  ).stdout

const sessionsOf = (home: string) => {
  const db = new Database(join(home, 'state.db'), { readonly: true })
  const rows = db
    .prepare(
      'SELECT s.id, s.parent_session_id AS parent, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages FROM sessions s ORDER BY s.id'
    )
    .all() as Array<{ id: string; parent: string | null; messages: number }>
  db.close()
  return Object.fromEntries(rows.map(({ id, ...r }) => [id, r]))
}

describe.skipIf(!hasPython)('delete and prune on a home the system Python indexed (SQLite 3.40)', () => {
  it.each(['delete', 'prune'])(
    '%s through the CLI leaves what upstream leaves, every FTS index consistent for 3.40',
    async (what) => {
      const want = json(`${what}.json`)
      const home = homeWith('home.db')
      if (what === 'delete') expect(await cli(home, 'delete', 's-to', '--yes')).toContain("Deleted session 's-tools'.")
      else {
        // --dry-run through the CLI's own code, in-process (one spawned CLI per case keeps this file fast)
        const host = await open(home)
        const log = vi.spyOn(console, 'log').mockImplementation(() => {})
        const dry = async (...flags: string[]) => {
          log.mockClear()
          await sessionAdminCli(
            host,
            'prune',
            undefined,
            parseArgs(['sessions', 'prune', ...flags, '--dry-run', '--json'])
          )
          return JSON.parse(String(log.mock.calls[0]![0])).candidates.map((c: { id: string }) => c.id)
        }
        // The golden is SessionDB.prune_sessions (archived sessions too): `--include-archived`. Without it the CLI
        // keeps them, as `hermes sessions prune` does (it passes archived=False): upstream's selection minus the
        // sessions upstream's own view says are archived.
        const archived = Object.entries(
          json('upstream-view.json').sessions as Record<string, { session: { archived: unknown } }>
        )
          .filter(([, v]) => v.session.archived)
          .map(([id]) => id)
        try {
          expect(await dry('--older-than', '30', '--include-archived')).toEqual(want.candidates)
          expect(archived).toEqual(['s-archived'])
          expect(await dry('--older-than', '30')).toEqual(
            want.candidates.filter((id: string) => !archived.includes(id))
          )
        } finally {
          log.mockRestore()
          await host.close()
        }
        expect(sessionsOf(home)).toHaveProperty('s-tools') // a dry run deletes nothing
        expect(await cli(home, 'prune', '--older-than', '30', '--include-archived', '--yes')).toContain(
          want.result ? `Pruned ${want.result} session(s).` : 'No sessions match'
        )
      }
      expect(sessionsOf(home)).toEqual(want.sessions)
      const eyes = upstreamEyes(join(home, 'state.db'), Object.keys(want.search))
      expect(eyes.fts).toEqual(want.fts)
      expect(eyes.search).toEqual(want.search)
    }
  )
})

// The whole trip on a home with reasoning, a multimodal turn, rewound and compacted rows, a compression chain with a
// delegate child and a running grandchild (scripts/golden/transfer_round.py): hop 1 Caduceus's export, hop 2 upstream's
// import of it, hop 3 upstream's export of that home, hop 4 Caduceus's import of hop 3 — compared message by message.
describe('round trip: Caduceus export → upstream import → upstream export → Caduceus import', () => {
  const round = join(repo, 'test/fixtures/upstream/transfer-round')
  const rread = (f: string) => readFileSync(join(round, f), 'utf8')
  type View = Record<string, { session: Record<string, unknown>; messages: Array<Record<string, unknown>> }>
  const source = JSON.parse(rread('source-view.json')) as View
  const through = JSON.parse(rread('through-upstream.json')) as Record<
    'plain' | 'lineage',
    { import: Record<string, unknown>; sessions: View }
  >
  const KEYS = Object.keys(Object.values(source)[0]!.messages[0]!)
  const SESSION = Object.keys(Object.values(source)[0]!.session)
  // one host: the source home as profile `src`, and an empty profile for each hop-4 import
  let host: Host
  beforeAll(async () => {
    const home = homeWith()
    mkdirSync(join(home, 'profiles', 'src'), { recursive: true })
    mkdirSync(join(home, 'profiles', 'chain'), { recursive: true })
    copyFileSync(join(round, 'home.db'), join(home, 'profiles', 'src', 'state.db'))
    mkdirSync(join(home, 'profiles', 'big'), { recursive: true })
    copyFileSync(join(repo, 'test/fixtures/upstream/big-ints/home.db'), join(home, 'profiles', 'big', 'state.db'))
    host = await open(home)
  })
  afterAll(() => host.close())
  const call = async (name: string, input: Record<string, unknown>) =>
    ((await host.dispatcher.invoke(name as never, input as never)) as { output: Record<string, any> }).output // eslint-disable-line @typescript-eslint/no-explicit-any
  /** A profile's sessions read back through Caduceus's export (upstream's get_messages shape), as `View`. */
  const viewOf = async (profile: string): Promise<View> =>
    Object.fromEntries(
      lines((await call('sessions.export', { profile, format: 'jsonl' })).content).map((r) => [
        r.id,
        { session: pick(r, SESSION), messages: r.messages.map((m: Record<string, unknown>) => pick(m, KEYS)) }
      ])
    )

  it('hop 1 is still what Caduceus exports of the home, plain and with --lineage', async () => {
    for (const [file, lineage] of [
      ['caduceus-export.jsonl', false],
      ['caduceus-export-lineage.jsonl', true]
    ] as const)
      expect(lines((await call('sessions.export', { profile: 'src', format: 'jsonl', lineage })).content)).toEqual(
        lines(rread(file))
      )
  })
  it('hop 2: upstream stores every live message as the source has it; rewound and compacted rows stay behind', () => {
    const { import: result, sessions } = through.plain
    expect(result).toMatchObject({ ok: true, imported: Object.keys(source).length, detached: 0 })
    for (const [id, s] of Object.entries(source)) {
      expect(sessions[id]!.messages, id).toEqual(s.messages.filter((m) => m.active === 1))
      // upstream's import counts the rows it imported: a rewind had left the rewound rows in the source's counts
      const counts = id === 'r-main' ? { message_count: 7, tool_call_count: 2 } : {}
      expect(sessions[id]!.session, id).toEqual({ ...s.session, ...counts })
    }
    // with --lineage upstream keeps the tip's record whole (its segments unread): the chain is one session there
    const chain = through.lineage.sessions
    expect(Object.keys(chain).sort()).toEqual(['dk', 'dk2', 'k3', 'r-compact', 'r-main'])
    expect(chain.k3!.messages.map((m) => m.content)).toEqual(['chain one', 'chain two', 'chain three'])
    expect([chain.k3!.session.parent_session_id, chain.dk!.session.parent_session_id]).toEqual([null, null])
  })

  it('hop 4: Caduceus imports upstream’s export as upstream’s own import stored it, message by message', async () => {
    for (const [file, profile, want] of [
      ['upstream-export.jsonl', 'default', through.plain.sessions],
      ['upstream-export-lineage.jsonl', 'chain', through.lineage.sessions]
    ] as const) {
      const summary = await call('sessions.import', { profile, content: rread(file) })
      expect(summary, file).toMatchObject({ imported: Object.keys(want).length, detached: 0, errors: [] })
      const got = await viewOf(profile)
      expect(Object.keys(got).sort(), file).toEqual(Object.keys(want).sort())
      for (const [id, w] of Object.entries(want)) {
        expect(got[id]!.messages, `${file} ${id}`).toEqual(w.messages)
        expect(got[id]!.session, `${file} ${id}`).toEqual(w.session)
      }
    }
  })

  // Integers past 2**53 (scripts/golden/big_ints.py): token counters, a token_count, a tool call's JSON and a content
  // list as upstream's SessionDB wrote them. Caduceus's export (the CLI's and the app's) writes every digit, as
  // upstream's own export does, and upstream's import read that file back to the same integers (through-upstream.json);
  // a rounded 2**63 - 1 did not even fit its INTEGER column ("Python int too large to convert to SQLite INTEGER").
  // (the round trip's host: its profile `big` holds that home)
  describe('export of integers past 2**53', () => {
    const big = join(repo, 'test/fixtures/upstream/big-ints')
    const bread = (f: string) => readFileSync(join(big, f), 'utf8')
    /** A JSONL line as Python's json reads it: an integer past 2**53 as its digits (a whole float is a number). */
    const pyView = (line: string): unknown => {
      const walk = (x: unknown): unknown =>
        x instanceof PyNumber
          ? x.isFloat
            ? Number(x)
            : `int:${x.text}`
          : Array.isArray(x)
            ? x.map(walk)
            : x && typeof x === 'object'
              ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]))
              : x
      return walk(parsePyJson(line, true))
    }
    it("writes every digit, through the CLI and the app, as upstream's export does; upstream's import keeps them", async () => {
      const out = join(homeWith(), 'all.jsonl')
      const log = vi.spyOn(console, 'log').mockImplementation(() => {})
      try {
        expect(await sessionAdminCli(host, 'export', out, parseArgs(['sessions', 'export', '--profile', 'big']))).toBe(
          0
        )
      } finally {
        log.mockRestore()
      }
      const cli = readFileSync(out, 'utf8')
      const r = await host.dispatcher.invoke('sessions.export', { profile: 'big', format: 'jsonl' })
      expect((r as { output: { content: string } }).output.content).toBe(cli)
      const [mine] = cli.split('\n').filter(Boolean).map(pyView)
      const [theirs] = bread('upstream-export.jsonl').split('\n').filter(Boolean).map(pyView)
      expect(mine).toEqual(theirs)
      // the file upstream's import read (golden) is still what Caduceus writes, and it stored every integer exact;
      // it is upstream's own export, byte for byte (json.dumps separators, whole floats as `1.0`)
      expect(cli).toBe(bread('caduceus-export.jsonl'))
      expect(cli).toBe(bread('upstream-export.jsonl'))
      const through = JSON.parse(bread('through-upstream.json'))
      expect(through.import).toMatchObject({ ok: true, imported: 1, errors: [] })
      expect([
        through.stored.input_tokens,
        through.stored.output_tokens,
        through.stored.messages[1].token_count
      ]).toEqual([through.expected.in, through.expected.out, through.expected.token_count])
      expect(through.stored.messages[1].tool_calls).toContain(through.expected.call_seq)
      expect(through.stored.messages[0].content).toContain(through.expected.part_seq)
    })

    it("--format md writes the JSON blocks upstream's Markdown export writes, every digit kept", async () => {
      const dir = join(homeWith(), 'md')
      const log = vi.spyOn(console, 'log').mockImplementation(() => {})
      try {
        expect(
          await sessionAdminCli(
            host,
            'export',
            dir,
            parseArgs(['sessions', 'export', '--profile', 'big', '--format', 'md', '--session-id', 'big-1'])
          )
        ).toBe(0)
      } finally {
        log.mockRestore()
      }
      const blocks = (md: string) => md.match(/```json\n[\s\S]*?\n```/g)
      const mine = readFileSync(
        join(
          dir,
          readdirSync(dir).find((f) => f.endsWith('.md'))!
        ),
        'utf8'
      )
      expect(blocks(mine)).toEqual(blocks(bread('upstream-export.md')))
      expect(blocks(mine)).toHaveLength(2)
    })
  })
})
