// A reply cut off by the output cap (finish_reason "length") in the middle of its tool calls, through the whole
// turn: a real local HTTP server with scripted replies → agent → real state.db. Then the same cut hidden behind a
// finish_reason "tool_calls" (a router's), replayed from what upstream's own loop was given.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { chunk, sse, startRouteServer, type RouteServer } from './providers/test-fixtures/route-server'
import { makeKit, recordingTool, testRuntime, type Kit } from './test-fixtures/kit'
import type { AgentDelta } from './types'

let kit: Kit
let provider: RouteServer
afterEach(async () => {
  await provider?.close()
  await kit?.cleanup()
})

const call = (index: number, id: string, args: string) =>
  chunk({ tool_calls: [{ index, id, type: 'function', function: { name: 'terminal' } }] }) +
  chunk({ tool_calls: [{ index, function: { arguments: args } }] })
const usage = (output: number) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: output } })}\n\n`
/** Two calls, the second cut mid-arguments by the cap. */
const cutOff =
  chunk({ content: 'Cleaning up.' }) +
  call(0, 'call_1', '{"command":"ls /tmp"}') +
  call(1, 'call_2', '{"command":"rm -rf /tmp/x') +
  chunk({}, 'length') +
  usage(1000) +
  'data: [DONE]\n\n'
const complete =
  call(0, 'call_1', '{"command":"ls /tmp"}') +
  call(1, 'call_2', '{"command":"rm -rf /tmp/x"}') +
  chunk({}, 'tool_calls') +
  'data: [DONE]\n\n'
const finished = `${chunk({ content: 'All done.' }, 'stop')}data: [DONE]\n\n`

async function setUp(replies: string[], maxTokens?: number) {
  kit = await makeKit()
  const terminal = recordingTool('terminal')
  kit.tools.register(terminal.def)
  provider = await startRouteServer((_req, res, n) => {
    sse(res)
    res.end(replies[n - 1] ?? finished)
  })
  const agent = kit.makeAgent({
    runtime: testRuntime(provider.baseUrl, { maxTokens })
  })
  const maxTokensSent = () => provider.bodies.map((b) => (JSON.parse(b) as { max_tokens?: number }).max_tokens)
  return { agent, terminal, maxTokensSent }
}

describe('a reply cut off by the output cap in its tool calls', () => {
  it('runs none of its calls and asks again with twice the cap; the complete reply then runs', async () => {
    const { agent, terminal, maxTokensSent } = await setUp([cutOff, complete], 1000)
    const result = await agent.runTurn('tidy /tmp', { onDelta: (d) => kit.deltas.push(d) })
    expect(result.status).toBe('completed')
    expect(result.finalText).toBe('All done.')
    // each call ran once, from the complete reply only
    expect(terminal.calls).toEqual([{ command: 'ls /tmp' }, { command: 'rm -rf /tmp/x' }])
    expect(maxTokensSent()).toEqual([1000, 2000, 1000])
    const notices = kit.deltas.filter((d) => d.kind === 'notice').map((d) => d.text)
    expect(notices).toEqual([
      'The reply hit the output cap (max_tokens 1000) in the middle of its 2 tool calls; none of them was run. Asking again with max_tokens 2000 (1/3).'
    ])
    // the cut-off reply is not in the transcript: no calls without results
    expect(kit.messages('S1').map((r) => [r.role, r.finish_reason])).toEqual([
      ['user', null],
      ['assistant', 'tool_calls'],
      ['tool', null],
      ['tool', null],
      ['assistant', 'stop']
    ])
  })

  it('gives up after a bounded number of retries with a clear error, and never runs a call', async () => {
    const { agent, terminal, maxTokensSent } = await setUp([cutOff, cutOff, cutOff, cutOff, cutOff])
    const result = await agent.runTurn('tidy /tmp', { onDelta: (d) => kit.deltas.push(d) })
    expect(terminal.calls).toEqual([])
    expect(result.status).toBe('error')
    expect(result.error).toBe(
      'The reply hit the output cap (max_tokens 8000) in the middle of its 2 tool calls; they were not run (asked 4 times)'
    )
    // no cap configured: the provider's usage says where it cut (1000 tokens), then twice that each time
    expect(maxTokensSent()).toEqual([undefined, 2000, 4000, 8000])
    expect(kit.messages('S1').map((r) => [r.role, r.content, r.tool_calls, r.finish_reason])).toEqual([
      ['user', 'tidy /tmp', null, null],
      ['assistant', 'Cleaning up.', null, 'length']
    ])
  })
})

// A reply whose finish_reason says "tool_calls" while a tool call's arguments are JSON cut off before their end — a
// router hiding an output-cap cut behind the tool-call finish reason — replayed byte for byte from what upstream's own loop was given
// (scripts/golden/tool_args_cut.py): a real local HTTP server → agent → real state.db, compared with what upstream did.
// Like a reply cut by the cap (finish_reason "length") in its tool calls, none of the reply's calls runs and the same
// request goes again with a larger cap, a bounded number of times.
interface Scenario {
  replies: Array<{ body: string }>
  requests: number
  /** The output cap each of upstream's requests asked for (its model's own, 65536, every time). */
  max_tokens: number[]
  rows: Array<[string, string | null, string | null]>
  /** The arguments of every tool call upstream stored (and ran). */
  tool_calls?: string[]
  result: { final_response: string | null; completed: boolean; partial: boolean | null; error: string | null }
}
const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/tool-args-cut/golden.json'), 'utf8')
) as Record<string, Scenario>

/**
 * Where Caduceus departs from upstream on purpose, and what it does instead:
 * - a reply cut every time: asked 3 more times, as a reply the cap cut in its tool calls is (upstream: 4), and the
 *   text it came with is kept as a cut-off part (finish_reason "length"), as that path keeps it; the turn fails
 *   saying why (upstream: partial, its answer the same error);
 * - arguments that lack only their closing brace: upstream closes them and runs the call; a call whose arguments
 *   were cut may be missing fields that came after, so it is not run here, and the request goes again;
 * - arguments written wrong (single quotes), not cut: upstream takes them as cut too and asks again; a larger cap
 *   would not mend them, so here the call is answered with the parse error (not run) and the model goes on from it.
 */
const OURS: Record<string, Pick<Scenario, 'requests' | 'rows'> & { ran: string[]; error?: RegExp }> = {
  cut_always: {
    requests: 4,
    rows: [
      ['user', 'ARGSCUT-cut_always: go', null],
      ['assistant', 'Writing. ', 'length']
    ],
    ran: [],
    error: /^The reply's tool call ended with arguments cut off mid-JSON .*; it was not run \(asked 4 times\)$/
  },
  cut_notext_always: {
    requests: 4,
    rows: [['user', 'ARGSCUT-cut_notext_always: go', null]],
    ran: [],
    error: /cut off mid-JSON .*\(asked 4 times\)$/
  },
  cut_closable: {
    requests: 2,
    rows: [
      ['user', 'ARGSCUT-cut_closable: go', null],
      ['assistant', 'Done.', 'stop']
    ],
    ran: []
  },
  malformed_closed: {
    requests: 2,
    rows: [
      ['user', 'ARGSCUT-malformed_closed: go', null],
      ['assistant', 'Writing.', 'tool_calls'],
      ['tool', '[invalid arguments]', null],
      ['assistant', 'Done.', 'stop']
    ],
    ran: []
  }
}

/** The output cap each request asked for: twice the last each time the reply came back cut (none configured, no usage
 * reported: from 4096), none again once a reply was whole. */
const U = undefined
const CAPS: Record<string, Array<number | undefined>> = {
  cut_always: [U, 8192, 16384, 32768],
  cut_notext_always: [U, 8192, 16384, 32768],
  cut_then_whole: [U, 8192, U],
  second_cut_then_whole: [U, 8192, U],
  cut_closable: [U, 8192],
  cut_after_comma: [U, 8192],
  malformed_closed: [U, U]
}

/** A tool row as the golden keeps it: the tool's output, or our parse error (its wording is the JS engine's). */
const toolOutput = (content: string | null) =>
  content?.startsWith(`{"error":"Invalid arguments for 'terminal': `) ? '[invalid arguments]' : content

describe("a tool-call finish with arguments cut off, as upstream's loop handled the same bytes", () => {
  for (const [name, g] of Object.entries(golden)) {
    it(name, async () => {
      kit = await makeKit()
      const terminal = recordingTool('terminal', (args) => String(args.command).replace(/^echo /, ''))
      kit.tools.register(terminal.def)
      provider = await startRouteServer((_req, res, n) => {
        sse(res)
        res.end(g.replies[Math.min(n, g.replies.length) - 1]!.body)
      })
      const agent = kit.makeAgent({ runtime: testRuntime(provider.baseUrl), maxIterations: 5 })
      const deltas: AgentDelta[] = []
      const result = await agent.runTurn(`ARGSCUT-${name}: go`, { onDelta: (d) => deltas.push(d) })
      const ours = OURS[name]
      const ran = ours?.ran ?? g.tool_calls ?? []
      expect(provider.hits).toBe(ours?.requests ?? g.requests)
      // the rows as upstream stored them (upstream trims a reply's text; whitespace aside, the same)
      const rows = kit
        .messages('S1')
        .map((r) => [r.role, r.role === 'tool' ? toolOutput(r.content) : r.content?.trim(), r.finish_reason])
      expect(rows).toEqual((ours?.rows ?? g.rows).map(([role, content, finish]) => [role, content?.trim(), finish]))
      // only whole calls ran, each with the arguments upstream stored and ran
      expect(terminal.calls).toEqual(ran.map((a) => JSON.parse(a) as unknown))
      if (ours?.error) {
        expect(result.status).toBe('error')
        expect(result.error).toMatch(ours.error)
      } else {
        expect([result.status, result.finalText]).toEqual(['completed', g.result.final_response])
      }
      // a cut reply is never silent: the retry is said, not a tool error the model has to read
      const cut = CAPS[name]![1] !== U
      expect(deltas.find((d) => d.kind === 'notice')?.text ?? '').toMatch(
        cut
          ? /^The reply's (tool call|2 tool calls) ended with arguments cut off mid-JSON \(finish_reason "tool_calls"; likely an output cap the provider did not report\); (it was not run|none of them was run)\. Asking again with max_tokens 8192 \(1\/3\)\.$/
          : /^$/
      )
      const caps = provider.bodies.map((b) => (JSON.parse(b) as { max_tokens?: number }).max_tokens)
      expect(caps).toEqual(CAPS[name])
    })
  }

  it('with the cap already at its ceiling, a cut is still asked for again, at that cap, as upstream asks', async () => {
    const g = golden.cut_then_whole!
    kit = await makeKit()
    const terminal = recordingTool('terminal', (args) => String(args.command).replace(/^echo /, ''))
    kit.tools.register(terminal.def)
    provider = await startRouteServer((_req, res, n) => {
      sse(res)
      res.end(g.replies[n - 1]!.body)
    })
    const agent = kit.makeAgent({ runtime: testRuntime(provider.baseUrl, { maxTokens: 65536 }), maxIterations: 5 })
    const result = await agent.runTurn('ARGSCUT-cut_then_whole: go')
    expect([result.status, result.finalText]).toEqual(['completed', 'Done.'])
    expect(provider.bodies.map((b) => (JSON.parse(b) as { max_tokens?: number }).max_tokens)).toEqual(g.max_tokens)
    expect(terminal.calls).toEqual(g.tool_calls!.map((a) => JSON.parse(a) as unknown))
  })
})

// A body that ends with neither finish_reason nor [DONE] is a whole reply (as upstream takes it) unless a call's
// arguments are cut off mid-JSON. Arguments the model wrote wrong are not cut: a larger cap would not mend them.
describe('a stream ending with no finish_reason and no [DONE]', () => {
  it('runs to the parse error when a call’s arguments are JSON written wrong, not cut: one request for that reply', async () => {
    const wrong = chunk({ content: 'Listing.' }) + call(0, 'call_1', "{'command': 'ls /tmp'}")
    const { agent, terminal, maxTokensSent } = await setUp([wrong, finished])
    const result = await agent.runTurn('list /tmp', { onDelta: (d) => kit.deltas.push(d) })
    expect([result.status, result.finalText]).toEqual(['completed', 'All done.'])
    expect(terminal.calls).toEqual([])
    expect(maxTokensSent()).toEqual([undefined, undefined])
    expect(kit.deltas.filter((d) => d.kind === 'notice')).toEqual([])
    const rows = kit.messages('S1').map((r) => [r.role, r.finish_reason])
    expect(rows).toEqual([
      ['user', null],
      ['assistant', 'stop'],
      ['tool', null],
      ['assistant', 'stop']
    ])
    expect(kit.messages('S1')[2]!.content).toMatch(/^\{"error":"Invalid arguments for 'terminal': /)
  })
})
