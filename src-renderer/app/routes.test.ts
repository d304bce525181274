import { describe, expect, it } from 'vitest'
import { formatRoute, actingProfile, parseHash, type Route } from './routes'

describe('hash routes', () => {
  it('round-trips every page', () => {
    const routes: Route[] = [
      { page: 'sessions' },
      { page: 'subagents' },
      { page: 'costs' },
      { page: 'memory' },
      { page: 'gateway' },
      { page: 'settings', profile: null },
      { page: 'settings', profile: 'work' },
      { page: 'new', profile: 'default' },
      { page: 'session', profile: 'work', sessionId: '20260101_abc/def ?#', messageId: 42 },
      { page: 'session', profile: 'default', sessionId: 's1', messageId: null }
    ]
    for (const r of routes) expect(parseHash(formatRoute(r))).toEqual(r)
  })

  it('falls back to sessions on junk', () => {
    expect(parseHash('')).toEqual({ page: 'sessions' })
    expect(parseHash('#/nope')).toEqual({ page: 'sessions' })
    expect(parseHash('#/session/only-profile')).toEqual({ page: 'sessions' })
    expect(parseHash('#/session/p/s?m=abc')).toEqual({ page: 'session', profile: 'p', sessionId: 's', messageId: null })
    expect(parseHash('#/session/p/%E0%A4%A')).toMatchObject({ page: 'session', sessionId: '%E0%A4%A' })
  })
})

describe('New chat', () => {
  const profiles = [
    { name: 'default', isDefault: true, isActive: false },
    { name: 'work', isDefault: false, isActive: true }
  ]
  it('goes to the profile in scope; under All to the active one (hermes profile use), else default', () => {
    expect(actingProfile('default', profiles)).toBe('default')
    expect(actingProfile('all', profiles)).toBe('work')
    expect(
      actingProfile(
        'all',
        profiles.map((p) => ({ ...p, isActive: undefined }))
      )
    ).toBe('default')
    expect(actingProfile('all', [])).toBeUndefined()
  })
})
