import { describe, expect, it } from 'vitest'
import { classifyRow, classifyStoredRow, rowText } from './notice-rows'
import { STOPPED_REPLY } from './stopped-turn'

type RowFields = Parameters<typeof classifyRow>[0]

const row = (over: Partial<RowFields>): RowFields => ({
  role: 'user',
  content: null,
  displayKind: null,
  finishReason: null,
  toolCalls: null,
  ...over
})
const kindOf = (over: Partial<RowFields>) => classifyRow(row(over))?.kind ?? null

describe('which rows are nobody’s words (one classification for the transcript and the exports)', () => {
  it('tells each kind by its writer’s display kind or fixed shape', () => {
    expect(kindOf({ content: '  [System: go on]', displayKind: 'continuation_notice' })).toBe('system_note')
    expect(kindOf({ content: 'scaffolding', displayKind: 'hidden' })).toBe('system_note')
    expect(kindOf({ content: '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns …' })).toBe('summary')
    expect(kindOf({ content: '[System note: Your previous turn was interrupted mid-run. …' })).toBe('resumed')
    expect(kindOf({ content: 'x', displayKind: 'auto_continue' })).toBe('resumed')
    expect(
      kindOf({
        content: '[Background delegation d1 finished: completed]\nTask: t\nResult: r',
        displayKind: 'async_delegation_complete'
      })
    ).toBe('delegation')
    expect(kindOf({ role: 'assistant', content: STOPPED_REPLY })).toBe('stopped')
    expect(kindOf({ content: 'Something happened', displayKind: 'delegation_notice' })).toBe('notice')
    expect(kindOf({ content: 'also this', displayKind: 'steer' })).toBe('steer')
  })

  it("leaves the user's and the model's own words alone, even when they look like a header", () => {
    expect(kindOf({ content: '[System] is my word for it' })).toBeNull()
    expect(kindOf({ content: '[Background delegation d1 finished: completed]\nTask: t\nResult: r' })).toBeNull()
    expect(kindOf({ role: 'assistant', content: 'Operation interrupted.', finishReason: 'stop' })).toBeNull()
    expect(kindOf({ role: 'assistant', content: 'steered', displayKind: 'steer' })).toBeNull()
  })

  it('reads a stored row in upstream’s shape the same way, and says it as the transcript does', () => {
    const k = classifyStoredRow({ role: 'assistant', content: 'Operation interrupted.', tool_calls: null })
    expect(k && rowText(k, null)).toBe('Stopped by you before the model answered the tool results.')
    expect(classifyStoredRow({ role: 'assistant', content: STOPPED_REPLY, tool_calls: '[{"id":"c"}]' })).toBeNull()
    const steer = classifyStoredRow({ role: 'user', content: ' and this ', display_kind: 'steer' })
    expect(steer && rowText(steer, ' and this ')).toBe('and this')
  })
})
