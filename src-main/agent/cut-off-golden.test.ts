// Replies cut short, replayed byte for byte from what upstream's own loop was given (scripts/golden/stream_cutoff.py):
// a real local HTTP server (dropping the connection where the golden says so) → agent → real state.db, compared
// with what upstream did — how many requests, the rows it stored, the tool calls it ran, and its result (completed /
// partial, answer) — on both protocols, and with the user's Stop; then upstream's SessionDB and request builder read
// back the rows a cut-off tool call and a stopped tool round leave.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { sse, startRouteServer, type RouteServer } from './providers/test-fixtures/route-server'
import { streamRetryWaitMs } from './stream-retry'
import { makeKit, recordingTool, testRuntime, type Kit } from './test-fixtures/kit'
import type { AgentDelta } from './types'
import { parseStoppedTurn } from '@shared/contract/stopped-turn'

interface Scenario {
  /** The protocol (absent: OpenAI-compatible chat completions). */
  api?: 'anthropic'
  /** `interrupt`: the user's stop once this reply is served, while the tool it calls runs or while it still streams. */
  replies: Array<{ body: string; drop: boolean; interrupt?: 'tool' | 'stream' }>
  requests: number
  rows: Array<[string, string | null, string | null]>
  /** The arguments of every tool call upstream stored (and ran). */
  tool_calls?: string[]
  result: {
    final_response: string | null
    completed: boolean
    partial: boolean | null
    interrupted?: boolean | null
    error: string | null
  }
  /** Seconds between upstream's requests (kept where its waits are the subject). */
  gaps?: number[]
}
const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/stream-cutoff/golden.json'), 'utf8')
) as Record<string, Scenario>

const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const PYTHON = '/usr/bin/python3'
const hasUpstream = existsSync(PYTHON) && existsSync(join(UPSTREAM, 'hermes_state.py'))

let kit: Kit
let provider: RouteServer
afterEach(async () => {
  await provider?.close()
  await kit?.cleanup()
})

/** Our note on a part whose tool call was cut, as the golden masks upstream's: `[note]`. */
const masked = (text: string | null) =>
  text
    ?.replace(/\n\n\[The stream broke off in the middle of [^\]]*\]/g, '\n\n[note]')
    .replace(/^\[Stopped by the user before the reply to these tool results\.\]$/, '[stopped]')

/**
 * Where Caduceus departs from upstream on purpose: upstream runs an Anthropic tool call whose input JSON was cut off
 * with whatever its SDK's partial parse made of it (`{}`, or the fields before the cut), and we never run it: the call
 * and a tool result saying its arguments were cut are kept instead, the same rows upstream stores.
 */
const NOT_RUN = new Set(['ant_tool_cut', 'ant_tool_partial', 'ant_tool_cut_no_stop'])

/** Replays a scenario's replies to a new agent on `kit`'s store (session `sessionId`) through a real local server. */
async function replay(name: string, g: Scenario, sessionId = 'S1') {
  let interruptNow = () => {}
  const terminal = recordingTool('terminal', (args) => {
    // the user's stop while this tool runs (upstream: `sleep 3`, stopped a second in)
    if (String(args.command).startsWith('sleep')) interruptNow()
    return 'hi'
  })
  kit.tools.register(terminal.def)
  await provider?.close()
  provider = await startRouteServer((_req, res, n) => {
    const reply = g.replies[Math.min(n, g.replies.length) - 1]!
    sse(res)
    if (reply.interrupt === 'stream') return void res.write(reply.body, () => setTimeout(interruptNow, 20))
    if (!reply.drop) return void res.end(reply.body)
    res.write(reply.body, () => setTimeout(() => res.socket?.destroy(), 20))
  })
  // 5 model calls are enough for every scenario, as for upstream: a request asked again after a stream cut
  // before any text or inside a tool call is the same call, not another one of the budget
  const ant = g.api === 'anthropic'
  const runtime = testRuntime(provider.baseUrl, ant ? { provider: 'anthropic', apiMode: 'anthropic_messages' } : {})
  const agent = kit.makeAgent({ runtime, maxIterations: 5, sessionId })
  interruptNow = () => agent.interrupt()
  const deltas: AgentDelta[] = []
  const result = await agent.runTurn(`CUTOFF-${name}: go`, { onDelta: (d) => deltas.push(d) })
  return { result, deltas, terminal }
}

