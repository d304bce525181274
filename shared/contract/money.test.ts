import { describe, expect, it } from 'vitest'
import { moneyFromMicros, sumMoney, toMicros, usdToMicros } from './money'

describe('the one money rule', () => {
  it('sums dollars as integer micro-dollars, so the Costs page cards equal the host totals exactly', () => {
    const e = (usd: number) => ({ usd, status: 'estimated' as const, complete: true })
    // 0.1 + 0.2 as doubles is 0.30000000000000004; as micro-dollars it is 300000
    expect(sumMoney([e(0.1), e(0.2)])).toEqual({ usd: 0.3, status: 'estimated', complete: true })
    expect(usdToMicros(12.065)).toBe(12_065_000)
  })

  it('keeps no-usage parts out and marks unpriced ones partial, in micro-dollars and in dollars alike', () => {
    const none = { micros: 0, status: 'none' as const, complete: true }
    const unpriced = { micros: null, status: 'unpriced' as const, complete: false }
    const billed = { micros: 5, status: 'billed' as const, complete: true }
    expect(moneyFromMicros([none, none])).toEqual({ usd: 0, status: 'none', complete: true })
    expect(moneyFromMicros([billed, none])).toEqual({ usd: 0.000005, status: 'billed', complete: true })
    expect(moneyFromMicros([billed, unpriced])).toEqual({ usd: 0.000005, status: 'partial', complete: false })
    expect(
      sumMoney([
        { usd: 1, status: 'billed', complete: true },
        { usd: null, status: 'unpriced', complete: false }
      ])
    ).toEqual({ usd: 1, status: 'partial', complete: false })
    expect(toMicros({ usd: null, status: 'unpriced', complete: false })).toEqual(unpriced)
  })

  it('a lone part keeps its own status when converted back to dollars', () => {
    const lone = { micros: null, status: 'partial' as const, complete: false }
    expect(moneyFromMicros([lone])).toEqual({ usd: null, status: 'partial', complete: false })
    expect(moneyFromMicros([lone, lone])).toEqual({ usd: null, status: 'unpriced', complete: false })
  })
})
