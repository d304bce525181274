/** The Sessions page's query string: scope, search and filters, defaults left out, unknown values ignored. */
import type { SessionFilters } from '../stores/sessions'

const ARCHIVED = ['exclude', 'include', 'only'] as const
const SORTS = ['active', 'started', 'messages', 'tokens', 'cost', 'title'] as const

export function sessionsQuery(scope: string, f: SessionFilters, q: string): string {
  const p = new URLSearchParams()
  if (scope !== 'all') p.set('profile', scope)
  if (q.trim()) p.set('q', q)
  if (f.archived !== 'exclude') p.set('archived', f.archived)
  if (f.sources.length) p.set('sources', f.sources.join(','))
  if (f.includeChildren) p.set('children', '1')
  if (f.idPrefix.trim()) p.set('id', f.idPrefix.trim())
  if (f.sort !== 'active') p.set('sort', f.sort)
  if (f.dir) p.set('dir', f.dir)
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
  const sort = p.get('sort')
  if (sort && (SORTS as readonly string[]).includes(sort)) filters.sort = sort as SessionFilters['sort']
  const dir = p.get('dir')
  if (dir === 'asc' || dir === 'desc') filters.dir = dir
  return { scope: p.get('profile'), q: p.get('q'), filters }
}
