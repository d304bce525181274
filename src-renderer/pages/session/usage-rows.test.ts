import { describe, expect, it } from 'vitest'
import type { ModelUsage } from '@shared/contract'
import { formatUsd } from '../../lib/format'
import { centsThatAddUp, routeNote } from './usage-rows'

const row = (baseUrl?: string, model = 'demo-model'): ModelUsage => ({
  model,
  provider: 'custom',
  task: '',
  ...(baseUrl ? { baseUrl } : {}),
  apiCalls: 1,
  tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  cost: { usd: 0.01, status: 'estimated', complete: true }
})

describe('usage rows', () => {
  it('names the endpoint only where two rows would otherwise look the same', () => {
    const rows = [row('https://a.example/v1'), row('http://10.0.0.5:8000/v1'), row(undefined, 'other')]
    expect(rows.map((r) => routeNote(rows, r))).toEqual(['a.example', '10.0.0.5:8000', null])
  })

  it('rounds parts to cents that add up to the rounded total', () => {
    expect(centsThatAddUp(0.09, [0.045, 0.045])).toEqual([0.05, 0.04])
    expect(centsThatAddUp(0.06, [0.04, 0.02, null])).toEqual([0.04, 0.02, null])
    // 0.085 is 8.4999… cents as a double: still $0.09, as $0.05 + $0.04
    expect(centsThatAddUp(0.045 + 0.04, [0.045, 0.04])).toEqual([0.05, 0.04])
    // not a sum of these parts (an unpriced part counted elsewhere): left alone
    expect(centsThatAddUp(1, [0.045, 0.045])).toEqual([0.045, 0.045])
  })

  it('never turns a priced part under a cent into $0.00', () => {
    // one model's $0.00029 under a total that reads "<$0.01": the row reads "<$0.01" too, not "$0.00"
    const [only] = centsThatAddUp(0.00029, [0.00029])
    expect(formatUsd(only!)).toBe('<$0.01')
    // beside parts that take the whole cents, the small one keeps its amount; a part of 0 stays 0
    expect(centsThatAddUp(0.092, [0.09, 0.002, 0])).toEqual([0.09, 0.002, 0])
    // three parts of $0.008 under $0.02: two take the cents, the third reads "<$0.01" rather than a third cent
    expect(centsThatAddUp(0.024, [0.008, 0.008, 0.008]).map((p) => formatUsd(p!))).toEqual(['$0.01', '$0.01', '<$0.01'])
  })
})
