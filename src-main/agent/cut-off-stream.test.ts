// A provider stream that ends cleanly but without its end-of-reply marker, through the whole turn: a real local
// HTTP server speaking each wire protocol → agent → real state.db.
import { afterEach, describe, expect, it } from 'vitest'
import type { RuntimeConfig } from './providers/types'
import { chunk, sse, startRouteServer, type Route, type RouteServer } from './providers/test-fixtures/route-server'
import { makeKit, recordingTool, testRuntime, type Kit } from './test-fixtures/kit'

let kit: Kit
let provider: RouteServer
afterEach(async () => {
  await provider?.close()
  await kit?.cleanup()
})

const ant = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
const antStart = ant('message_start', { message: { id: 'm1', model: 'claude', usage: { input_tokens: 10 } } })
const finished = `${chunk({ content: 'All done.' }, 'stop')}data: [DONE]\n\n`

/** An agent on the route server; the first request gets `first`, later ones a complete "All done." reply. */
async function setUp(apiMode: RuntimeConfig['apiMode'], first: string) {
  kit = await makeKit()
  const terminal = recordingTool('terminal')
  kit.tools.register(terminal.def)
  const route: Route = (_req, res, n) => {
    sse(res)
    res.end(n === 1 ? first : finished)
  }
  provider = await startRouteServer(route)
  const agent = kit.makeAgent({
    runtime: testRuntime(provider.baseUrl, {
      provider: apiMode === 'anthropic_messages' ? 'anthropic' : 'custom',
      apiMode
    })
  })
  return { agent, terminal }
}

describe('a cut-off provider stream', () => {
  it('OpenAI-style, no finish_reason and no [DONE]: no tool call runs, the partial reply is kept marked', async () => {
    const { agent, terminal } = await setUp(
      'chat_completions',
      chunk({ content: 'Cleaning up.' }) +
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'terminal' } }] }) +
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":"ls /tmp"}' } }] }) +
        chunk({ tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'terminal' } }] }) +
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"command":"rm -rf /tmp/x' } }] })
    )
    const result = await agent.runTurn('tidy /tmp')
    expect(terminal.calls).toEqual([])
    expect(result.status).toBe('error')
    expect(result.error).toBe(
      "the provider's stream ended before the reply was complete (no finish_reason or [DONE]); its 2 tool calls were not run"
    )
    expect(provider.hits).toBe(1)
    const rows = kit.messages('S1')
    expect(rows.map((r) => [r.role, r.content, r.tool_calls, r.finish_reason])).toEqual([
      ['user', 'tidy /tmp', null, null],
      ['assistant', 'Cleaning up.', null, 'error']
    ])
  })

  it('Anthropic, content but no message_stop: not saved as a complete reply', async () => {
    const { agent } = await setUp(
      'anthropic_messages',
      antStart +
        ant('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
        ant('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'The answer is' } })
    )
    const result = await agent.runTurn('what is it?')
    expect(result.status).toBe('error')
    expect(result.error).toBe("the provider's stream ended before the reply was complete (no message_stop)")
    const rows = kit.messages('S1')
    expect(rows.map((r) => [r.role, r.content, r.finish_reason])).toEqual([
      ['user', 'what is it?', null],
      ['assistant', 'The answer is', 'error']
    ])
  })

  it('Anthropic, a tool_use block cut mid-arguments: never run', async () => {
    const { agent, terminal } = await setUp(
      'anthropic_messages',
      antStart +
        ant('content_block_start', {
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'terminal', input: {} }
        }) +
        ant('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"command":"ls"}' } })
    )
    const result = await agent.runTurn('list')
    expect(terminal.calls).toEqual([])
    expect(result.error).toMatch(/no message_stop\); its tool call was not run$/)
    expect(kit.messages('S1').map((r) => r.role)).toEqual(['user'])
  })

  it('a reply that ends with [DONE] but whose server never sends a finish_reason is complete', async () => {
    const { agent, terminal } = await setUp(
      'chat_completions',
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'terminal' } }] }) +
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":"ls"}' } }] }) +
        'data: [DONE]\n\n'
    )
    const result = await agent.runTurn('list')
    expect(result.status).toBe('completed')
    expect(terminal.calls).toEqual([{ command: 'ls' }])
    expect(result.finalText).toBe('All done.')
  })
})
