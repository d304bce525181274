import { describe, expect, it } from 'vitest'
import { costsQuery, parseCostsQuery } from './costs-query'

describe('Costs view in the URL', () => {
  it('round-trips scope, period and day; defaults stay out of the URL', () => {
    expect(costsQuery('all', 30, null)).toBe('')
    const q = costsQuery('work', 90, '2026-11-03')
    expect(q).toBe('?profile=work&days=90&day=2026-11-03')
    expect(parseCostsQuery(q.slice(1))).toEqual({ scope: 'work', days: 90, day: '2026-11-03' })
  })
  it('ignores values the page cannot show', () => {
    expect(parseCostsQuery('days=13&day=Nov%203')).toEqual({ scope: null, days: null, day: null })
  })
})
