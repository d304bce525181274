import { create } from 'zustand'
import { useEffect, useRef } from 'react'
import { useQuery } from '@tanstack/react-query'
import type { MemoryEntryEdit, MemoryEvent, MemoryEventKind, ProviderHealth, RequestInput } from '@shared/contract'
import { getApi } from '../api'
import { errorMessage } from '../lib/format'
import { useApp } from './app'
import { reportError } from './toasts'
import { invalidateSoon, queryClient, requestKey, requestPrefix, requestQuery, settled } from './server'

export interface MemoryFilters {
  kinds: MemoryEventKind[]
  provider: string
  sessionId: string
  refusalsOnly: boolean
}

type Target = 'memory' | 'user'

interface MemoryStore {
  filters: MemoryFilters
  byId: Record<number, MemoryEvent>
  /** Newest first. */
  order: number[]
  hasMore: boolean
  loading: boolean
  error: string | null
  /** Which built-in file the entries panel shows; the entries themselves are a query (profile + target). */
  target: Target
  knownProviders: string[]
}

const PAGE = 200
/** The live feed keeps this many events in memory; older ones are a "load more" away. */
const FEED_CAP = 2000

const initialFilters: MemoryFilters = { kinds: [], provider: '', sessionId: '', refusalsOnly: false }
const initial = (): MemoryStore => ({
  filters: initialFilters,
  byId: {},
  order: [],
  hasMore: false,
  loading: false,
  error: null,
  target: 'memory',
  knownProviders: []
})
export const useMemory = create<MemoryStore>()(() => initial())

function eventQuery(beforeId?: number): RequestInput<'memory.events'> {
  const f = useMemory.getState().filters
  return {
    profile: useApp.getState().scope,
    refusalsOnly: f.refusalsOnly,
    limit: PAGE,
    ...(f.kinds.length ? { kinds: f.kinds } : {}),
    ...(f.provider ? { provider: f.provider } : {}),
    ...(f.sessionId.trim() ? { sessionId: f.sessionId.trim() } : {}),
    ...(beforeId != null ? { beforeId } : {})
  }
}

function providersOf(known: string[], items: MemoryEvent[]): string[] {
  const set = new Set(known)
  for (const e of items) set.add(e.provider)
  return set.size === known.length ? known : [...set].sort()
}

/** The feed's request for the current scope and filters, without the paging bound (what an answer is checked against). */
const feedInput = () => eventQuery()
const sameFeed = (a: RequestInput<'memory.events'>, b: RequestInput<'memory.events'>) =>
  JSON.stringify({ ...a, beforeId: undefined }) === JSON.stringify({ ...b, beforeId: undefined })

/**
 * The newest page for the current scope and filters. A read is a query keyed by its input, so two loads of
 * the same feed share one fetch; an answer for a feed the filters have left since is dropped by comparing inputs.
 */
export async function loadMemoryEvents(): Promise<void> {
  const input = feedInput()
  useMemory.setState({ loading: true, error: null })
  try {
    const page = await queryClient.fetchQuery({
      ...requestQuery('memory.events', input, 'Loading memory activity'),
      gcTime: 0
    })
    if (!sameFeed(feedInput(), input)) return
    const byId: Record<number, MemoryEvent> = {}
    for (const e of page.items) byId[e.id] = e
    const order = Object.keys(byId)
      .map(Number)
      .sort((a, b) => b - a)
    useMemory.setState((s) => ({
      byId,
      order,
      hasMore: page.items.length >= PAGE,
      loading: false,
      knownProviders: providersOf(s.knownProviders, page.items)
    }))
  } catch (err) {
    // the cache's onError has toasted it
    if (sameFeed(feedInput(), input)) useMemory.setState({ loading: false, error: errorMessage(err) })
  }
}

export async function loadOlderMemoryEvents(): Promise<void> {
  const st = useMemory.getState()
  const oldest = st.order[st.order.length - 1]
  if (oldest == null || !st.hasMore || st.loading) return
  const input = eventQuery(oldest)
  try {
    const page = await getApi().call('memory.events', input)
    if (!sameFeed(feedInput(), input) || useMemory.getState().loading) return
    useMemory.setState((s) => {
      const byId = { ...s.byId }
      for (const e of page.items) byId[e.id] = e
      return {
        byId,
        order: Object.keys(byId)
          .map(Number)
          .sort((a, b) => b - a),
        hasMore: page.items.length >= PAGE
      }
    })
  } catch (err) {
    reportError(err, 'Loading older memory activity')
  }
}

export function setMemoryFilters(patch: Partial<MemoryFilters>): Promise<void> {
  useMemory.setState((s) => ({ filters: { ...s.filters, ...patch } }))
  return loadMemoryEvents()
}

/** Does a pushed event pass the current scope and filters? */
export function matchesFeed(e: MemoryEvent): boolean {
  const scope = useApp.getState().scope
  const f = useMemory.getState().filters
  if (scope !== 'all' && e.profile !== scope) return false
  if (f.kinds.length && !f.kinds.includes(e.kind)) return false
  if (f.provider && e.provider !== f.provider) return false
  if (f.sessionId.trim() && e.sessionId !== f.sessionId.trim()) return false
  if (f.refusalsOnly && e.kind !== 'refusal') return false
  return true
}

