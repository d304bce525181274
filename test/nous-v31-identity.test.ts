// v31 message identity (NousResearch/hermes-agent schema 31) on rows Caduceus writes. Upstream binds a uid on every
// row, a call-id → uid map on an assistant row with calls and the call's uid on each result, and reads them back on
// every restore (results paired to their call by uid; an assistant row without a map leaves its results unpaired).
// A turn with tool calls, run through the agent against a scripted provider on a copy of the v31 fixture home, must
// leave rows upstream reads as its own; an import of a v31 export keeps the uids; a v30 home gets no such column.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore } from '../src-main/store'
import { Agent } from '../src-main/agent/agent'
import { startScriptedProvider } from '../src-main/agent/scripted'
import { ToolRegistry } from '../src-main/agent/tools/registry'
import { makeKit, recordingTool, testRuntime } from '../src-main/agent/test-fixtures/kit'
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
