import { describe, expect, it } from 'vitest'
import { sanitizeHistory } from './messages'

describe('sanitizeHistory', () => {
  it('drops junk, system rows and orphan tool results; closes dangling calls', () => {
    const out = sanitizeHistory([
      { role: 'system', content: 'old prompt' },
      null as never,
      { role: 'weird' as never, content: 'x' },
      { role: 'tool', content: 'orphan', tool_call_id: 'nope' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } }
        ]
      },
      { role: 'tool', content: 'ra', tool_call_id: 'a' },
      { role: 'user', content: 'next' }
    ])
    expect(out.map((m) => [m.role, m.tool_call_id ?? null])).toEqual([
      ['user', null],
      ['assistant', null],
      ['tool', 'a'],
      ['tool', 'b'],
      ['user', null]
    ])
    expect(out[3]!.content).toContain('did not complete')
  })

  it('accepts undefined', () => {
    expect(sanitizeHistory(undefined)).toEqual([])
  })
})