export function applyMemoryActivity(e: MemoryEvent): void {
  followActivity(e)
  useMemory.setState((s) => {
    const knownProviders = providersOf(s.knownProviders, [e])
    if (!matchesFeed(e) || s.byId[e.id]) return { knownProviders }
    const byId = { ...s.byId, [e.id]: e }
    let order = [e.id, ...s.order]
    if (order.length > 1 && order[0]! < order[1]!) order.sort((a, b) => b - a)
    if (order.length > FEED_CAP) {
      for (const id of order.slice(FEED_CAP)) delete byId[id]
      order = order.slice(0, FEED_CAP)
      return { byId, order, knownProviders, hasMore: true }
    }
    return { byId, order, knownProviders }
  })
}

/**
 * A write (e.g. the agent's memory tool) changes that profile's entries, and every event moves the health
 * numbers: mark them stale now, re-read the ones on screen once a burst of events is through (not per event).
 */
function followActivity(e: MemoryEvent): void {
  const writes = e.kind === 'write' || (e.kind === 'tool_call' && e.name === 'memory')
  if (writes) void invalidateSoon({ queryKey: requestKey('memory.entries', { profile: e.profile }) })
  void invalidateSoon({ queryKey: requestPrefix('memory.health') })
}

/**
 * A profile's MEMORY.md / USER.md changed on disk (upstream's memory tool, another Caduceus, an editor): its entries
 * go stale, and the panel on screen reads them again once per burst.
 */
export function applyMemoryFilesChanged(e: { profile: string }): Promise<void> {
  return invalidateSoon({ queryKey: requestKey('memory.entries', { profile: e.profile }) })
}

const entriesQuery = (profile: string, target: Target) =>
  requestQuery('memory.entries', { profile, target }, 'Loading memory entries')

/** The entries panel's list: one profile's file (nothing under All). */
export function useMemoryEntries(profile: string | null) {
  const target = useMemory((s) => s.target)
  const q = useQuery({ ...entriesQuery(profile ?? '', target), enabled: profile != null })
  return {
    target,
    entries: q.data?.entries ?? [],
    /** The entries are read (perhaps stale, a re-read on its way): a box's entry missing from them is gone. */
    ready: q.data !== undefined,
    readOnly: q.data?.readOnly ?? null,
    /** The agent's writes waiting for the user's approval (memory.write_approval). */
    pending: q.data?.pending ?? 0,
    /** How full the file is, counted by the host as the memory tool counts it against its limit. */
    usage: q.data?.usage ?? null,
    loading: q.isFetching,
    error: q.error ? errorMessage(q.error) : null
  }
}

/** Show one file of a profile; resolves once it is read (a mounted panel shares the fetch). */
export function loadEntries(profile: string, target: Target = useMemory.getState().target): Promise<void> {
  useMemory.setState({ target })
  return settled(queryClient.fetchQuery(entriesQuery(profile, target)))
}

/** Edits are scoped to exactly one profile (invariant 6): the caller passes it; 'all' is not accepted. */
export async function editEntry(edit: MemoryEntryEdit): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    const res = await getApi().call('memory.edit', edit)
    const key = entriesQuery(res.profile, res.target).queryKey
    // the edit's answer is the newest list: a read still in flight must not land on top of it
    await queryClient.cancelQueries({ queryKey: key })
    queryClient.setQueryData(key, res)
    useMemory.setState({ target: res.target })
    return { ok: true }
  } catch (err) {
    // a refusal may come from a file changed under the page (an entry moved: conflict): what it holds is read again
    void queryClient.invalidateQueries({ queryKey: entriesQuery(edit.profile, edit.target).queryKey })
    return { ok: false, error: reportError(err, 'Editing memory') }
  }
}

const pendingQuery = (profile: string) =>
  requestQuery('memory.pending', { profile }, 'Loading the memory writes waiting for approval')

/**
 * The agent's staged writes of one profile (memory.write_approval), read when the entries say some wait: `count` is
 * the entries' figure, so a write staged or decided elsewhere (upstream's /memory pending) reads the list again.
 */
export function usePendingWrites(profile: string, count: number) {
  const q = useQuery({ ...pendingQuery(profile), enabled: count > 0 })
  const { refetch } = q
  // a count that changed once the list is on screen (the first read is the query's own)
  const seen = useRef(count)
  useEffect(() => {
    if (seen.current === count) return
    seen.current = count
    if (count > 0) void refetch()
  }, [count, refetch])
  return { items: count > 0 ? (q.data?.items ?? []) : [], error: q.error ? errorMessage(q.error) : null }
}

/** Approve (apply) or reject one staged write; `error`: the write was refused when applied, its record kept. */
export async function decidePending(
  profile: string,
  id: string,
  decision: 'approve' | 'reject'
): Promise<{ error?: string }> {
  try {
    const r = await getApi().call('memory.decidePending', { profile, id, decision })
    return r.error ? { error: r.error } : {}
  } catch (err) {
    return { error: reportError(err, decision === 'approve' ? 'Approving a memory write' : 'Rejecting a memory write') }
  } finally {
    // the files and the folder changed (or another program changed them): both are read again
    void queryClient.invalidateQueries({ queryKey: pendingQuery(profile).queryKey })
    void queryClient.invalidateQueries({ queryKey: requestPrefix('memory.entries') })
  }
}

const healthQuery = (scope: string) => requestQuery('memory.health', { profile: scope }, 'Loading provider health')

/** Provider health for the current scope; memory activity refetches it while shown. */
export function useProviderHealth(): ProviderHealth[] {
  const scope = useApp((s) => s.scope)
  return useQuery(healthQuery(scope)).data?.items ?? []
}

/** Re-read health for the current scope now (after a provider change); failures toast. */
export function loadHealth(): Promise<ProviderHealth[]> {
  return queryClient.fetchQuery(healthQuery(useApp.getState().scope)).then(
    (r) => r.items,
    () => []
  )
}