describe("replies cut short, as upstream's loop handled the same bytes", () => {
  for (const [name, g] of Object.entries(golden)) {
    it(name, async () => {
      kit = await makeKit()
      const { result, deltas, terminal } = await replay(name, g)
      expect(provider.hits).toBe(g.requests)
      const rows = kit.messages('S1')
      // And on the user's Stop: upstream ends a Stop while a reply streams as a completed turn (that reply's row
      // finish_reason "stop"); ours is interrupted ("interrupted"). A Stop while a tool runs leaves upstream no answer
      // at all; ours keeps the parts of a cut-off reply before it, the start of the answer the user saw (as upstream
      // keeps them on a Stop mid-stream).
      const stop = g.replies.find((r) => r.interrupt)?.interrupt
      expect(rows.map((r) => [r.role, r.finish_reason])).toEqual(
        g.rows.map((r, k) => [r[0], stop === 'stream' && k === g.rows.length - 1 ? 'interrupted' : r[2]])
      )
      // assistant text as upstream stored it (upstream trims a kept part; whitespace aside, the same)
      expect(rows.map((r) => (r.role === 'assistant' ? masked(r.content)?.trim() : null))).toEqual(
        g.rows.map((r) => (r[0] === 'assistant' ? r[1]?.trim() : null))
      )
      // the row that closes a stopped tool round (upstream's, masked `[stopped]`) is the one assistant row the
      // transcript shows as the Stop it records rather than as the model's words
      expect(
        rows.map(
          (r) =>
            parseStoppedTurn({
              role: r.role,
              content: r.content,
              finishReason: r.finish_reason,
              toolCalls: r.tool_calls ? (JSON.parse(r.tool_calls) as unknown[]) : null
            }) !== null
        )
      ).toEqual(g.rows.map((r) => r[0] === 'assistant' && r[1] === '[stopped]'))
      // every request to go on shows as a notice in the transcript, not as the user's words
      expect(
        rows
          .slice(1)
          .filter((r) => r.role === 'user')
          .map((r) => r.display_kind)
      ).toEqual(
        g.rows
          .slice(1)
          .filter((r) => r[0] === 'user')
          .map(() => 'continuation_notice')
      )
      // the tool calls stored, with the same arguments, and run (every one upstream ran, except a cut one)
      const stored = rows.flatMap((r) =>
        (JSON.parse(r.tool_calls ?? '[]') as Array<{ function: { arguments: string } }>).map(
          (c) => c.function.arguments
        )
      )
      expect(stored.length).toBe(g.tool_calls?.length ?? 0)
      if (NOT_RUN.has(name)) {
        expect(terminal.calls).toEqual([])
        expect(stored.map((a) => Object.keys(JSON.parse(a) as object))).toEqual([['_cut']])
        const answer = rows.find((r) => r.role === 'tool')?.content ?? ''
        expect(answer).toMatch(/not run: the provider's stream ended before its arguments were complete/)
      } else {
        expect(stored.map((a) => JSON.parse(a) as unknown)).toEqual(
          g.tool_calls?.map((a) => JSON.parse(a) as unknown) ?? []
        )
        expect(terminal.calls).toEqual(g.tool_calls?.map((a) => JSON.parse(a) as unknown) ?? [])
      }
      // upstream's completed / partial: a partial turn ends status error, partial, with its text as the answer
      const status = stop ? 'interrupted' : g.result.completed ? 'completed' : 'error'
      expect([result.status, result.partial ?? false]).toEqual([status, g.result.partial === true])
      if (stop === 'tool') {
        expect([g.result.final_response, masked(result.finalText)?.trim()]).toEqual([
          null,
          g.rows
            .filter((r) => r[0] === 'assistant' && r[2] === 'length')
            .map((r) => r[1])
            .join(' ')
        ])
      } else if (g.result.completed || g.result.partial) {
        expect(masked(result.finalText)?.trim() || null).toBe(g.result.final_response?.trim() || null)
      } else expect(result.error).toBeTruthy() // upstream's final_response is its own error text; ours is the turn's error
      if (g.gaps) {
        // the waits fall where upstream's did, and upstream's lie within our schedule at its own base (2 s), give
        // or take its overhead between requests (sleeping in 0.2 s steps, rebuilding its client)
        const empty = deltas.some((d) => d.kind === 'notice' && d.text?.includes('held no content'))
        const waits = deltas
          .filter((d) => d.kind === 'notice')
          .map((d) => (/ in (\d+) ms \(attempt/.exec(d.text ?? '') ? 1 : 0))
        expect(waits).toEqual(g.gaps.map((gap) => (gap >= 1.5 ? 1 : 0)))
        g.gaps.forEach((gap, k) => {
          if (gap < 1.5) return
          const lo = streamRetryWaitMs(k + 1, 2000, () => 0, empty) / 1000
          const hi = streamRetryWaitMs(k + 1, 2000, () => 1, empty) / 1000
          expect([k, gap >= lo - 0.1 && gap <= hi + 1]).toEqual([k, true])
        })
      }
    })
  }
})

/** Upstream's SessionDB reads sessions back, and its Anthropic converter builds the next request from each. */
const READ_BACK = `import json, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from hermes_state import SessionDB
from agent.anthropic_adapter import convert_messages_to_anthropic
db = SessionDB(db_path=Path(sys.argv[2]), read_only=True)
out = {}
for sid in sys.argv[3:]:
    conv = db.get_messages_as_conversation(sid)
    _, request = convert_messages_to_anthropic(conv + [{"role": "user", "content": "next"}])
    out[sid] = {"conversation": [[m["role"], m.get("tool_calls"), m.get("tool_call_id")] for m in conv],
                "request": request}
print(json.dumps(out))
`

describe.skipIf(!hasUpstream)(
  'the rows a cut-off tool call and a stopped tool round leave, read back by upstream',
  () => {
    it("pair every call with its result, and the next request alternates roles as upstream's own rows do", async () => {
      kit = await makeKit()
      await replay('ant_tool_cut', golden.ant_tool_cut!, 'CUT')
      await replay('length_tool_stop_tool', golden.length_tool_stop_tool!, 'STOP')
      const home = kit.store.path
      const out = JSON.parse(
        execFileSync(PYTHON, ['-c', READ_BACK, UPSTREAM, home, 'CUT', 'STOP'], {
          encoding: 'utf8',
          env: { ...process.env, HERMES_HOME: join(home, '..') }
        })
      ) as Record<
        string,
        {
          conversation: Array<[string, Array<{ id: string; function: { arguments: string } }> | null, string | null]>
          request: Array<{ role: string; content: Array<Record<string, unknown>> | string }>
        }
      >
      // the cut call as upstream reads it: the model's call with our marker for arguments, answered by its result
      const cut = out.CUT!
      expect(cut.conversation.map((m) => m[0])).toEqual(['user', 'assistant', 'tool', 'assistant'])
      const call = cut.conversation[1]![1]![0]!
      expect(Object.keys(JSON.parse(call.function.arguments) as object)).toEqual(['_cut'])
      expect(cut.conversation[2]![2]).toBe(call.id)
      const blocks = cut.request.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      expect(blocks.find((b) => b.type === 'tool_use')).toMatchObject({
        id: call.id,
        input: { _cut: expect.any(String) }
      })
      expect(blocks.find((b) => b.type === 'tool_result')).toMatchObject({ tool_use_id: call.id })
      // the stopped round: closed by an assistant row, so the next user message follows the model, not a tool result
      const stop = out.STOP!
      expect(stop.conversation.map((m) => m[0])).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'tool',
        'assistant'
      ])
      const roles = stop.request.map((m) => m.role)
      expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user'])
    })
  }
)
