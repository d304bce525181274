import { describe, expect, it } from 'vitest'
import type { CostSummary } from '@shared/contract'
import { tokenRows } from './costs'

const tokens = (input: number) => ({ input, output: input / 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
const money = (usd: number) => ({ usd, status: 'estimated' as const, complete: true })

/** What `costs.summary` answers with a day filter: money for that day only, tokens for the whole period. */
const filtered: CostSummary = {
  profiles: [{ profile: 'default', own: money(1), children: money(0), inclusive: money(1), sessions: 1 }],
  total: money(1),
  byModel: [{ model: 'm', cost: money(1), tokens: tokens(100) }],
  byDay: [{ day: '2026-12-06', profile: 'default', usd: 1, unpriced: false }],
  tokensByDay: [
    { day: '2026-12-05', profile: 'default', tokens: tokens(500) },
    { day: '2026-12-06', profile: 'default', tokens: tokens(100) }
  ],
  topSessions: []
}

describe('the per-day rows of the Costs page', () => {
  it('with a day chosen, only that day: no other day with its tokens and no cost', () => {
    expect(tokenRows(filtered, '2026-12-06')).toEqual([
      { day: '2026-12-06', ...tokens(100), micros: 1_000_000, unpriced: false }
    ])
  })
  it('without one, every day of the period (the chart keeps them all to click on)', () => {
    expect(tokenRows(filtered).map((r) => [r.day, r.input, r.micros])).toEqual([
      ['2026-12-05', 500, null],
      ['2026-12-06', 100, 1_000_000]
    ])
  })
})
