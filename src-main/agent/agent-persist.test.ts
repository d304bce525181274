import { afterEach, describe, expect, it } from 'vitest'
import { makeKit, recordingTool, type Kit } from './test-fixtures/kit'

let kit: Kit
afterEach(async () => {
  await kit?.cleanup()
})

describe('Agent: persistence as produced', () => {
  it('streams a tool-using reply and saves user, assistant+tool_calls, tool, assistant in order', async () => {
    kit = await makeKit([
      { reasoning: 'I should look it up', toolCalls: [{ name: 'lookup', arguments: { q: 'weather' }, id: 'call_a' }] },
      { text: 'It is sunny today.' }
    ])
    const lookup = recordingTool('lookup', () => '{"forecast":"sunny"}')
    kit.tools.register(lookup.def)
    const agent = kit.makeAgent()
    // Count the rows at each message_saved delta: proves each message hit the DB when produced, not at the end.
    const countsAtSave: Array<number | null> = []
    const result = await agent.runTurn('What is the weather?', {
      onDelta: (d) => {
        kit.deltas.push(d)
        if (d.kind === 'message_saved') countsAtSave.push(kit.store.getSession('S1')!.messageCount)
      }
    })
    expect(result.status).toBe('completed')
    expect(result.finalText).toBe('It is sunny today.')
    expect(lookup.calls).toEqual([{ q: 'weather' }])
    const rows = kit.messages('S1')
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    // as upstream's agent stores a call the model made (test/fixtures/upstream/entry-rows: call_2 → fc_2)
    expect(JSON.parse(rows[1]!.tool_calls!)).toEqual([
      {
        id: 'call_a',
        call_id: 'call_a',
        response_item_id: 'fc_a',
        type: 'function',
        function: { name: 'lookup', arguments: '{"q":"weather"}' }
      }
    ])
    expect(rows[2]).toMatchObject({ tool_call_id: 'call_a', content: '{"forecast":"sunny"}' })
    expect(rows[3]).toMatchObject({ content: 'It is sunny today.', finish_reason: 'stop' })
    expect(countsAtSave).toEqual([1, 2, 3, 4])
    expect(kit.store.getSession('S1')!.messageCount).toBe(4)
    expect(result.messagesSaved).toBe(4)
    expect(agent.lastFlushedDbIdx).toBe(4)
    const kinds = kit.deltas.map((d) => d.kind)
    expect(kinds).toContain('reasoning')
    expect(kinds).toContain('text')
    expect(kinds).toContain('tool_result')
    expect(
      kit.deltas
        .filter((d) => d.kind === 'text')
        .map((d) => d.text)
        .join('')
    ).toBe('\n\nIt is sunny today.') // text after a tool round opens with a break, as upstream streams it
    // The second request carried the tool result back to the model.
    expect(kit.server.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_a' })
  })

  it('records usage per call; an unknown model stays unpriced, never $0', async () => {
    kit = await makeKit([
      { text: 'hi', usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 20, reasoningTokens: 4 } }
    ])
    const agent = kit.makeAgent({
      runtime: {
        model: 'mystery-model',
        provider: 'mystery',
        baseUrl: kit.server.baseUrl,
        apiMode: 'chat_completions',
        maxRetries: 0
      }
    })
    const result = await agent.runTurn('hello')
    expect(result.costUsd).toBeNull()
    expect(result.costStatus).toBe('unpriced')
    expect(result.tokens).toEqual({ input: 100, output: 30, cacheRead: 20, cacheWrite: 0, reasoning: 4 })
    expect(result.apiCalls).toBe(1)
    const row = kit.store.getSession('S1')!
    expect(row).toMatchObject({
      inputTokens: 100,
      outputTokens: 30,
      cacheReadTokens: 20,
      reasoningTokens: 4,
      apiCallCount: 1,
      costStatus: 'unknown' // upstream's word, stored
    })
    expect(row.estimatedCostUsd).toBe(0) // upstream's 0.0 beside cost_status 'unknown': no price, not $0
    expect(row.billingProvider).toBe('mystery')
    // upstream's words (scripts/golden/usage_values.py): no billing_mode for a per-token route (the API mode is not
    // one), cost_source 'none'; the route row's billing_mode is '' (its key), so no mode shows on it
    expect([row.billingMode, row.costSource]).toEqual([null, 'none'])
    expect(kit.store.getSessionDetail('S1')!.usage.map((u) => [u.mode, u.provider])).toEqual([[undefined, 'mystery']])
    // the transcript reads the call's usage back with the reply it produced (per-turn tokens on the session page)
    const reply = kit.store.getMessages({ sessionId: 'S1' }).items.find((m) => m.role === 'assistant')!
    expect(reply.usage).toEqual({
      tokens: { input: 100, output: 30, cacheRead: 20, cacheWrite: 0, reasoning: 4 },
      cost: { usd: null, status: 'unpriced', complete: false },
      model: 'mystery-model'
    })
  })

  it('a second agent resumes the stored history and the request carries it', async () => {
    kit = await makeKit([{ text: 'first answer' }, { text: 'second answer' }])
    await kit.makeAgent({ systemPrompt: 'You are terse.' }).runTurn('first question')
    const resumed = kit.makeAgent({ systemPrompt: 'You are terse.' })
    const r = await resumed.runTurn('second question')
    expect(r.status).toBe('completed')
    const sent = kit.server.requests[1]!.body.messages.map((m: { role: string; content: string }) => [
      m.role,
      m.content
    ])
    expect(sent).toEqual([
      ['system', 'You are terse.'],
      ['user', 'first question'],
      ['assistant', 'first answer'],
      ['user', 'second question']
    ])
    expect(kit.store.getSession('S1')!.messageCount).toBe(4)
  })

  it('bad tool arguments and unknown tools become error results and the loop continues', async () => {
    kit = await makeKit([
      {
        toolCalls: [
          { name: 'lookup', arguments: '{"q": broken', id: 'c1' },
          { name: 'nope', arguments: {}, id: 'c2' }
        ]
      },
      { text: 'Sorry about that.' }
    ])
    kit.tools.register(recordingTool('lookup').def)
    const r = await kit.makeAgent().runTurn('go')
    expect(r.status).toBe('completed')
    const tools = kit.messages('S1').filter((m) => m.role === 'tool')
    expect(tools.map((t) => JSON.parse(t.content!).error)).toEqual([
      expect.stringContaining('Invalid arguments'),
      expect.stringContaining("Unknown tool 'nope'")
    ])
  })

  it('read-only batches run concurrently, others in order', async () => {
    const order: string[] = []
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    kit = await makeKit([
      {
        toolCalls: [
          { name: 'slow', arguments: {}, id: 'a' },
          { name: 'fast', arguments: {}, id: 'b' }
        ]
      },
      { text: 'done' }
    ])
    // `slow` waits until `fast` has run: only possible when both run at once.
    kit.tools.register(
      recordingTool(
        'slow',
        async () => {
          await gate
          order.push('slow')
          return 'slow'
        },
        { readOnly: true }
      ).def
    )
    kit.tools.register(
      recordingTool(
        'fast',
        () => {
          order.push('fast')
          release()
          return 'fast'
        },
        { readOnly: true }
      ).def
    )
    const r = await kit.makeAgent().runTurn('both')
    expect(r.status).toBe('completed')
    expect(order).toEqual(['fast', 'slow'])
    // Results are saved in call order regardless of completion order.
    expect(
      kit
        .messages('S1')
        .filter((m) => m.role === 'tool')
        .map((m) => m.tool_call_id)
    ).toEqual(['a', 'b'])
  })

  it('passes the gateway session key and calling agent to tools', async () => {
    kit = await makeKit([{ toolCalls: [{ name: 'who', arguments: {} }] }, { text: 'ok' }])
    let seen: unknown
    kit.tools.register({
      name: 'who',
      description: 'd',
      parameters: { type: 'object' },
      execute: (_a, ctx) => {
        seen = {
          gsk: ctx.gatewaySessionKey,
          sid: ctx.sessionId,
          agentSession: ctx.agent?.sessionId,
          model: ctx.agent?.runtime.model
        }
        return 'ok'
      }
    })
    await kit.makeAgent().runTurn('who am i')
    expect(seen).toEqual({ gsk: 'agent:main:desk:S1', sid: 'S1', agentSession: 'S1', model: 'test-model' })
  })
})

