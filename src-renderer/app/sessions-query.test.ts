import { describe, expect, it } from 'vitest'
import { parseSessionsQuery, sessionsQuery } from './sessions-query'

const base = { sources: [], archived: 'exclude' as const, from: null, to: null, idPrefix: '', includeChildren: false }

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
  it('ignores values it does not know', () => {
    expect(parseSessionsQuery('archived=everything&profile=').filters).toEqual({})
  })
})
