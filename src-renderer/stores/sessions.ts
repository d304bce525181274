import { useMemo } from 'react'
import { create } from 'zustand'
import { keepPreviousData, QueryObserver, queryOptions, useQuery, type QueryKey } from '@tanstack/react-query'
import type {
  EventPayload,
  ProfileProblem,
  SearchHit,
  SearchResult,
  SearchSessionGroup,
  SessionPage,
  SessionQuery,
  SessionSort,
  SessionSummary
} from '@shared/contract'
import { SESSION_HEAD_ROWS, SESSION_PAGE_ROWS } from '@shared/contract'
import { getApi } from '../api'
import { useApp } from './app'
import { reportError } from './toasts'
import { mergeByKey, type Normalized } from '../lib/normalize'
import { errorMessage } from '../lib/format'
import { coalesce, invalidateSoon, keyInput, queryClient, requestQuery, settled } from './server'

export interface SessionFilters {
  sources: string[]
  archived: 'exclude' | 'include' | 'only'
  /** Epoch seconds. */
  from: number | null
  to: number | null
  idPrefix: string
  includeChildren: boolean
  /** The list's order (the host sorts: every page continues it); `dir` null = the order's own default. */
  sort: SessionSort
  dir: 'asc' | 'desc' | null
}

interface SessionsStore {
  filters: SessionFilters
  /** A next page is on its way ("load more" while scrolling). */
  loadingMore: boolean
  /** Every source seen so far, for the filter menu. */
  knownSources: string[]
  /** The search box's text; its results are a query keyed by scope, text and filters (`useSearchResults`). */
  search: { query: string }
  /** The list's keyboard cursor (a row key) and the scope it was set in: it survives opening a session and coming back. */
  cursor: { scope: string; key: string }
}

/** The loaded rows of one list (scope + filters): every page read so far, merged with live changes. */
export interface SessionRows extends Normalized<SessionSummary> {
  nextCursor: string | null
  /** Profiles the host could not read for this cross-profile list (it is served without them). */
  unavailable?: ProfileProblem[]
  /** Profiles in this list read with a notice (a newer upstream schema), with the host's words. */
  notices?: ProfileProblem[]
}

export const PAGE_SIZE = SESSION_PAGE_ROWS
/** How many rows a live refresh re-reads from the top of the list. */
const HEAD_SIZE = SESSION_HEAD_ROWS

const initialFilters: SessionFilters = {
  sources: [],
  archived: 'exclude',
  from: null,
  to: null,
  idPrefix: '',
  includeChildren: false,
  sort: 'active',
  dir: null
}
const initial = (): SessionsStore => ({
  filters: initialFilters,
  loadingMore: false,
  knownSources: [],
  search: { query: '' },
  cursor: { scope: '', key: '' }
})

export const useSessions = create<SessionsStore>()(() => initial())
export const sessionKey = (profile: string, id: string) => `${profile}/${id}`

/** The list request for a scope and filters (also what "Export shown" exports). */
export function listInput(
  scope: string,
  f: SessionFilters,
  cursor: string | null = null,
  limit = PAGE_SIZE
): SessionQuery {
  return {
    profile: scope,
    archived: f.archived,
    includeChildren: f.includeChildren,
    limit,
    cursor,
    ...(f.sources.length ? { sources: f.sources } : {}),
    ...(f.from != null ? { from: f.from } : {}),
    ...(f.to != null ? { to: f.to } : {}),
    ...(f.idPrefix.trim() ? { idPrefix: f.idPrefix.trim() } : {}),
    // the default order is left out, so its request (and cached list) is the one it always was
    ...(f.sort !== 'active' ? { sort: f.sort } : {}),
    ...(f.dir && f.dir !== defaultDir(f.sort) ? { dir: f.dir } : {})
  }
}

/** Newest / largest first, except titles (A → Z): the host's default for each order. */
export const defaultDir = (sort: SessionSort): 'asc' | 'desc' => (sort === 'title' ? 'asc' : 'desc')

/** The orders the host sorts by, as the sort menu names them. */
export const SORT_LABELS: Record<SessionSort, string> = {
  active: 'Last activity',
  started: 'Started',
  messages: 'Messages',
  tokens: 'Tokens',
  cost: 'Cost',
  title: 'Title'
}

