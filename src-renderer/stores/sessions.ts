import { create } from 'zustand'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { EventPayload, SearchHit, SearchSessionGroup, SessionQuery, SessionSummary } from '@shared/contract'
import { getApi } from '../api'
import { useApp } from './app'
import { reportError } from './toasts'
import { mergeByKey } from '../lib/normalize'
import { errorMessage } from '../lib/format'
import { queryClient, requestQuery, settled } from './server'

export interface SessionFilters {
  sources: string[]
  archived: 'exclude' | 'include' | 'only'
  /** Epoch seconds. */
  from: number | null
  to: number | null
  idPrefix: string
  includeChildren: boolean
}

interface SessionsStore {
  filters: SessionFilters
  byKey: Record<string, SessionSummary>
  order: string[]
  nextCursor: string | null
  loading: boolean
  loadingMore: boolean
  error: string | null
  /** Scope the loaded rows belong to (null = nothing loaded). */
  loadedScope: string | null
  /** An event arrived while no view was watching. */
  stale: boolean
  /** Every source seen so far, for the filter menu. */
  knownSources: string[]
  /** The search box's text; its results are a query keyed by scope, text and filters (`useSearchResults`). */
  search: { query: string }
}

export const PAGE_SIZE = 100
/** How many rows a live refresh re-reads from the top of the list. */
export const HEAD_SIZE = 50

const initialFilters: SessionFilters = {
  sources: [],
  archived: 'exclude',
  from: null,
  to: null,
  idPrefix: '',
  includeChildren: false
}
const initial = (): SessionsStore => ({
  filters: initialFilters,
  byKey: {},
  order: [],
  nextCursor: null,
  loading: false,
  loadingMore: false,
  error: null,
  loadedScope: null,
  stale: false,
  knownSources: [],
  search: { query: '' }
})

export const useSessions = create<SessionsStore>()(() => initial())
export const sessionKey = (profile: string, id: string) => `${profile}/${id}`

// Bumped by every reload so late pages of an older query are dropped.
let generation = 0
let refreshing = false
// Ids named by events that arrived while a refresh was running, per profile.
let pendingIds = new Map<string, Set<string>>()
let watchers = 0

/**
 * The sessions page watches while mounted. Coming back to it keeps the rows (and so the scroll position)
 * and only merges in what changed meanwhile; a different profile scope reloads.
 */
export function watchSessions(): () => void {
  watchers++
  const st = useSessions.getState()
  if (st.loadedScope !== useApp.getState().scope) void reloadSessions()
  else if (st.stale) {
    useSessions.setState({ stale: false })
    void applySessionsChanged({ profile: st.loadedScope === 'all' ? '' : st.loadedScope, sessionIds: [] }, true)
  }
  return () => {
    watchers--
  }
}

/** The list request for the current scope and filters (also what "Export shown" exports). */
export function query(cursor: string | null, limit = PAGE_SIZE): SessionQuery {
  const f = useSessions.getState().filters
  return {
    profile: useApp.getState().scope,
    archived: f.archived,
    includeChildren: f.includeChildren,
    limit,
    cursor,
    ...(f.sources.length ? { sources: f.sources } : {}),
    ...(f.from != null ? { from: f.from } : {}),
    ...(f.to != null ? { to: f.to } : {}),
    ...(f.idPrefix.trim() ? { idPrefix: f.idPrefix.trim() } : {})
  }
}

/** Rows whose delete waits out its undo window: no reload or live refresh may bring them back meanwhile. */
const hidden = new Set<string>()
export function hideSessions(keys: Iterable<string>, hide: boolean): void {
  for (const k of keys) {
    if (hide) hidden.add(k)
    else hidden.delete(k)
  }
}
const shown = (items: SessionSummary[]) =>
  hidden.size ? items.filter((s) => !hidden.has(sessionKey(s.profile, s.id))) : items

function mergeSources(known: string[], items: SessionSummary[]): string[] {
  const set = new Set(known)
  for (const s of items) set.add(s.source)
  return set.size === known.length ? known : [...set].sort()
}

export async function reloadSessions(): Promise<void> {
  const gen = ++generation
  useSessions.setState({ loading: true, error: null, loadedScope: useApp.getState().scope, stale: false })
  try {
    const page = await getApi().call('sessions.list', query(null))
    if (gen !== generation) return
    const { byKey, order } = mergeByKey(shown(page.items), (s) => sessionKey(s.profile, s.id))
    useSessions.setState((st) => ({
      byKey,
      order,
      nextCursor: page.nextCursor,
      loading: false,
      knownSources: mergeSources(st.knownSources, page.items)
    }))
  } catch (err) {
    if (gen !== generation) return
    useSessions.setState({ loading: false, error: reportError(err, 'Loading sessions') })
  }
}

export async function loadMoreSessions(): Promise<void> {
  const st = useSessions.getState()
  if (!st.nextCursor || st.loadingMore || st.loading) return
  const gen = generation
  useSessions.setState({ loadingMore: true })
  try {
    const page = await getApi().call('sessions.list', query(st.nextCursor))
    if (gen !== generation) return
    useSessions.setState((s) => {
      const { byKey, order } = mergeByKey(shown(page.items), (item) => sessionKey(item.profile, item.id), s)
      return {
        byKey,
        order,
        nextCursor: page.nextCursor,
        loadingMore: false,
        knownSources: mergeSources(s.knownSources, page.items)
      }
    })
  } catch (err) {
    if (gen !== generation) return
    useSessions.setState({ loadingMore: false })
    reportError(err, 'Loading more sessions')
  }
}

/** The list again, and the search too when one is showing (it applies the same filters). */
function refilter(): Promise<void> {
  const q = useSessions.getState().search.query
  return Promise.all([reloadSessions(), q.trim() ? runSearch(q) : undefined]).then(() => undefined)
}

