import { describe, expect, it } from 'vitest'
import { parseSessionsQuery, sessionsQuery } from './sessions-query'

const base = {
  sources: [],
  archived: 'exclude' as const,
  from: null,
  to: null,
  idPrefix: '',
  includeChildren: false,
  sort: 'active' as const,
  dir: null
}

describe('sessions URL state', () => {
  it('round-trips scope, search and filters, and leaves defaults out', () => {
    expect(sessionsQuery('all', base, '')).toBe('')
    const q = sessionsQuery(
      'work',
      { ...base, archived: 'include', sources: ['cli', 'tui'], includeChildren: true },
      'roll back'
    )
    expect(q).toBe('?profile=work&q=roll+back&archived=include&sources=cli%2Ctui&children=1')
    expect(parseSessionsQuery(q.slice(1))).toEqual({
      scope: 'work',
      q: 'roll back',
      filters: { archived: 'include', sources: ['cli', 'tui'], includeChildren: true }
    })
  })
  it('keeps the order the list is sorted in (the default left out)', () => {
    const q = sessionsQuery('all', { ...base, sort: 'cost', dir: 'asc' }, '')
    expect(q).toBe('?sort=cost&dir=asc')
    expect(parseSessionsQuery(q.slice(1)).filters).toEqual({ sort: 'cost', dir: 'asc' })
    expect(parseSessionsQuery('sort=size&dir=up').filters).toEqual({})
  })
  it('ignores values it does not know', () => {
    expect(parseSessionsQuery('archived=everything&profile=').filters).toEqual({})
  })
})
