// v31 message identity (NousResearch/hermes-agent schema 31) on rows Caduceus writes. Upstream binds a uid on every
// row, a call-id → uid map on an assistant row with calls and the call's uid on each result, and reads them back on
// every restore (results paired to their call by uid; an assistant row without a map leaves its results unpaired).
// A turn with tool calls, run through the agent against a scripted provider on a copy of the v31 fixture home, must
// leave rows upstream reads as its own; an import of a v31 export keeps the uids; a v30 home gets no such column.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore, StoreRegistry } from '../src-main/store'
import { planConversation } from '../src-main/channels/conversation'
import { apiConversations } from '../src-main/host/app-channels'
import { Agent } from '../src-main/agent/agent'
import { startScriptedProvider } from '../src-main/agent/scripted'
import { ToolRegistry } from '../src-main/agent/tools/registry'
import { isSummaryCall, makeKit, recordingTool, testRuntime } from '../src-main/agent/test-fixtures/kit'
import { rawDb } from '../src-main/store/test-fixtures/raw-db'
import { hasSystemPython, SYSTEM_PYTHON } from './support/fts-integrity'

const FIXTURE = join(__dirname, 'fixtures', 'upstream', 'nous-v31', 'state.db')
const HEATER = '20251201_090000_a1b2c3'
const HEX32 = /^[0-9a-f]{32}$/
const IDENTITY = ['message_uid', 'absorbed_message_uids', 'tool_call_uids', 'tool_call_uid'] as const

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function v31Home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cad-v31-uid-'))
  dirs.push(dir)
  cpSync(FIXTURE, join(dir, 'state.db'))
  return join(dir, 'state.db')
}

interface Row {
  role: string
  tool_call_id: string | null
  tool_calls: string | null
  message_uid: string | null
  absorbed_message_uids: string | null
  tool_call_uids: string | null
  tool_call_uid: string | null
}

function rowsOf(path: string, sessionId: string): Row[] {
  const db = new Database(path, { readonly: true })
  try {
    return db
      .prepare<unknown[], Row>(
        `SELECT role, tool_call_id, tool_calls, ${IDENTITY.join(', ')} FROM messages WHERE session_id = ? ORDER BY id`
      )
      .all(sessionId)
  } finally {
    db.close()
  }
}

/**
 * The rows as upstream's Python reads them: each map exactly as json.dumps(sort_keys=True) writes it, and each result
 * paired by upstream's restore rule (the nearest assistant row after the last user row naming its call id).
 */
const UPSTREAM_READ = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("SELECT role, tool_call_id, tool_calls, tool_call_uids, tool_call_uid FROM messages"
                 " WHERE session_id = ? ORDER BY id", (sys.argv[2],)).fetchall()
out = {"maps_as_python_writes": True, "paired": []}
for i, (role, call_id, calls, uids, uid) in enumerate(rows):
    if uids is not None and json.dumps(json.loads(uids), sort_keys=True) != uids:
        out["maps_as_python_writes"] = False
    if role != "tool":
        continue
    derived = None
    for prior in reversed(rows[:i]):
        if prior[0] == "user":
            break
        if prior[0] == "assistant" and prior[2] and call_id in [tc["id"] for tc in json.loads(prior[2])]:
            derived = json.loads(prior[3]).get(call_id) if prior[3] else None
            break
    out["paired"].append([call_id, derived is not None and derived == uid])
