// A Session page turn that crosses the compression threshold, through the real host against a scripted provider,
// must leave the parent/child pair upstream's publish_compression_child leaves (NousResearch/hermes-agent,
// hermes_state_compression.py; hermes-spec §1.6/§1.7):
//   - the child's copies of parent rows keep their originals' timestamps (a merged display of the chain shows each
//     message once, in place);
//   - rows another process adds to the parent while the summary is written are cloned into the child after the
//     handoff (timestamps and columns as written) and stay in the parent too;
//   - the child row takes the parent's routing, display and archive columns, the title "X #2" and the agent's prompt,
//     both counters match the rows, and the parent ends with 'compression' — all in one transaction.
// The writer during the summary is upstream's own SessionDB (the v21 fork at $HERMES_UPSTREAM) in a child process,
// and upstream's SessionDB reads the result: its list shows the chain once, at the child.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MessagePage, SessionDetail, SessionPage, TurnFinished } from '@shared/contract'
import { startScriptedProvider, type ScriptedProvider } from '../src-main/agent/scripted'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { isSummaryCall } from '../src-main/agent/test-fixtures/kit'
import { ftsIntegrity } from './support/fts-integrity'

const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const PY = '/usr/bin/python3'
const withUpstream = existsSync(PY) && existsSync(join(UPSTREAM, 'hermes_state.py'))

let root: string
let dbPath: string
let provider: ScriptedProvider
let host: Host
const PARENT = 'S1'
const T0 = 1_760_000_000
const LATE = 'a note sent from the phone while the summary was written'
/** What upstream's try_acquire_compression_lock answered while Caduceus wrote the summary. */
let upstreamCouldCompress = ''

const long = (tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(40)}`
const OPEN = `import sys; sys.path.insert(0, sys.argv[1])
from pathlib import Path
from hermes_state import SessionDB
SessionDB(db_path=Path(sys.argv[2])).close()`

/** Another program writes to the parent: upstream's SessionDB when it is here, else a plain SQLite connection. */
function foreignAppend(): void {
  if (withUpstream) {
    const py = `import sys; sys.path.insert(0, sys.argv[1])
from pathlib import Path
from hermes_state import SessionDB
db = SessionDB(db_path=Path(sys.argv[2])); db.append_message(sys.argv[3], "user", sys.argv[4])
print(db.try_acquire_compression_lock(sys.argv[3], "pid=1:tid=1:agent=x:nonce=y", 300)); db.close()`
    upstreamCouldCompress = execFileSync(PY, ['-c', py, UPSTREAM, dbPath, PARENT, LATE], {
      encoding: 'utf8',
      env: { ...process.env, HERMES_HOME: root }
    }).trim()
    return
  }
  const db = new Database(dbPath)
  db.prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?);`).run(
    PARENT,
    LATE,
    Date.now() / 1000
  )
  db.prepare('UPDATE sessions SET message_count = message_count + 1 WHERE id = ?').run(PARENT)
  db.close()
}

async function call<T>(name: string, input: unknown): Promise<T> {
  const r = await host.dispatcher.invoke(name, input)
  if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code })
  return r.output as T
}

interface MsgRow {
  id: number
  role: string
  content: string | null
  timestamp: number
  display_kind: string | null
}
const rowsOf = (db: Database.Database, id: string) =>
  db
    .prepare<[string], MsgRow>(
      'SELECT id, role, content, timestamp, display_kind FROM messages WHERE session_id = ? ORDER BY id'
    )
    .all(id)

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cad-comp-handoff-'))
  dbPath = join(root, 'state.db')
  provider = await startScriptedProvider({
    handler: (req) => {
      if (!isSummaryCall(req)) return { text: 'Carrying on after compression.' }
      foreignAppend()
      return { text: 'They went over long topics A, B and C.' }
    }
  })
  writeFileSync(
    join(root, 'config.yaml'),
    [
      'model:',
      '  default: scripted-model',
      '  provider: custom',
      `  base_url: ${provider.baseUrl}`,
      '  context_length: 1000',
      'compression:',
      '  enabled: true',
      '  threshold: 0.5',
      '  protect_last_n: 2',
      ''
    ].join('\n')
  )
  const seed = new SessionStore(dbPath, { profile: 'default' })
  await seed.createSession(PARENT, 'desktop', { title: 'Trip plan', displayName: 'Ana' })
  for (let i = 0; i < 3; i++) {
    await seed.appendMessage(PARENT, { role: 'user', content: long(`question ${i}`), timestamp: T0 + 20 * i })
    await seed.appendMessage(PARENT, {
      role: 'assistant',
      content: long(`answer ${i}`),
      timestamp: T0 + 20 * i + 5,
      // what the reply cost, as the turn loop saves it (the transcript's per-turn strip)
      tokenCount: 70 + i,
      displayMetadata: { usage: { tokens: { input: 100 + i, output: 10 }, costUsd: 0.01 * (i + 1), model: 'm' } }
    })
  }
  seed.close()
  // a home upstream has opened (its tables, compression_locks among them, created as its SessionDB creates them)
  if (withUpstream) execFileSync(PY, ['-c', OPEN, UPSTREAM, dbPath], { env: { ...process.env, HERMES_HOME: root } })
  // origin_json is written by upstream's gateway only: set as it would leave it
  const raw = new Database(dbPath)
  raw.prepare('UPDATE sessions SET origin_json = ?, pinned = 1 WHERE id = ?').run('{"platform": "desktop"}', PARENT)
  raw.close()
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  host = await createHost({ home: root, headless: true, log: createLogger() })
}, 30_000)