/** How a direction reads for an order: its first rows. */
export const dirLabel = (sort: SessionSort, dir: 'asc' | 'desc') =>
  sort === 'title'
    ? dir === 'asc'
      ? 'A to Z'
      : 'Z to A'
    : sort === 'active' || sort === 'started'
      ? dir === 'desc'
        ? 'newest first'
        : 'oldest first'
      : dir === 'desc'
        ? 'largest first'
        : 'smallest first'

/** Sort the list by `sort`; the same order again flips its direction. */
export function setSessionSort(sort: SessionSort, dir?: 'asc' | 'desc'): Promise<void> {
  const f = useSessions.getState().filters
  const cur = f.dir ?? defaultDir(f.sort)
  const next = dir ?? (f.sort === sort ? (cur === 'asc' ? 'desc' : 'asc') : defaultDir(sort))
  return setSessionFilters({ sort, dir: next === defaultDir(sort) ? null : next })
}

/** The list request for the current scope and filters. */
export const query = (cursor: string | null = null, limit = PAGE_SIZE): SessionQuery =>
  listInput(useApp.getState().scope, useSessions.getState().filters, cursor, limit)

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
const rowKey = (s: SessionSummary) => sessionKey(s.profile, s.id)

/** The sources the filter offers: those of rows seen, and every source `sessions.sources` says the scope has. */
function noteSources(items: SessionSummary[], sources: string[] = []): void {
  const known = useSessions.getState().knownSources
  const set = new Set([...known, ...sources])
  for (const s of items) set.add(s.source)
  if (set.size !== known.length) useSessions.setState({ knownSources: [...set].sort() })
}

/**
 * The rows of one list as a query keyed by its first-page request (scope + filters). Its fetch reads the first
 * page; further pages and live changes are merged into its data (`setQueryData`), so neither re-reads every
 * loaded page. An answer lands in the key it was asked for: a list replaced meanwhile (other filters, other
 * scope) is simply not the one on screen, so no sequence counter is needed. Coming back to a cached list
 * does not start it over (`refetchOnMount: false`): `watchSessions` merges in what changed meanwhile.
 */
const ROWS = 'sessions.rows'
const rowsQuery = (input: SessionQuery) =>
  queryOptions({
    queryKey: [ROWS, input] as const,
    queryFn: async (): Promise<SessionRows> => {
      // the filter's sources come with every first page, as their own request (off the list's path)
      void getApi()
        .call('sessions.sources', { profile: input.profile })
        .then((r) => noteSources([], r.sources))
        .catch(() => undefined) // the filter keeps the sources of the rows it has seen
      const page = await getApi().call('sessions.list', input)
      noteSources(page.items)
      return { ...mergeByKey(shown(page.items), rowKey), nextCursor: page.nextCursor, ...problemsOf(page) }
    },
    meta: { errorContext: 'Loading sessions' },
    refetchOnMount: false
  })

const rowsKey = (input: SessionQuery) => rowsQuery(input).queryKey

/** What a first page (or a live pass's head) says of the profiles it was read from: the host's current word. */
const problemsOf = (page: SessionPage): Pick<SessionRows, 'unavailable' | 'notices'> => ({
  ...(page.unavailable?.length ? { unavailable: page.unavailable } : {}),
  ...(page.notices?.length ? { notices: page.notices } : {})
})

/** Is this a cached list's key (for invalidation predicates)? */
export const isRowsKey = (key: QueryKey) => key[0] === ROWS

const EMPTY: SessionRows = { byKey: {}, order: [], nextCursor: null }

/** The loaded rows of the current list (outside React). */
export const sessionRows = (): SessionRows => queryClient.getQueryData(rowsKey(query())) ?? EMPTY

/** Has the current list any rows loaded (a first page read), as opposed to none yet or a failed first read? */
export const sessionRowsLoaded = () => queryClient.getQueryData(rowsKey(query())) !== undefined

