import { describe, expect, it } from 'vitest'
import type { CostSummary } from '@shared/contract'
import { chartRows, tokenRows } from '../stores/costs'
import { bucketEnd, bucketFor, bucketStart } from './buckets'

describe('bars over a long period', () => {
  it('a day a bar up to four months, a week up to two years, then a month', () => {
    expect(bucketFor(['2026-01-01'])).toBe('day')
    expect(bucketFor(['2026-01-01', '2026-04-30'])).toBe('day')
    expect(bucketFor(['2026-05-02', '2026-01-01'])).toBe('week')
    expect(bucketFor(['2024-12-01', '2026-11-30'])).toBe('week')
    expect(bucketFor(['2023-01-01', '2026-12-06'])).toBe('month')
  })
  it('weeks run Monday to Sunday, months to their last day (leap years too)', () => {
    expect(bucketStart('2026-12-06', 'week')).toBe('2026-11-30') // a Sunday
    expect(bucketStart('2026-11-30', 'week')).toBe('2026-11-30') // a Monday
    expect(bucketEnd('2026-11-30', 'week')).toBe('2026-12-06')
    expect(bucketStart('2024-02-17', 'month')).toBe('2024-02-01')
    expect(bucketEnd('2024-02-01', 'month')).toBe('2024-02-29')
    expect(bucketEnd('2025-12-01', 'month')).toBe('2025-12-31')
  })
  it("the charts' rows sum each bucket's days, and keep every total", () => {
    const tokens = (n: number) => ({ input: n, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    const summary = {
      byDay: [
        { day: '2023-03-02', profile: 'a', usd: 1.5, unpriced: false },
        { day: '2023-03-30', profile: 'b', usd: 0.25, unpriced: true },
        { day: '2026-12-01', profile: 'a', usd: 2, unpriced: false }
      ],
      tokensByDay: [
        { day: '2023-03-02', profile: 'a', tokens: tokens(10) },
        { day: '2023-03-30', profile: 'b', tokens: tokens(5) },
        { day: '2026-12-01', profile: 'a', tokens: tokens(7) }
      ]
    } as unknown as CostSummary
    const bucket = bucketFor(summary.byDay.map((d) => d.day))
    expect(bucket).toBe('month')
    expect(chartRows(summary, bucket)).toEqual({
      rows: [
        { day: '2023-03-01', a: 1.5, b: 0.25 },
        { day: '2026-12-01', a: 2, b: 0 }
      ],
      profiles: ['a', 'b'],
      unpricedDays: ['2023-03-01']
    })
    const rows = tokenRows(summary, null, bucket)
    expect(rows.map((r) => [r.day, r.input, r.output, r.micros, r.unpriced])).toEqual([
      ['2023-03-01', 15, 2, 1_750_000, true],
      ['2026-12-01', 7, 1, 2_000_000, false]
    ])
  })
})