print(json.dumps(out))`

describe('v31 message identity on the rows Caduceus writes', () => {
  it('a tool-calling turn on a v31 home fills the four columns as upstream writes them', async () => {
    const path = v31Home()
    const store = new SessionStore(path)
    const provider = await startScriptedProvider({
      script: [
        {
          toolCalls: [
            { name: 'lookup', arguments: { q: 'a' }, id: 'call_a' },
            { name: 'lookup', arguments: { q: 'b' }, id: 'call_b' }
          ]
        },
        // a provider reusing an id (llama.cpp-style): a new occurrence, its own uid
        { toolCalls: [{ name: 'lookup', arguments: { q: 'c' }, id: 'call_a' }] },
        { text: 'Both looked up.' }
      ]
    })
    const tools = new ToolRegistry()
    tools.register(recordingTool('lookup').def)
    try {
      const agent = new Agent({
        profile: 'default',
        sessionId: 'S1',
        store,
        runtime: testRuntime(provider.baseUrl),
        tools,
        maxIterations: 8,
        gatewaySessionKey: 'agent:main:desk:S1'
      })
      expect((await agent.runTurn('Look both up')).status).toBe('completed')
    } finally {
      await provider.close()
      store.close()
    }
    const rows = rowsOf(path, 'S1')
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant'])
    const uids = rows.map((r) => r.message_uid)
    expect(uids.every((u) => u !== null && HEX32.test(u))).toBe(true)
    expect(new Set(uids).size).toBe(rows.length)
    const first = JSON.parse(rows[1]!.tool_call_uids!) as Record<string, string>
    const second = JSON.parse(rows[4]!.tool_call_uids!) as Record<string, string>
    expect(Object.keys(first)).toEqual(['call_a', 'call_b'])
    expect(Object.keys(second)).toEqual(['call_a'])
    const [a1, b, a2] = [first.call_a!, first.call_b!, second.call_a!]
    expect([a1, b, a2].every((u) => HEX32.test(u))).toBe(true)
    expect(new Set([a1, b, a2]).size).toBe(3)
    // Python's json.dumps(…, sort_keys=True) bytes, as upstream stores the map
    expect(rows[1]!.tool_call_uids).toBe(`{"call_a": "${a1}", "call_b": "${b}"}`)
    expect(rows.map((r) => r.tool_call_uid)).toEqual([null, null, a1, b, null, a2, null])
    expect(rows.filter((r) => r.role !== 'assistant' || !r.tool_calls).map((r) => r.tool_call_uids)).toEqual(
      Array(5).fill(null)
    )
    expect(rows.map((r) => r.absorbed_message_uids)).toEqual(Array(7).fill(null))
    if (hasSystemPython)
      expect(JSON.parse(execFileSync(SYSTEM_PYTHON, ['-c', UPSTREAM_READ, path, 'S1'], { encoding: 'utf8' }))).toEqual({
        maps_as_python_writes: true,
        paired: [
          ['call_a', true],
          ['call_b', true],
          ['call_a', true]
        ]
      })
  }, 30_000)

  it('a tool result appended after its call in a later write pairs with that call, never across a user turn', async () => {
    const path = v31Home()
    const store = new SessionStore(path)
    try {
      await store.createSession('S2', 'cli')
      const call = [{ id: 'call_x', name: 'lookup', arguments: '{}' }]
      await store.appendMessages('S2', [
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: '', toolCalls: call }
      ])
      await store.appendMessage('S2', { role: 'tool', content: 'r1', toolCallId: 'call_x', toolName: 'lookup' })
      await store.appendMessages('S2', [
        { role: 'user', content: 'q2' },
        { role: 'tool', content: 'stray', toolCallId: 'call_x', toolName: 'lookup' }
      ])
    } finally {
      store.close()
    }
    const rows = rowsOf(path, 'S2')
    const map = JSON.parse(rows[1]!.tool_call_uids!) as Record<string, string>
    expect(rows.map((r) => r.tool_call_uid)).toEqual([null, null, map.call_x, null, null])
  })

  it('an import of a v31 export keeps every uid; one without uids gets them minted and paired', async () => {
    const from = v31Home()
    const source = new SessionStore(from)
    const [record] = [...source.exportSessions({ sessionId: HEATER })]
    source.close()
    expect(record!.messages[1]).toMatchObject({ role: 'assistant', tool_call_uids: expect.stringMatching(/call_h1/) })

    const to = v31Home()
    const target = new SessionStore(to)
    const bare = {
      ...record!,
      id: 'bare-copy',
      title: null,
      messages: record!.messages.map((m) => Object.fromEntries(Object.entries(m).filter(([k]) => !k.includes('uid'))))
    }
    try {
      await target.deleteSession(HEATER)
      const summary = await target.importJsonl(`${JSON.stringify(record)}\n${JSON.stringify(bare)}\n`, 10)
      expect(summary).toMatchObject({ imported: 2, errors: [], ignoredFields: {} })
    } finally {
      target.close()
    }
    const identity = (r: Row) => IDENTITY.map((c) => r[c])
    expect(rowsOf(to, HEATER).map(identity)).toEqual(rowsOf(from, HEATER).map(identity))

    const minted = rowsOf(to, 'bare-copy')
    expect(minted.every((r) => HEX32.test(r.message_uid!))).toBe(true)
    const map = JSON.parse(minted[1]!.tool_call_uids!) as Record<string, string>
    expect(Object.keys(map)).toEqual(['call_h1', 'call_h2'])
    expect(minted.slice(2, 4).map((r) => r.tool_call_uid)).toEqual([map.call_h1, map.call_h2])
  })

  it('a v30 home Caduceus made gets no identity column from a tool-calling turn', async () => {
    const kit = await makeKit([{ toolCalls: [{ name: 'lookup', arguments: {}, id: 'call_a' }] }, { text: 'done' }])
    try {
      kit.tools.register(recordingTool('lookup').def)
      expect((await kit.makeAgent().runTurn('go')).status).toBe('completed')
      expect(kit.messages('S1').map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
      const cols = rawDb(kit.store).prepare("SELECT name FROM pragma_table_info('messages')").pluck().all()
      expect(cols.filter((c) => IDENTITY.includes(c as never))).toEqual([])
    } finally {
      await kit.cleanup()
    }
  })
})

// ---- copies keep identity -------------------------------------------------------------------------------------------
// Upstream keeps a message's identity across every copy of it (its context-engine guide: rotation-child handoff copies,
// their foreign-tail clones, /branch and Desktop branch copies — "the child session's copied rows keep the parent's
// uids"); a merge keeps the uid of the part whose text comes first. Plugins key their own state on those uids.

const long = (tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(40)}`