afterAll(async () => {
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('a Session page turn that crosses the compression threshold', () => {
  let child = ''

  beforeAll(async () => {
    const done = new Promise<TurnFinished>((resolve) => {
      const off = host.bus.subscribe((e) => {
        if (e.event === 'turn.finished') {
          off()
          resolve(e.payload as TurnFinished)
        }
      })
    })
    await call('sessions.resume', { profile: 'default', sessionId: PARENT, text: 'next question' })
    expect((await done).status).toBe('completed')
    const db = new Database(dbPath, { readonly: true })
    child = db.prepare<[], { id: string }>("SELECT id FROM sessions WHERE parent_session_id = 'S1'").get()!.id
    db.close()
  }, 30_000)

  it("the child's copies of parent rows keep their originals' timestamps", () => {
    const db = new Database(dbPath, { readonly: true })
    const parent = rowsOf(db, PARENT)
    const rows = rowsOf(db, child)
    db.close()
    // child: summary, the protected tail (answer 2, the turn's message), the late note, the reply
    expect(rows.map((r) => [r.role, r.display_kind])).toEqual([
      ['user', 'compression_summary'],
      ['assistant', null],
      ['user', null],
      ['user', null],
      ['assistant', null]
    ])
    const byContent = new Map(parent.map((r) => [r.content, r.timestamp]))
    expect(rows.slice(1, 3).map((r) => r.timestamp)).toEqual(rows.slice(1, 3).map((r) => byContent.get(r.content)))
    expect(rows[1]!.timestamp).toBe(T0 + 45)
    expect(rows[0]!.timestamp).toBeGreaterThan(T0 + 1000) // the summary is new: written now
  })

  it('rows another process added to the parent during the summary follow the handoff in the child, and stay', () => {
    const db = new Database(dbPath, { readonly: true })
    const parent = rowsOf(db, PARENT)
    const rows = rowsOf(db, child)
    const indexed = db
      .prepare<[], { session_id: string }>(
        `SELECT m.session_id FROM messages_fts f JOIN messages m ON m.id = f.rowid
          WHERE messages_fts MATCH '"sent from the phone"' ORDER BY m.id`
      )
      .all()
    db.close()
    // parent: the six seeded rows, the turn's own message, the late note (kept there as well)
    expect(parent.map((r) => r.content?.slice(0, 10))).toEqual([
      ...['question 0', 'answer 0 l', 'question 1', 'answer 1 l', 'question 2', 'answer 2 l'],
      'next quest',
      LATE.slice(0, 10)
    ])
    const late = parent.at(-1)!
    expect(rows[3]).toMatchObject({ content: LATE, timestamp: late.timestamp })
    expect(rows[4]).toMatchObject({ content: 'Carrying on after compression.' })
    // the clone is indexed for search as the original is
    expect(indexed.map((r) => r.session_id)).toEqual([PARENT, child])
    if (existsSync(PY)) expect(Object.values(ftsIntegrity(dbPath)).every((v) => v === 'ok')).toBe(true)
    // and the model, answering, was sent the note too (after the turn's own message, joined to it as one user turn)
    const sent = provider.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: `next question\n\n${LATE}` })
  })

  it('the child row is the continuation upstream publishes; both counters match the rows', () => {
    const db = new Database(dbPath, { readonly: true })
    const row = db.prepare<[string], Record<string, unknown>>(
      `SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS n FROM sessions s WHERE id = ?`
    )
    const s = (id: string) => row.get(id)
    const p = s(PARENT)!
    const c = s(child)!
    db.close()
    expect(p).toMatchObject({ end_reason: 'compression', message_count: p.n })
    expect(c).toMatchObject({
      parent_session_id: PARENT,
      source: 'desktop',
      model: 'scripted-model',
      title: 'Trip plan #2',
      display_name: 'Ana',
      origin_json: '{"platform": "desktop"}',
      pinned: 1,
      ended_at: null,
      message_count: c.n
    })
    // one transaction: the child starts as the parent ends
    expect(Math.abs((c.started_at as number) - (p.ended_at as number))).toBeLessThan(5)
  })

  it("Caduceus's list shows the chain once, at the child; its detail names the chain", async () => {
    const page = await call<SessionPage>('sessions.list', { profile: 'default' })
    expect(page.items.map((s) => [s.id, s.rootId, s.messageCount])).toEqual([[child, PARENT, 5]])
    const detail = await call<SessionDetail>('sessions.get', { profile: 'default', sessionId: child })
    expect(detail.lineage.chain.map((r) => r.id)).toEqual([PARENT, child])
  })

  it('read as a chain, the parent leaves out the rows its continuation carries: each message shows once', async () => {
    const read = (sessionId: string, page: Record<string, unknown>) =>
      call<MessagePage>('sessions.messages', { profile: 'default', sessionId, ...page })
    const text = (p: MessagePage) => p.items.map((m) => (m.content ?? '').slice(0, 10))
    const tip = await read(child, { beforeId: Number.MAX_SAFE_INTEGER })
    // the parent's newest page, as "load older" reads it on reaching the continuation's start
    const older = await read(PARENT, { beforeId: Number.MAX_SAFE_INTEGER, carriedBy: child })
    const chain = [...text(older), ...text(tip)]
    expect(chain).toEqual([
      ...['question 0', 'answer 0 l', 'question 1', 'answer 1 l', 'question 2'],
      ...['[CONTEXT S', 'answer 2 l', 'next quest', LATE.slice(0, 10), 'Carrying o']
    ])
    expect(older).toMatchObject({ hasMoreBefore: false, hasMoreAfter: false })
    // the copy shown in its original's place carries what that reply cost: the turn's strip keeps its cost
    const copy = tip.items[1]!
    expect(copy).toMatchObject({ role: 'assistant', tokenCount: 72, usage: { tokens: { input: 102, output: 10 } } })
    expect(copy.usage!.cost.usd).toBeCloseTo(0.03)
    // Home (the chain's start, forward) and the pages forward from there leave out the same rows
    const home = await read(PARENT, { afterId: 0, limit: 3, carriedBy: child })
    expect(text(home)).toEqual(['question 0', 'answer 0 l', 'question 1'])
    expect(home.hasMoreAfter).toBe(true)
    const rest = await read(PARENT, { afterId: home.items.at(-1)!.id, carriedBy: child })
    expect(text(rest)).toEqual(['answer 1 l', 'question 2'])
    expect(rest.hasMoreAfter).toBe(false)
    // the parent opened on its own (a search hit in its copy of the tail) still shows every row it holds
    expect(text(await read(PARENT, {}))).toHaveLength(8)
    // a session that does not continue the parent changes nothing; an empty one is refused at the boundary
    expect(text(await read(PARENT, { carriedBy: PARENT }))).toHaveLength(8)
    await expect(read(PARENT, { carriedBy: ' ' })).rejects.toMatchObject({ code: 'invalid_input' })
  })

  it.skipIf(!withUpstream)("upstream could not take the session's compression lease while Caduceus held it", () => {
    expect(upstreamCouldCompress).toBe('False')
    const db = new Database(dbPath, { readonly: true })
    expect(db.prepare('SELECT * FROM compression_locks').all()).toEqual([])
    db.close()
  })

  it.skipIf(!withUpstream)("upstream's SessionDB lists the chain once, at the child, and reads it in order", () => {
    const py = `import json, sys; sys.path.insert(0, sys.argv[1])
from hermes_state import SessionDB
from pathlib import Path
db = SessionDB(db_path=Path(sys.argv[2]))
rows = db.list_sessions_rich(limit=50)
msgs = db.get_messages(sys.argv[3])
print(json.dumps({"list": [r["id"] for r in rows], "count": rows[0]["message_count"],
  "tip": db.get_compression_tip("S1"), "resume": db.resolve_resume_session_id("S1"),
  "chain": db._session_lineage_root_to_tip(sys.argv[3]),
  "msgs": [[m["role"], (m["content"] or "")[:10], m["timestamp"]] for m in msgs]}))`
    const out = JSON.parse(
      execFileSync(PY, ['-c', py, UPSTREAM, dbPath, child], {
        encoding: 'utf8',
        env: { ...process.env, HERMES_HOME: root }
      })
    ) as {
      list: string[]
      count: number
      tip: string
      resume: string
      chain: string[]
      msgs: Array<[string, string, number]>
    }
    expect(out.list).toEqual([child])
    expect([out.tip, out.resume, out.chain]).toEqual([child, child, [PARENT, child]])
    expect(out.count).toBe(5)
    expect(out.msgs.map((m) => m[1])).toEqual([
      '[CONTEXT S',
      'answer 2 l',
      'next quest',
      LATE.slice(0, 10),
      'Carrying o'
    ])
    expect(out.msgs[1]![2]).toBe(T0 + 45)
  })
})
