/**
 * The Sessions page's state in the URL: `#/sessions?profile=work&q=rollback&archived=include&sources=cli,tui&children=1`.
 * Opening or reloading such a link restores it; changing scope, filters or search rewrites the query in place
 * (replaceState: typing does not flood history; moving between pages still makes back/forward entries).
 */
import { useEffect } from 'react'
import { setScope, useApp } from '../stores/app'
import { runSearch, setSessionFilters, useSessions, type SessionFilters } from '../stores/sessions'

const ARCHIVED = ['exclude', 'include', 'only'] as const

export function sessionsQuery(scope: string, f: SessionFilters, q: string): string {
  const p = new URLSearchParams()
  if (scope !== 'all') p.set('profile', scope)
  if (q.trim()) p.set('q', q)
  if (f.archived !== 'exclude') p.set('archived', f.archived)
  if (f.sources.length) p.set('sources', f.sources.join(','))
  if (f.includeChildren) p.set('children', '1')
  if (f.idPrefix.trim()) p.set('id', f.idPrefix.trim())
  const s = p.toString()
  return s ? `?${s}` : ''
}

export function parseSessionsQuery(query: string): {
  scope: string | null
  q: string | null
  filters: Partial<SessionFilters>
} {
  const p = new URLSearchParams(query)
  const archived = p.get('archived')
  const filters: Partial<SessionFilters> = {}
  if (archived && (ARCHIVED as readonly string[]).includes(archived))
    filters.archived = archived as SessionFilters['archived']
  if (p.has('sources'))
    filters.sources = p
      .get('sources')!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .slice(0, 32)
  if (p.has('children')) filters.includeChildren = p.get('children') === '1'
  if (p.has('id')) filters.idPrefix = p.get('id')!.slice(0, 128)
  return { scope: p.get('profile'), q: p.get('q'), filters }
}

const onSessions = () => /^#\/sessions(\?|$)/.test(location.hash) || location.hash === '' || location.hash === '#/'

function applyFromUrl(): void {
  if (!onSessions()) return
  const query = location.hash.split('?')[1]
  if (!query) return
  const { scope, q, filters } = parseSessionsQuery(query)
  if (scope) setScope(scope)
  const cur = useSessions.getState().filters
  const changed = (Object.keys(filters) as Array<keyof SessionFilters>).some(
    (k) => JSON.stringify(filters[k]) !== JSON.stringify(cur[k])
  )
  if (changed) void setSessionFilters(filters)
  if (q != null && q !== useSessions.getState().search.query) void runSearch(q)
}

function writeToUrl(): void {
  if (!onSessions()) return
  const s = useSessions.getState()
  const next = `#/sessions${sessionsQuery(useApp.getState().scope, s.filters, s.search.query)}`
  if (next !== location.hash) history.replaceState(history.state, '', next)
}

export function useSessionsUrlState(): void {
  useEffect(() => {
    applyFromUrl()
    const onHash = () => {
      applyFromUrl()
      writeToUrl()
    }
    window.addEventListener('hashchange', onHash)
    const unA = useApp.subscribe((s, p) => {
      if (s.scope !== p.scope) writeToUrl()
    })
    const unS = useSessions.subscribe((s, p) => {
      if (s.filters !== p.filters || s.search.query !== p.search.query) writeToUrl()
    })
    return () => {
      window.removeEventListener('hashchange', onHash)
      unA()
      unS()
    }
  }, [])
}
