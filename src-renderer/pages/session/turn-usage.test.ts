import { describe, expect, it } from 'vitest'
import type { Message } from '@shared/contract'
import { message } from '../../test-utils/fixtures'
import { pairToolCalls } from './tool-pairs'
import { summarizeTurns } from './turn-usage'
import { mergeSummaryInto } from '@shared/contract/merged-summary'

const usage = (input: number, cached: number, output: number, reasoning: number, usd: number | null) => ({
  tokens: { input, output, cacheRead: cached, cacheWrite: 0, reasoning },
  cost:
    usd === null
      ? { usd: null, status: 'unpriced' as const, complete: false }
      : { usd, status: 'estimated' as const, complete: true },
  model: 'm1'
})

function transcript(rows: Message[]) {
  const byId = Object.fromEntries(rows.map((m) => [m.id, m]))
  return summarizeTurns(
    rows.map((m) => m.id),
    byId,
    pairToolCalls(byId)
  )
}

describe('summarizeTurns', () => {
  it('sums each turn’s calls under its last reply and lays out its tool calls', () => {
    const t = 1_800_000_000
    const sums = transcript([
      message(1, 's1', { role: 'user', timestamp: t }),
      message(2, 's1', {
        role: 'assistant',
        timestamp: t + 1,
        toolCalls: [
          { id: 'a', name: 'terminal', arguments: '{}' },
          { id: 'b', name: 'read_file', arguments: '{}' }
        ],
        usage: usage(1000, 200, 50, 10, 0.01)
      }),
      message(3, 's1', { role: 'tool', toolCallId: 'a', content: 'x'.repeat(42), timestamp: t + 3.5 }),
      message(4, 's1', { role: 'tool', toolCallId: 'b', content: 'y', contentBytes: 90_000, timestamp: t + 1 }),
      message(5, 's1', { role: 'assistant', timestamp: t + 5, usage: usage(1300, 900, 80, 0, null) }),
      message(6, 's1', { role: 'user', timestamp: t + 60 }),
      message(7, 's1', { role: 'assistant', timestamp: t + 61, tokenCount: 321 })
    ])
    expect([...sums.keys()]).toEqual([5, 7])
    const first = sums.get(5)!
    expect(first.tokens).toEqual({ input: 2300, output: 130, cacheRead: 1100, cacheWrite: 0, reasoning: 10 })
    // one priced call and one unpriced: the sum is partial, never the priced part passed off as the whole
    expect(first.cost).toEqual({ usd: 0.01, status: 'partial', complete: false })
    expect(first.calls).toBe(2)
    expect(first.tools).toEqual([
      { callId: 'a', name: 'terminal', start: t + 1, duration: 2.5, resultSize: 42 },
      // same stamp on call and result: no duration rather than "0 s"; a cut result's size is its full size
      { callId: 'b', name: 'read_file', start: t + 1, duration: null, resultSize: 90_000 }
    ])
    // upstream rows: no saved usage, only token_count
    expect(sums.get(7)).toMatchObject({ tokens: null, cost: null, tokenCount: 321, tools: [] })
  })

  it('a compaction summary does not open a turn', () => {
    const sums = transcript([
      message(1, 's1', { role: 'user' }),
      message(2, 's1', { role: 'assistant', usage: usage(10, 0, 1, 0, 0.001) }),
      message(3, 's1', { role: 'user', content: '[CONTEXT COMPACTION] Summary of the earlier conversation' }),
      message(4, 's1', { role: 'assistant', usage: usage(20, 0, 2, 0, 0.002) })
    ])
    expect([...sums.keys()]).toEqual([4])
    expect(sums.get(4)!.tokens!.input).toBe(30)
  })

  it('a summary upstream gave the assistant role is no turn’s reply; a user’s lookalike opens a turn', () => {
    const sums = transcript([
      message(1, 's1', { role: 'user' }),
      message(2, 's1', { role: 'assistant', usage: usage(10, 0, 1, 0, 0.001) }),
      message(3, 's1', { role: 'user', content: 'q' }),
      message(4, 's1', { role: 'assistant', content: '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns …\nS' }),
      message(5, 's1', { role: 'user', content: 'next' }),
      message(6, 's1', { role: 'assistant', usage: usage(20, 0, 2, 0, 0.002) }),
      message(7, 's1', { role: 'user', content: 'Summary of the earlier conversation: Lisbon. Which hotel?' }),
      message(8, 's1', { role: 'assistant', usage: usage(30, 0, 3, 0, 0.003) })
    ])
    expect([...sums.keys()]).toEqual([2, 6, 8])
    expect(sums.get(8)!.tokens!.input).toBe(30)
  })

  it('a summary merged into a kept user message still opens that message’s turn', () => {
    const sums = transcript([
      message(1, 's1', { role: 'user' }),
      message(2, 's1', { role: 'assistant', usage: usage(10, 0, 1, 0, 0.001) }),
      message(3, 's1', {
        role: 'user',
        content: mergeSummaryInto('the next question', 'they talked'),
        summaryMerged: true
      }),
      message(4, 's1', { role: 'assistant', usage: usage(20, 0, 2, 0, 0.002) })
    ])
    expect([...sums.keys()]).toEqual([2, 4])
  })
})
