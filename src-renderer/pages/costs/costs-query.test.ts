import { describe, expect, it } from 'vitest'
import { costsQuery, parseCostsQuery } from './costs-query'

const view = { days: 30, all: false, from: null, to: null, day: null }

describe('Costs view in the URL', () => {
  it('round-trips scope, period and day; defaults stay out of the URL', () => {
    expect(costsQuery('all', view)).toBe('')
    const q = costsQuery('work', { ...view, days: 90, day: '2026-11-03' })
    expect(q).toBe('?profile=work&days=90&day=2026-11-03')
    expect(parseCostsQuery(q.slice(1))).toEqual({
      scope: 'work',
      days: 90,
      all: false,
      from: null,
      to: null,
      day: '2026-11-03'
    })
  })
  it('all of the history, and a from–to period of any length', () => {
    expect(costsQuery('all', { ...view, all: true })).toBe('?days=all')
    expect(parseCostsQuery('days=all')).toMatchObject({ all: true, days: null })
    const q = costsQuery('all', { ...view, from: '2023-01-01', to: '2024-06-30' })
    expect(q).toBe('?from=2023-01-01&to=2024-06-30')
    expect(parseCostsQuery(q.slice(1))).toMatchObject({ from: '2023-01-01', to: '2024-06-30', all: false })
  })
  it('ignores values the page cannot show', () => {
    expect(parseCostsQuery('days=13&day=Nov%203&from=last+year')).toEqual({
      scope: null,
      days: null,
      all: false,
      from: null,
      to: null,
      day: null
    })
  })
})