describe('Agent: Anthropic Messages path', () => {
  it('runs a tool loop over /v1/messages and persists it', async () => {
    kit = await makeKit([
      {
        reasoning: 'need a tool',
        toolCalls: [{ name: 'lookup', arguments: { q: 'x' }, id: 'toolu_1' }],
        usage: { promptTokens: 50, completionTokens: 10, cacheWriteTokens: 20 }
      },
      { text: 'All done.' }
    ])
    kit.tools.register(recordingTool('lookup', () => 'found it').def)
    const agent = kit.makeAgent({
      systemPrompt: 'sys',
      runtime: {
        model: 'claude-test',
        provider: 'anthropic-test',
        // standing in for Anthropic's own API (upstream's rule: "anthropic.com" in the URL), which takes thinking back
        baseUrl: `${kit.server.baseUrl}/anthropic.com`,
        apiMode: 'anthropic_messages',
        maxRetries: 0
      }
    })
    const r = await agent.runTurn('use the tool')
    expect(r.status).toBe('completed')
    expect(r.finalText).toBe('All done.')
    expect(kit.messages('S1').map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(r.tokens.cacheWrite).toBe(20)
    const second = kit.server.requests[1]!
    expect(second.path).toMatch(/anthropic\.com\/v1\/messages$/)
    expect(second.body.system).toBe('sys')
    // tool_use replayed with its thinking block (signature kept), result as a user tool_result block.
    expect(second.body.messages[1].content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'tool_use'])
    expect(second.body.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found it' }]
    })
  })
})
