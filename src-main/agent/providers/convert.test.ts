import { describe, expect, it } from 'vitest'
import { thinkingParam, toAnthropicMessages, toAnthropicTools } from './anthropic-convert'
import { ToolCallAssembler } from './tool-call-assembler'

describe('Anthropic conversion', () => {
  it('moves system out, pairs tool_use with tool_result and merges same-role turns', () => {
    const { system, messages } = toAnthropicMessages([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'summary' },
      { role: 'user', content: 'question' },
      {
        role: 'assistant',
        content: 'checking',
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
          { id: 't2', type: 'function', function: { name: 'g', arguments: 'broken' } }
        ]
      },
      { role: 'tool', content: 'r1', tool_call_id: 't1' },
      { role: 'tool', content: 'r2', tool_call_id: 't2' }
    ])
    expect(system).toBe('sys')
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(messages[0]!.content).toHaveLength(2)
    expect(messages[1]!.content).toEqual([
      { type: 'text', text: 'checking' },
      { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
      { type: 'tool_use', id: 't2', name: 'g', input: { _raw: 'broken' } }
    ])
    expect(messages[2]!.content.map((b) => b.tool_use_id)).toEqual(['t1', 't2'])
  })

  it('never starts with an assistant turn', () => {
    expect(toAnthropicMessages([{ role: 'assistant', content: 'hi' }]).messages[0]!.role).toBe('user')
  })

  it('converts tool schemas and thinking budgets', () => {
    expect(
      toAnthropicTools([
        {
          type: 'function',
          function: { name: 'n', description: 'd', parameters: { properties: { x: { type: 'string' } } } }
        }
      ])
    ).toEqual([
      { name: 'n', description: 'd', input_schema: { type: 'object', properties: { x: { type: 'string' } } } }
    ])
    expect(thinkingParam(null)).toBeNull()
    expect(thinkingParam({ enabled: false, effort: 'high' })).toBeNull()
    expect(thinkingParam({ effort: 'high' })).toEqual({ type: 'enabled', budget_tokens: 16384 })
    expect(thinkingParam({ enabled: true, budgetTokens: 10 })).toEqual({ type: 'enabled', budget_tokens: 1024 })
  })
})

describe('OpenAI tool-call assembly', () => {
  it('assembles calls without index fields and drops nameless fragments', () => {
    const a = new ToolCallAssembler()
    a.add({ id: 'x', function: { name: 'f', arguments: '{"a"' } })
    a.add({ function: { arguments: ':1}' } })
    a.add({ id: 'y', function: { name: 'g', arguments: { b: 2 } } })
    a.add({ index: 7, function: { arguments: 'orphan' } })
    a.add(null)
    expect(a.finish()).toEqual([
      { id: 'x', name: 'f', arguments: '{"a":1}' },
      { id: 'y', name: 'g', arguments: '{"b":2}' }
    ])
  })
})
