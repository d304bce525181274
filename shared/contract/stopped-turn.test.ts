import { describe, expect, it } from 'vitest'
import { parseStoppedTurn, STOPPED_REPLY } from './stopped-turn'

const row = (content: string | null, extra: Partial<Parameters<typeof parseStoppedTurn>[0]> = {}) =>
  parseStoppedTurn({ role: 'assistant', content, finishReason: null, toolCalls: null, ...extra })

describe('the row that closes a stopped tool round', () => {
  it("is Caduceus's own closing row", () => {
    expect(row(STOPPED_REPLY)).toEqual({ writer: 'caduceus', detail: null })
  })

  it("is upstream's, bare or with what the turn was doing when it was stopped", () => {
    // the texts upstream's close_interrupted_tool_sequence stores (its placeholder, or the interrupted turn's answer)
    expect(row('Operation interrupted.')).toEqual({ writer: 'upstream', detail: null })
    expect(row('Operation interrupted: waiting for model response (12.3s elapsed).')).toEqual({
      writer: 'upstream',
      detail: 'waiting for model response (12.3s elapsed)'
    })
    expect(row('Operation interrupted during retry (network error, attempt 2/3).')).toEqual({
      writer: 'upstream',
      detail: 'during retry (network error, attempt 2/3)'
    })
    expect(row('Operation interrupted: handling API error (RateLimitError: slow down).')?.detail).toBe(
      'handling API error (RateLimitError: slow down)'
    )
  })

  it("is never a model's reply, a call, or someone else's words that look alike", () => {
    // a model's reply has a finish reason; a row with calls is the model calling tools
    expect(row('Operation interrupted.', { finishReason: 'stop' })).toBeNull()
    expect(row(STOPPED_REPLY, { finishReason: 'stop' })).toBeNull()
    expect(row(STOPPED_REPLY, { toolCalls: [{ id: 'c1' }] })).toBeNull()
    expect(row(STOPPED_REPLY, { role: 'user' })).toBeNull()
    // more than the closing row's text
    expect(row('Operation interrupted. Let me try that again.')).toBeNull()
    expect(row(`${STOPPED_REPLY}\nAnd then some.`)).toBeNull()
    expect(row('Operation interrupted')).toBeNull()
    expect(row('Operation interrupted: first line.\nsecond line.')).toBeNull()
    expect(row(null)).toBeNull()
    expect(row('')).toBeNull()
  })
})
