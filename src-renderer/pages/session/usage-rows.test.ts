import { describe, expect, it } from 'vitest'
import type { ModelUsage } from '@shared/contract'
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
})