/** The current list's read state (outside React): its last read failed; it changed while nobody watched it. */
function sessionRowsState(): { error: string | null; stale: boolean } {
  const st = queryClient.getQueryState(rowsKey(query()))
  return { error: st?.error ? errorMessage(st.error) : null, stale: !!st?.isInvalidated }
}

/** The rows the list shows, for the scope and filters it is subscribed to; the last list stays up while the next loads. */
export function useSessionRows(): SessionRows & { loading: boolean; error: string | null } {
  const scope = useApp((s) => s.scope)
  const filters = useSessions((s) => s.filters)
  const input = useMemo(() => listInput(scope, filters), [scope, filters])
  const q = useQuery({ ...rowsQuery(input), placeholderData: keepPreviousData })
  return { ...(q.data ?? EMPTY), loading: q.isFetching, error: q.error ? errorMessage(q.error) : null }
}

/** One row of the current list if it is loaded; observing it does not fetch or count as watching. */
export function useLoadedRow(key: string): SessionSummary | undefined {
  const scope = useApp((s) => s.scope)
  const filters = useSessions((s) => s.filters)
  const input = useMemo(() => listInput(scope, filters), [scope, filters])
  return useQuery({ ...rowsQuery(input), enabled: false, select: (r) => (key ? r.byKey[key] : undefined) }).data
}

/** Change the rows of every cached list (a local edit: update, archive, hide); `input` is that list's request. */
function updateRows(fn: (rows: SessionRows, input: SessionQuery) => SessionRows): void {
  for (const [key, rows] of queryClient.getQueriesData<SessionRows>({ queryKey: [ROWS] })) {
    const input = key[1] as SessionQuery
    if (rows) queryClient.setQueryData(rowsKey(input), fn(rows, input))
  }
}

/** Rows that leave every cached list and search result at once (deleted, or filtered out by an edit). */
export function dropRows(keys: ReadonlySet<string>): void {
  if (!keys.size) return
  updateRows((r) => withoutRows(r, keys))
  queryClient.setQueriesData<SearchResult>({ queryKey: [SEARCH] }, (r) => (r ? withoutHits(r, keys) : r))
}

function withoutRows(r: SessionRows, keys: ReadonlySet<string>): SessionRows {
  if (!r.order.some((k) => keys.has(k))) return r
  const byKey = { ...r.byKey }
  for (const k of keys) delete byKey[k]
  return { ...r, byKey, order: r.order.filter((k) => !keys.has(k)) }
}

/** Does a list with this archive filter still show the row? */
export const listShows = (input: SessionQuery, s: SessionSummary) =>
  !((input.archived === 'exclude' && s.archived) || (input.archived === 'only' && !s.archived))

/** Edited rows update in place in every cached list; a list whose archive filter no longer shows one drops it. */
export function replaceRows(items: readonly SessionSummary[]): void {
  if (!items.length) return
  updateRows((r, input) => {
    const byKey = { ...r.byKey }
    const gone = new Set<string>()
    for (const s of items) {
      const k = rowKey(s)
      if (!byKey[k]) continue
      byKey[k] = s
      if (!listShows(input, s)) gone.add(k)
    }
    return withoutRows({ ...r, byKey }, gone)
  })
}

/**
 * The sessions page watches while mounted: an observer on the current list, following scope and filters. Its
 * first mount reads the first page; coming back keeps the rows (and so the scroll position) and only merges in
 * what changed meanwhile. Live changes refresh only a watched list (`isActive`); others just go stale.
 */
export function watchSessions(): () => void {
  const observer = new QueryObserver(queryClient, rowsQuery(query()))
  const off = observer.subscribe(() => {})
  if (sessionRowsState().stale) void applySessionsChanged({ profile: '', sessionIds: [] }, true)
  const follow = () => observer.setOptions(rowsQuery(query()))
  const offScope = useApp.subscribe((s, p) => s.scope !== p.scope && follow())
  const offFilters = useSessions.subscribe((s, p) => s.filters !== p.filters && follow())
  return () => {
    offScope()
    offFilters()
    off()
  }
}

/** The current list's first page again (after a delete failed, an undo, an import, a prune); rows stay up meanwhile. */
export function reloadSessions(): Promise<void> {
  return settled(queryClient.fetchQuery(rowsQuery(query())))
}

