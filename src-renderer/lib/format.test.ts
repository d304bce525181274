import { describe, expect, it } from 'vitest'
import { countOf, countdown, formatCount, formatMoney, moneyQualifier, moneyStatusLabel, relativeTime } from './format'

describe('money formatting', () => {
  it('never shows unpriced usage as $0', () => {
    expect(formatMoney({ usd: null, status: 'unpriced', complete: false })).toBe('unpriced')
    expect(formatMoney({ usd: 0, status: 'unpriced', complete: false })).toBe('unpriced')
    expect(formatMoney({ usd: 1.234, status: 'estimated', complete: true })).toBe('$1.23')
    expect(formatMoney({ usd: 0.001, status: 'billed', complete: true })).toBe('<$0.01')
    expect(formatMoney({ usd: -1.5, status: 'billed', complete: true })).toBe('-$1.50')
    expect(formatMoney({ usd: -0.001, status: 'billed', complete: true })).toBe('-<$0.01')
    expect(formatMoney({ usd: null, status: 'none', complete: true })).toBe('—')
  })

  it('flags partial totals and says complete only when complete', () => {
    expect(moneyQualifier({ usd: 2, status: 'partial', complete: false })).toBe('partial')
    expect(moneyQualifier({ usd: 2, status: 'estimated', complete: true })).toBeNull()
    expect(moneyStatusLabel({ usd: 2, status: 'estimated', complete: true })).toBe('estimated · complete')
    expect(moneyStatusLabel({ usd: 2, status: 'billed', complete: false })).toBe('billed')
    expect(moneyStatusLabel({ usd: null, status: 'unpriced', complete: false })).toBe('unpriced')
    expect(moneyStatusLabel({ usd: 2, status: 'partial', complete: false })).toBe('partial')
  })
})

describe('time and counts', () => {
  const now = 1_700_000_000_000
  it('formats relative times and countdowns', () => {
    expect(relativeTime(now / 1000 - 5, now)).toBe('now')
    expect(relativeTime(now / 1000 - 300, now)).toBe('5m ago')
    expect(relativeTime(now / 1000 - 3 * 86400, now)).toBe('3d ago')
    expect(relativeTime(null, now)).toBe('—')
    expect(countdown(now / 1000 + 3 * 3600 + 120, now)).toBe('3h 02m')
    expect(countdown(now / 1000 + 65, now)).toBe('1m 05s')
    expect(countdown(now / 1000 - 1, now)).toBe('expired')
  })
  it('abbreviates counts', () => {
    expect(formatCount(999)).toBe('999')
    expect(formatCount(1500)).toBe('1.5k')
    expect(formatCount(2_500_000)).toBe('2.5M')
  })
})

describe('counts', () => {
  it('say one thing in the singular and any other number in the plural', () => {
    expect(countOf(1, 'tool call')).toBe('1 tool call')
    expect(countOf(0, 'tool call')).toBe('0 tool calls')
    expect(countOf(12, 'message')).toBe('12 messages')
  })
})
