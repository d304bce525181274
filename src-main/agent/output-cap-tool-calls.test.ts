// A reply cut off by the output cap (finish_reason "length") in the middle of its tool calls, through the whole
// turn: a real local HTTP server with scripted replies → agent → real state.db.
import { afterEach, describe, expect, it } from 'vitest'
import { chunk, sse, startRouteServer, type RouteServer } from './providers/test-fixtures/route-server'
import { makeKit, recordingTool, testRuntime, type Kit } from './test-fixtures/kit'

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
