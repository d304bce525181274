import { describe, expect, it } from 'vitest'
import { axisCount, axisUsd, unpricedNote } from './chart-style'

// the ticks recharts picks for the value axis: multiples of a "nice" step from 0 (float noise included)
const ticks = (step: number, n = 5) => Array.from({ length: n }, (_, i) => i * step)

describe('value-axis labels', () => {
  it('keep neighbouring cost ticks apart and never read $0.00 above zero', () => {
    const labels = [0, 0.005, 0.01, 0.015000000000000001, 0.02].map(axisUsd)
    expect(labels).toEqual(['$0', '$0.005', '$0.01', '$0.015', '$0.02'])
    for (const step of [0.0025, 0.005, 0.25, 2.5, 25, 250]) {
      const l = ticks(step).map(axisUsd)
      expect(new Set(l).size).toBe(l.length)
    }
    expect(axisUsd(12.5)).toBe('$12.5')
    expect(axisUsd(40)).toBe('$40')
  })

  it('keep neighbouring token ticks apart', () => {
    expect(ticks(500).map(axisCount)).toEqual(['0', '500', '1k', '1.5k', '2k'])
    expect(ticks(250_000, 6).map(axisCount)).toEqual(['0', '250k', '500k', '750k', '1M', '1.25M'])
  })
})

describe('the unpriced note', () => {
  it('agrees with its counts: one day of one, several of many', () => {
    expect(unpricedNote(1, 1, 'day')).toBe(
      '1 of 1 day includes usage with no known price; the bars show only the priced part.'
    )
    expect(unpricedNote(2, 12, 'week')).toMatch(/^2 of 12 weeks include usage/)
  })
})