export async function loadMoreSessions(): Promise<void> {
  const input = query()
  const key = rowsKey(input)
  const rows = queryClient.getQueryData(key)
  if (!rows?.nextCursor || useSessions.getState().loadingMore || queryClient.isFetching({ queryKey: key })) return
  useSessions.setState({ loadingMore: true })
  try {
    const page = await getApi().call('sessions.list', { ...input, cursor: rows.nextCursor })
    noteSources(page.items)
    // into the list it was asked for, whichever is on screen now
    queryClient.setQueryData(key, (r) =>
      r ? { ...r, ...mergeByKey(shown(page.items), rowKey, r), nextCursor: page.nextCursor } : r
    )
  } catch (err) {
    reportError(err, 'Loading more sessions')
  } finally {
    useSessions.setState({ loadingMore: false })
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
  // the order is not a filter: clearing the filters keeps it
  useSessions.setState((s) => ({ filters: { ...initialFilters, sort: s.filters.sort, dir: s.filters.dir } }))
  return refilter()
}

/** Session ids named by events since the last live pass, per profile: the pass re-reads the loaded ones. */
const changedIds = new Map<string, Set<string>>()
const refreshPass = coalesce(refreshOnce)

/**
 * Live refresh (merge, don't clobber): re-read the head of the list and splice it in front, update any
 * other loaded row the event names, keep every other row, the filters and the search box untouched.
 * A burst of events is one pass (plus one more for events that come while it runs).
 */
export function applySessionsChanged(evt: EventPayload<'sessions.changed'>, force = false): Promise<void> {
  const scope = useApp.getState().scope
  if (!force && scope !== 'all' && scope !== evt.profile) return Promise.resolve()
  const key = rowsKey(query())
  const list = queryClient.getQueryCache().find({ queryKey: key, exact: true })
  if (!list || list.state.data === undefined) return Promise.resolve()
  if (!force && !list.isActive()) {
    // nobody watches: the list goes stale, and is merged with the host when the page comes back
    void queryClient.invalidateQueries({ queryKey: key, exact: true, refetchType: 'none' })
    return Promise.resolve()
  }
  const set = changedIds.get(evt.profile) ?? new Set<string>()
  for (const id of evt.sessionIds) set.add(id)
  changedIds.set(evt.profile, set)
  return refreshPass()
}

/** The list's order (host: activity DESC, started DESC, id DESC; profiles merged the same way): < 0 = `a` first. */
const byActivity = (a: SessionSummary, b: SessionSummary): number =>
  b.lastActiveAt - a.lastActiveAt || b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** What the host sorts each other order on, as far as a summary says it (a live re-read row's place). */
const SORT_VALUE: Record<Exclude<SessionSort, 'active'>, (s: SessionSummary) => number | string> = {
  started: (s) => s.startedAt,
  messages: (s) => s.messageCount,
  tokens: (s) => s.tokens.input + s.tokens.output + s.tokens.cacheRead + s.tokens.cacheWrite + s.tokens.reasoning,
  cost: (s) => s.cost.usd ?? 0,
  title: (s) => (s.title ?? s.preview ?? '').trim().toLowerCase()
}

/** The comparator of a list request's order: < 0 = `a` first. */
function orderOf(input: SessionQuery): (a: SessionSummary, b: SessionSummary) => number {
  const sort = input.sort ?? 'active'
  const desc = (input.dir ?? defaultDir(sort)) === 'desc'
  if (sort === 'active') return desc ? byActivity : (a, b) => -byActivity(a, b)
  const value = SORT_VALUE[sort]
  return (a, b) => {
    const x = value(a)
    const y = value(b)
    const c = x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
    return desc ? -c : c
  }
}

/** What a re-read says of a loaded row: its new summary, or that the list no longer shows it. */
async function reread(
  profile: string,
  sessionId: string,
  input: SessionQuery
): Promise<SessionSummary | 'gone' | null> {
  try {
    const { summary, lineage } = await getApi().call('sessions.get', { profile, sessionId })
    // a compression chain shows as its tip: a segment compression continued is no longer a row, unless the
    // children filter lists every segment
    const tip = lineage.chain[lineage.chain.length - 1]
    if (!input.includeChildren && tip && tip.id !== sessionId) return 'gone'
    return listShows(input, summary) ? summary : 'gone'
  } catch (err) {
    // only a definite not_found drops the row; a transient failure keeps what we have
    return (err as { code?: string })?.code === 'not_found' ? 'gone' : null
  }
}

async function refreshOnce(): Promise<void> {
  const events = [...changedIds].map(([profile, ids]) => ({ profile, ids: [...ids] }))
  changedIds.clear()
  const input = query()
  const key = rowsKey(input)
  const before = queryClient.getQueryData(key)
  if (!before) return
  let headPage: SessionPage
  try {
    headPage = await getApi().call('sessions.list', { ...input, limit: HEAD_SIZE })
  } catch {
    return // transient: the next event will try again; no toast storm while streaming
  }
  const head = shown(headPage.items)
  const headKeys = new Set(head.map(rowKey))
  const headRoots = new Map(head.map((s) => [`${s.profile}/${s.rootId}`, rowKey(s)]))
  const headEnd = headPage.items[headPage.items.length - 1]
  // The head is the host's word for its range: a loaded row it lacks though its key sorts inside that range (or
  // anywhere, when the head is the whole list) changed since it was read — moved back in time, filtered out, or
  // continued by compression — so it is read again like the rows the events name.
  const sortsBefore = orderOf(input)
  const insideHead = (s: SessionSummary) => !headPage.nextCursor || (!!headEnd && sortsBefore(s, headEnd) <= 0)
  const loaded = before.byKey
  const gone = new Set<string>()
  const toRead = new Map<string, { profile: string; id: string }>()
  for (const k of before.order) {
    const s = loaded[k]
    if (!s || headKeys.has(k) || hidden.has(k)) continue
    // an older segment of a chain whose tip the head shows: the list shows the chain once, as its tip (with the
    // children filter on, every segment is a row of its own)
    const tipKey = input.includeChildren ? undefined : headRoots.get(`${s.profile}/${s.rootId}`)
    if (tipKey && tipKey !== k) gone.add(k)
    else if (insideHead(s)) toRead.set(k, { profile: s.profile, id: s.id })
  }
  for (const evt of events)
    for (const id of evt.ids) {
      const k = sessionKey(evt.profile, id)
      if (loaded[k] && !headKeys.has(k) && !hidden.has(k) && !gone.has(k)) toRead.set(k, { profile: evt.profile, id })
    }
  const updated: SessionSummary[] = []
  const reads = await Promise.all([...toRead].map(async ([k, r]) => [k, await reread(r.profile, r.id, input)] as const))
  for (const [k, res] of reads) {
    // a row the head should hold by its new key but does not hold is not in this list (any more)
    if (res === 'gone' || (res && insideHead(res))) gone.add(k)
    else if (res) updated.push(res)
  }
  noteSources(head)
  queryClient.setQueryData(key, (r) => {
    if (!r) return r
    const byKey = { ...r.byKey }
    for (const item of [...head, ...updated]) byKey[rowKey(item)] = item
    for (const k of gone) delete byKey[k]
    const moved = new Set(updated.map(rowKey))
    const rest = r.order.filter((k) => !headKeys.has(k) && !gone.has(k) && !moved.has(k) && byKey[k])
    // a re-read row goes where its key now sorts among the kept rows; past the last of them, while more pages
    // remain, it is left for paging to bring (its place may lie beyond rows not loaded yet)
    for (const item of updated) {
      const at = rest.findIndex((k) => sortsBefore(item, byKey[k]!) < 0)
      if (at >= 0) rest.splice(at, 0, rowKey(item))
      else if (r.nextCursor === null) rest.push(rowKey(item))
      else delete byKey[rowKey(item)]
    }
    // the head is read without a cursor, so its problems cover the whole list: they replace the ones read before
    const { unavailable: _u, notices: _n, ...kept } = r
    return { ...kept, byKey, order: [...head.map(rowKey), ...rest], ...problemsOf(headPage) }
  })
}

const SEARCH = 'sessions.search'

/** A result without the hits of these sessions (a hit in an earlier segment of a chain goes with its tip). */
function withoutHits(r: SearchResult, keys: ReadonlySet<string>): SearchResult {
  const gone = (profile: string, id: string | undefined) => id !== undefined && keys.has(sessionKey(profile, id))
  const hits = r.hits.filter((h) => !gone(h.profile, h.sessionId) && !gone(h.profile, h.chainId))
  const sessions = r.sessions?.filter((g) => !gone(g.profile, g.sessionId))
  if (hits.length === r.hits.length && sessions?.length === r.sessions?.length) return r
  return { ...r, hits, ...(sessions ? { sessions } : {}) }
}

/**
 * The search request for some text under a scope and filters (the filter bar applies to hits too). Sessions whose
 * delete waits out its undo window stay out of its answers, as out of the lists.
 */
function searchQuery(text: string, scope: string, f: SessionFilters) {
  const { profile: _p, limit: _l, cursor: _c, sort: _s, dir: _d, ...filters } = listInput(scope, f)
  const q = requestQuery(SEARCH, { profile: scope, query: text.trim(), limit: 50, ...filters }, 'Search')
  return queryOptions({
    ...q,
    queryFn: async (ctx): Promise<SearchResult> => {
      const r = await q.queryFn!(ctx as never)
      return hidden.size ? withoutHits(r, hidden) : r
    }
  })
}

/**
 * Sessions of a profile changed (written, renamed, deleted — here or by another process): every cached search that
 * covers the profile goes stale, and the results on screen are read again once per burst.
 */
export function applySearchSessionsChanged(evt: EventPayload<'sessions.changed'>): Promise<void> {
  return invalidateSoon({
    queryKey: [SEARCH],
    predicate: (q) => {
      const scope = keyInput<typeof SEARCH>(q.queryKey).profile
      return scope === undefined || scope === 'all' || scope === evt.profile
    }
  })
}

/**
 * A profile's notices changed with none of its sessions (its MEMORY.md or USER.md became unreadable, or readable
 * again): the list and the search results on screen take the host's new words above them, as the rail does.
 */
export function applyProfileNoticesChanged(profile: string): void {
  void applySessionsChanged({ profile, sessionIds: [] })
  void applySearchSessionsChanged({ profile, sessionIds: [] })
}

/** Every cached search goes stale and the one on screen is read again (a delete undone: its hits come back). */
export const refreshSearch = (): Promise<void> => queryClient.invalidateQueries({ queryKey: [SEARCH] })

export interface SearchResultsView {
  query: string
  hits: SearchHit[]
  loading: boolean
  error: string | null
  groups?: SearchSessionGroup[]
  message?: string
  /** Profiles the search could not read (its results leave them out). */
  unavailable?: ProfileProblem[]
  /** Profiles searched that were read with a notice (a newer upstream schema). */
  notices?: ProfileProblem[]
  /** Which terms a fallback (not FTS5's word index) answered, as the host says it. */
  fallback?: string
}

/** The results of the search box's text; the last answer stays up while the next one loads. */
export function useSearchResults(): SearchResultsView {
  const text = useSessions((s) => s.search.query)
  const filters = useSessions((s) => s.filters)
  const scope = useApp((s) => s.scope)
  const on = text.trim() !== ''
  const q = useQuery({ ...searchQuery(text, scope, filters), enabled: on, placeholderData: keepPreviousData })
  if (!on) return { query: text, hits: [], loading: false, error: null }
  const res = q.data
  return {
    query: text,
    hits: res?.hits ?? [],
    loading: q.isFetching,
    error: q.error ? errorMessage(q.error) : null,
    groups: res?.sessions,
    message: res?.message,
    fallback: res?.fallback,
    unavailable: res?.unavailable,
    notices: res?.notices
  }
}

/** Search for this text; resolves once its answer is in (a mounted results view shares the fetch). */
export function runSearch(text: string): Promise<void> {
  useSessions.setState({ search: { query: text } })
  if (!text.trim()) return Promise.resolve()
  return settled(queryClient.fetchQuery(searchQuery(text, useApp.getState().scope, useSessions.getState().filters)))
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
    replaceRows([summary])
  } catch (err) {
    reportError(err, 'Updating session')
  }
}