interface IdRow extends Row {
  id: number
  content: string | null
  display_kind: string | null
}

function identityRows(path: string, sessionId: string): IdRow[] {
  const db = new Database(path, { readonly: true })
  try {
    return db
      .prepare<unknown[], IdRow>(
        `SELECT id, role, content, display_kind, tool_call_id, tool_calls, ${IDENTITY.join(', ')}
           FROM messages WHERE session_id = ? ORDER BY id`
      )
      .all(sessionId)
  } finally {
    db.close()
  }
}

/**
 * Read by the system Python's sqlite3: for each row of the child, the parent row holding the same message_uid (its
 * position among the parent's rows) and whether all four identity columns are the same there, byte for byte.
 */
const COPIED_FROM = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
cols = "message_uid, absorbed_message_uids, tool_call_uids, tool_call_uid"
q = "SELECT " + cols + " FROM messages WHERE session_id = ? ORDER BY id"
parent = c.execute(q, (sys.argv[2],)).fetchall()
out = []
for row in c.execute(q, (sys.argv[3],)).fetchall():
    at = [i for i, p in enumerate(parent) if p[0] == row[0]]
    out.append([at[0] if at else None, bool(at) and parent[at[0]] == row])
print(json.dumps(out))`

async function compressingAgent(path: string, protectLastN: number, history?: boolean) {
  const store = new SessionStore(path)
  const provider = await startScriptedProvider({
    handler: (req) =>
      isSummaryCall(req) ? { text: 'They looked up long topics A and B.' } : { text: 'Carrying on after compression.' }
  })
  const agent = new Agent({
    profile: 'default',
    sessionId: 'S1',
    store,
    runtime: testRuntime(provider.baseUrl),
    tools: new ToolRegistry(),
    maxIterations: 4,
    gatewaySessionKey: 'agent:main:desk:S1',
    compression: { enabled: true, threshold: 0.5, contextLength: 1000, protectLastN, targetRatio: 0.2 },
    ...(history ? { history: store.getMessagesAsConversation('S1') } : {})
  })
  return {
    store,
    agent,
    close: async () => {
      await provider.close()
      store.close()
    }
  }
}

/** S1 on a v31 home: two long exchanges, the second answered after a tool round (rows with call uids). */
async function seedS1(path: string): Promise<void> {
  const store = new SessionStore(path)
  try {
    await store.createSession('S1', 'desktop', { sessionKey: 'agent:main:desk:S1' })
    await store.appendMessages('S1', [
      { role: 'user', content: long('question 0') },
      { role: 'assistant', content: long('answer 0') },
      { role: 'user', content: long('question 1') },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_a', name: 'lookup', arguments: '{"q":"a"}' }] },
      { role: 'tool', content: long('result a'), toolCallId: 'call_a', toolName: 'lookup' },
      { role: 'assistant', content: long('answer 1') }
    ])
  } finally {
    store.close()
  }
}

const uidOf = (r: Row) => IDENTITY.map((c) => r[c])

describe('v31 message identity across copies of a message', () => {
  it("a compression continuation's carried rows keep the parent's identity; only the summary is new", async () => {
    const path = v31Home()
    await seedS1(path)
    const { agent, close } = await compressingAgent(path, 4)
    let child: string
    try {
      expect((await agent.runTurn('next question')).status).toBe('completed')
      child = agent.sessionId
    } finally {
      await close()
    }
    expect(child).not.toBe('S1')
    const parent = identityRows(path, 'S1')
    const rows = identityRows(path, child)
    // summary + the protected tail (the tool round, the answer, the turn's own message saved before rotation) + reply
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant'])
    expect(rows[0]!.display_kind).toBe('compression_summary')
    expect(rows.slice(1, 5).map(uidOf)).toEqual(parent.slice(3, 7).map(uidOf))
    expect(rows[1]!.tool_call_uids).toMatch(/^\{"call_a": "[0-9a-f]{32}"\}$/)
    expect(rows[2]!.tool_call_uid).toBe((JSON.parse(rows[1]!.tool_call_uids!) as Record<string, string>).call_a)
    const parentUids = new Set(parent.map((r) => r.message_uid))
    expect(HEX32.test(rows[0]!.message_uid!) && !parentUids.has(rows[0]!.message_uid)).toBe(true)
    expect(HEX32.test(rows[5]!.message_uid!) && !parentUids.has(rows[5]!.message_uid)).toBe(true)
    if (hasSystemPython) {
      const copied = (from: string, to: string) =>
        JSON.parse(execFileSync(SYSTEM_PYTHON, ['-c', COPIED_FROM, path, from, to], { encoding: 'utf8' })) as unknown
      expect(copied('S1', child)).toEqual([
        [null, false],
        [3, true],
        [4, true],
        [5, true],
        [6, true],
        [null, false]
      ])
      expect(JSON.parse(execFileSync(SYSTEM_PYTHON, ['-c', UPSTREAM_READ, path, child], { encoding: 'utf8' }))).toEqual(
        {
          maps_as_python_writes: true,
          paired: [['call_a', true]]
        }
      )
    }
  }, 30_000)

  it('a summary merged into the turn its caller saved keeps that message’s uid (held in memory, saved by the caller)', async () => {
    const path = v31Home()
    await seedS1(path)
    // An agent that already holds the history (a cached one), and the user message saved by the caller (the gateway's
    // order: its row first, then the turn that answers it).
    const { store, agent, close } = await compressingAgent(path, 1, true)
    let child: string
    let saved: number
    try {
      saved = await store.appendMessage('S1', { role: 'user', content: 'next question' })
      expect((await agent.runTurn('next question', { savedUserMessageId: saved })).status).toBe('completed')
      child = agent.sessionId
    } finally {
      await close()
    }
    const parent = identityRows(path, 'S1')
    const rows = identityRows(path, child)
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant'])
    expect(rows[0]!.content).toContain('next question')
    expect(rows[0]!.content).toContain('They looked up long topics A and B.')
    expect(uidOf(rows[0]!)).toEqual(uidOf(parent.find((r) => r.id === saved)!))
    if (hasSystemPython)
      expect(
        JSON.parse(execFileSync(SYSTEM_PYTHON, ['-c', COPIED_FROM, path, 'S1', child], { encoding: 'utf8' }))
      ).toEqual([
        [6, true],
        [null, false]
      ])
  }, 30_000)

  it('read as a chain, the parent leaves out the rows its continuation carries, paired by message_uid', async () => {
    const path = v31Home()
    await seedS1(path)
    const { store, agent, close } = await compressingAgent(path, 4)
    try {
      expect((await agent.runTurn('next question')).status).toBe('completed')
      const child = agent.sessionId
      const ids = (sessionId: string, carriedBy?: string) =>
        store.getMessages({ sessionId, ...(carriedBy ? { carriedBy } : {}) }).items.map((m) => m.id)
      const parent = identityRows(path, 'S1')
      // the child carries the parent's last four rows (call, result, answer, the turn's message): the rest stay
      expect(ids('S1', child)).toEqual(parent.slice(0, 3).map((r) => r.id))
      expect(ids('S1')).toEqual(parent.map((r) => r.id))
    } finally {
      await close()
    }
  }, 30_000)

  it('a summary merged into a carried message: its original, known by its uid alone, is left out of the parent', async () => {
    const path = v31Home()
    await seedS1(path)
    const { store, agent, close } = await compressingAgent(path, 1, true)
    try {
      const saved = await store.appendMessage('S1', { role: 'user', content: 'next question' })
      expect((await agent.runTurn('next question', { savedUserMessageId: saved })).status).toBe('completed')
      const chainPage = store.getMessages({ sessionId: 'S1', carriedBy: agent.sessionId })
      expect(chainPage.items.map((m) => m.id)).toEqual(
        identityRows(path, 'S1')
          .slice(0, 6)
          .map((r) => r.id)
      )
      expect(chainPage.items.some((m) => m.id === saved)).toBe(false)
    } finally {
      await close()
    }
  }, 30_000)

  it('an API conversation branched at an edited answer copies the turns it shares, each keeping its uid', async () => {
    const path = v31Home()
    const stores = new StoreRegistry(dirname(path))
    let sid: string
    let branch: string
    try {
      const sessions = apiConversations(stores, 'default')
      const first = await planConversation(sessions, { system: '', history: [], text: 'hello', nowSec: 0 })
      sid = first.sessionId
      const store = stores.get('default')
      await store.createSession(sid, 'api_server')
      await store.appendMessages(sid, [
        { role: 'user', content: 'hello' },
        {
          role: 'assistant',
          content: 'Let me check. ',
          toolCalls: [{ id: 'call_c', name: 'lookup', arguments: '{}' }]
        },
        { role: 'tool', content: 'found', toolCallId: 'call_c', toolName: 'lookup' },
        { role: 'assistant', content: 'It is sunny.' },
        { role: 'user', content: 'and tomorrow?' },
        { role: 'assistant', content: 'Rain.' }
      ])
      // The chat UI shows the streamed answer as one message (text before the call, then the reply); the user edits
      // the last answer and goes on: the conversation continues in a branch holding the request's history.
      const plan = await planConversation(sessions, {
        system: '',
        history: [
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: 'Let me check. It is sunny.' },
          { role: 'user', content: 'and tomorrow?' },
          { role: 'assistant', content: 'Snow, I said.' }
        ],
        text: 'really?',
        nowSec: 1
      })
      expect(plan.kind).toBe('continue')
      branch = plan.sessionId
    } finally {
      stores.closeAll()
    }
    expect(branch).not.toBe(sid)
    const parent = identityRows(path, sid)
    const rows = identityRows(path, branch)
    expect(rows.map((r) => [r.role, r.content])).toEqual([
      ['user', 'hello'],
      ['assistant', 'Let me check. It is sunny.'],
      ['user', 'and tomorrow?'],
      ['assistant', 'Snow, I said.']
    ])
    expect(rows[0]!.message_uid).toBe(parent[0]!.message_uid)
    // two rows' text in one message: the first one's uid, the other recorded as absorbed (upstream's merge rule)
    expect(rows[1]!.message_uid).toBe(parent[1]!.message_uid)
    expect(rows[1]!.absorbed_message_uids).toBe(`["${parent[3]!.message_uid}"]`)
    expect(rows[2]!.message_uid).toBe(parent[4]!.message_uid)
    expect(HEX32.test(rows[3]!.message_uid!)).toBe(true)
    expect(parent.some((r) => r.message_uid === rows[3]!.message_uid)).toBe(false)
    if (hasSystemPython)
      expect(
        JSON.parse(execFileSync(SYSTEM_PYTHON, ['-c', BRANCH_READ, path, sid, branch], { encoding: 'utf8' }))
      ).toEqual([
        [0, [], true, null, null],
        [1, [3], true, null, null],
        [4, [], true, null, null],
        [null, [], true, null, null]
      ])
  })

  it('a history restored with its alternation repaired keeps the first uid and records the one merged in', async () => {
    const path = v31Home()
    const store = new SessionStore(path)
    try {
      await store.createSession('R1', 'cli')
      await store.appendMessages('R1', [
        { role: 'user', content: 'first' },
        { role: 'user', content: 'second' },
        { role: 'assistant', content: 'both read' }
      ])
      const [merged] = store.getMessagesAsConversation('R1', { repairAlternation: true })
      const [a, b] = identityRows(path, 'R1')
      expect(merged).toMatchObject({
        content: 'first\n\nsecond',
        identity: { messageUid: a!.message_uid, absorbedMessageUids: [b!.message_uid] }
      })
      // written again (a continuation's copy of it): the survivor's row carries the witness, as upstream's does
      await store.createSession('R2', 'cli')
      await store.appendMessage('R2', { role: 'user', content: merged!.content, identity: merged!.identity })
      expect(uidOf(identityRows(path, 'R2')[0]!)).toEqual([a!.message_uid, `["${b!.message_uid}"]`, null, null])
    } finally {
      store.close()
    }
  })
})

/**
 * A branch as upstream's Python reads it: for each of its rows, the parent row with the same uid and the parent rows
 * its absorbed uids name (positions), whether the list is as json.dumps writes it, and its call columns.
 */
const BRANCH_READ = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = ("SELECT message_uid, absorbed_message_uids, tool_call_uids, tool_call_uid FROM messages"
     " WHERE session_id = ? ORDER BY id")
parent = [r[0] for r in c.execute(q, (sys.argv[2],))]
out = []
for uid, absorbed, calls, call in c.execute(q, (sys.argv[3],)).fetchall():
    a = json.loads(absorbed) if absorbed else []
    out.append([parent.index(uid) if uid in parent else None, [parent.index(x) for x in a],
                absorbed is None or json.dumps(a) == absorbed, calls, call])
print(json.dumps(out))`
