// A provider's safety refusal, through the whole turn (a real local HTTP server speaking each wire protocol → agent →
// real state.db): OpenAI's finish_reason "content_filter" and Anthropic's stop_reason "refusal" end the turn failed
// with an error that says the model declined (and its explanation, when it gave one), asked once, the user's message
// kept and no reply row, no tool run — as upstream's loop ends such a turn. Before, an empty refusal was an empty answer
// reported as a success (`run -z` printed nothing and exited 0).
import { afterEach, describe, expect, it } from 'vitest'
import { chunk, sse, startRouteServer, type RouteServer } from './providers/test-fixtures/route-server'
import { makeKit, recordingTool, testRuntime, type Kit } from './test-fixtures/kit'

let kit: Kit
let provider: RouteServer
afterEach(async () => {
  await provider?.close()
  await kit?.cleanup()
})

const ant = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
const antRefusal = (text: string) =>
  ant('message_start', { message: { id: 'm1', model: 'claude', usage: { input_tokens: 10 } } }) +
  (text
    ? ant('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      ant('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }) +
      ant('content_block_stop', { index: 0 })
    : '') +
  ant('message_delta', { delta: { stop_reason: 'refusal' }, usage: { output_tokens: 3 } }) +
  ant('message_stop', {})

async function turn(anthropic: boolean, body: string) {
  kit = await makeKit()
  const terminal = recordingTool('terminal')
  kit.tools.register(terminal.def)
  provider = await startRouteServer((_req, res) => {
    sse(res)
    res.end(body)
  })
  const agent = kit.makeAgent({
    runtime: testRuntime(provider.baseUrl, {
      provider: anthropic ? 'anthropic' : 'custom',
      apiMode: anthropic ? 'anthropic_messages' : 'chat_completions'
    })
  })
  const result = await agent.runTurn('tell me')
  return { result, terminal, rows: kit.messages('S1').map((r) => [r.role, r.content]) }
}

describe("a provider's safety refusal", () => {
  it.each([
    [
      'OpenAI content_filter with text and a tool call',
      false,
      chunk({ content: 'Not that.' }) +
        chunk({
          tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{}' } }]
        }) +
        `${chunk({}, 'content_filter')}data: [DONE]\n\n`,
      'Its explanation: Not that.'
    ],
    ['Anthropic refusal, empty', true, antRefusal(''), 'It gave no explanation.']
  ])(
    '%s: the turn fails saying so, asked once, nothing run or stored as a reply',
    async (_name, anthropic, body, why) => {
      const { result, terminal, rows } = await turn(anthropic, body)
      expect(result.status).toBe('error')
      expect(result.error).toContain('The model declined to respond (a safety refusal')
      expect(result.error).toContain(why)
      expect(provider.hits).toBe(1)
      expect(terminal.calls).toHaveLength(0)
      expect(rows).toEqual([['user', 'tell me']])
    }
  )
})