export function setSessionFilters(patch: Partial<SessionFilters>): Promise<void> {
  useSessions.setState((s) => ({ filters: { ...s.filters, ...patch } }))
  return refilter()
}

export function resetSessionFilters(): Promise<void> {
  useSessions.setState({ filters: initialFilters })
  return refilter()
}

/**
 * Live refresh (merge, don't clobber): re-read the head of the list and splice it in front, update any
 * other loaded row the event names, keep every other row, the filters and the search box untouched.
 * Overlapping events collapse into one trailing refresh.
 */
export async function applySessionsChanged(evt: EventPayload<'sessions.changed'>, force = false): Promise<void> {
  const scope = useApp.getState().scope
  if (!force && scope !== 'all' && scope !== evt.profile) return
  if (!force && watchers === 0) {
    if (useSessions.getState().loadedScope) useSessions.setState({ stale: true })
    return
  }
  const set = pendingIds.get(evt.profile) ?? new Set<string>()
  for (const id of evt.sessionIds) set.add(id)
  pendingIds.set(evt.profile, set)
  if (refreshing) return
  refreshing = true
  try {
    while (pendingIds.size) {
      const batch = pendingIds
      pendingIds = new Map()
      await refreshOnce([...batch].map(([profile, ids]) => ({ profile, sessionIds: [...ids] })))
    }
  } finally {
    refreshing = false
  }
}

async function refreshOnce(events: Array<EventPayload<'sessions.changed'>>): Promise<void> {
  const gen = generation
  const api = getApi()
  let head: SessionSummary[]
  try {
    head = shown((await api.call('sessions.list', query(null, HEAD_SIZE))).items)
  } catch {
    return // transient: the next event will try again; no toast storm while streaming
  }
  if (gen !== generation) return
  const headKeys = new Set(head.map((s) => sessionKey(s.profile, s.id)))
  const loaded = useSessions.getState().byKey
  const updated: SessionSummary[] = []
  const gone = new Set<string>()
  for (const evt of events) {
    const stragglers = evt.sessionIds.filter(
      (id) =>
        loaded[sessionKey(evt.profile, id)] &&
        !headKeys.has(sessionKey(evt.profile, id)) &&
        !hidden.has(sessionKey(evt.profile, id))
    )
    for (const id of stragglers) {
      try {
        updated.push((await api.call('sessions.get', { profile: evt.profile, sessionId: id })).summary)
      } catch (err) {
        // only a definite not_found drops the row; a transient failure keeps what we have
        if ((err as { code?: string })?.code === 'not_found') gone.add(sessionKey(evt.profile, id))
      }
    }
  }
  if (gen !== generation) return
  const f = useSessions.getState().filters
  useSessions.setState((s) => {
    const byKey = { ...s.byKey }
    for (const item of [...head, ...updated]) byKey[sessionKey(item.profile, item.id)] = item
    for (const item of updated) {
      const hidden = (f.archived === 'exclude' && item.archived) || (f.archived === 'only' && !item.archived)
      if (hidden) gone.add(sessionKey(item.profile, item.id))
    }
    const headOrder = head.map((x) => sessionKey(x.profile, x.id))
    const rest = s.order.filter((k) => !headKeys.has(k) && !gone.has(k))
    for (const k of gone) delete byKey[k]
    return { byKey, order: [...headOrder, ...rest], knownSources: mergeSources(s.knownSources, head) }
  })
}

/** The search request for some text under the current scope and filters (the filter bar applies to hits too). */
function searchQuery(text: string) {
  const { profile: _p, limit: _l, cursor: _c, ...filters } = query(null)
  return requestQuery(
    'sessions.search',
    { profile: useApp.getState().scope, query: text.trim(), limit: 50, ...filters },
    'Search'
  )
}

export interface SearchResultsView {
  query: string
  hits: SearchHit[]
  loading: boolean
  error: string | null
  groups?: SearchSessionGroup[]
  message?: string
  /** Which terms a fallback (not FTS5's word index) answered, as the host says it. */
  fallback?: string
}

/** The results of the search box's text; the last answer stays up while the next one loads. */
export function useSearchResults(): SearchResultsView {
  const text = useSessions((s) => s.search.query)
  useSessions((s) => s.filters) // a filter change re-keys the search
  useApp((s) => s.scope)
  const on = text.trim() !== ''
  const q = useQuery({ ...searchQuery(text), enabled: on, placeholderData: keepPreviousData })
  if (!on) return { query: text, hits: [], loading: false, error: null }
  const res = q.data
  return {
    query: text,
    hits: res?.hits ?? [],
    loading: q.isFetching,
    error: q.error ? errorMessage(q.error) : null,
    groups: res?.sessions,
    message: res?.message,
    fallback: res?.fallback
  }
}

/** Search for this text; resolves once its answer is in (a mounted results view shares the fetch). */
export function runSearch(text: string): Promise<void> {
  useSessions.setState({ search: { query: text } })
  if (!text.trim()) return Promise.resolve()
  return settled(queryClient.fetchQuery(searchQuery(text)))
}

export function clearSearch(): void {
  useSessions.setState({ search: { query: '' } })
}

/** Title / archive / pin; the row updates in place. */
export async function updateSession(input: {
  profile: string
  sessionId: string
  title?: string | null
  archived?: boolean
  pinned?: boolean
}): Promise<void> {
  try {
    const summary = await getApi().call('sessions.update', input)
    useSessions.setState((s) => {
      const k = sessionKey(summary.profile, summary.id)
      if (!s.byKey[k]) return s
      return { byKey: { ...s.byKey, [k]: summary } }
    })
  } catch (err) {
    reportError(err, 'Updating session')
  }
}
