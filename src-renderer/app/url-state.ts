/**
 * The Sessions page's state in the URL: `#/sessions?profile=work&q=rollback&archived=include&sources=cli,tui&children=1`.
 * Opening or reloading such a link restores it; changing scope, filters or search rewrites the query in place
 * (replaceState: typing does not flood history; moving between pages still makes back/forward entries).
 */
import { setScope, useApp } from '../stores/app'
import { runSearch, setSessionFilters, useSessions, type SessionFilters } from '../stores/sessions'
import { parseSessionsQuery, sessionsQuery } from './sessions-query'
import { replaceHash, useUrlSync } from './url-sync'

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
  replaceHash(`#/sessions${sessionsQuery(useApp.getState().scope, s.filters, s.search.query)}`)
}

const watchSessions = (changed: () => void) =>
  useSessions.subscribe((s, p) => {
    if (s.filters !== p.filters || s.search.query !== p.search.query) changed()
  })

export function useSessionsUrlState(): void {
  useUrlSync(applyFromUrl, writeToUrl, watchSessions)
}
