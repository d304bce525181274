// An over-long tool call (max_tool_args_chars) through the whole turn: scripted provider → agent → real state.db.
import { afterEach, describe, expect, it } from 'vitest'
import { resolveCallLimits } from './providers/call-limits'
import { makeKit, recordingTool, type Kit } from './test-fixtures/kit'

let kit: Kit
afterEach(async () => {
  await kit?.cleanup()
})

describe('tool-call arguments cap', () => {
  it('a 3 MB tool call is refused to the model, never run, never stored or re-sent whole', async () => {
    const big = 'z'.repeat(3 << 20)
    kit = await makeKit([
      { toolCalls: [{ name: 'write', arguments: { text: big }, id: 'call_big' }] },
      { text: 'I will split it up.' }
    ])
    const write = recordingTool('write')
    kit.tools.register(write.def)
    const agent = kit.makeAgent({
      runtime: {
        model: 'test-model',
        provider: 'custom',
        baseUrl: kit.server.baseUrl,
        apiKey: 'sk-test-abcdef123456',
        apiMode: 'chat_completions',
        maxRetries: 0,
        limits: { maxToolArgsChars: 200_000 }
      }
    })
    const result = await agent.runTurn('write a lot', { onDelta: (d) => kit.deltas.push(d) })
    expect(result.status).toBe('completed')
    expect(write.calls).toEqual([])
    const rows = kit.messages('S1')
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    // Stored: the call with a short marker, and a tool error naming the limit.
    expect(rows[1]!.tool_calls!.length).toBeLessThan(1000)
    const stored = JSON.parse(rows[1]!.tool_calls!)[0]
    expect(stored).toMatchObject({ id: 'call_big', function: { name: 'write' } })
    expect(JSON.parse(stored.function.arguments)._cut).toContain(`${big.length + 11} characters`)
    expect(JSON.parse(rows[2]!.content!).error).toMatch(/refused.*max_tool_args_chars/)
    // Re-sent: the follow-up request carries the marker, not the 3 MB.
    expect(JSON.stringify(kit.server.requests[1]!.body).length).toBeLessThan(20_000)
    // The browser's tool_call delta is the marker too.
    const delta = kit.deltas.find((d) => d.kind === 'tool_call')
    expect(delta?.text?.length).toBeLessThan(1000)
  })

  it('max_tool_args_chars never exceeds max_reply_chars', () => {
    expect(resolveCallLimits({ maxReplyChars: 5000, maxToolArgsChars: 1e9 }).maxToolArgsChars).toBe(5000)
    expect(resolveCallLimits({}).maxToolArgsChars).toBe(1_000_000)
  })
})
