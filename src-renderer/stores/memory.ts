import { create } from 'zustand'
import type { MemoryEntryEdit, MemoryEvent, MemoryEventKind, ProviderHealth } from '@shared/contract'
import { getApi } from '../api'
import { useApp } from './app'
import { reportError } from './toasts'

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
  target: Target
  entries: string[]
  entriesProfile: string | null
  entriesLoading: boolean
  entriesError: string | null
  health: ProviderHealth[]
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
  entries: [],
  entriesProfile: null,
  entriesLoading: false,
  entriesError: null,
  health: [],
  knownProviders: []
})
export const useMemory = create<MemoryStore>()(() => initial())
let seq = 0
let entriesSeq = 0
let watchers = 0
let followTimer: ReturnType<typeof setTimeout> | null = null
let followPendingEntries = false

/** The memory page watches while mounted: writes then refresh the entries and health it shows. */
export function watchMemory(): () => void {
  watchers++
  return () => {
    watchers--
  }
}

function eventQuery(beforeId?: number) {
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

export async function loadMemoryEvents(): Promise<void> {
  const mySeq = ++seq
  useMemory.setState({ loading: true, error: null })
  try {
    const page = await getApi().call('memory.events', eventQuery())
    if (mySeq !== seq) return
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
    if (mySeq !== seq) return
    useMemory.setState({ loading: false, error: reportError(err, 'Loading memory activity') })
  }
}

export async function loadOlderMemoryEvents(): Promise<void> {
  const st = useMemory.getState()
  const oldest = st.order[st.order.length - 1]
  if (oldest == null || !st.hasMore || st.loading) return
  const mySeq = seq
  try {
    const page = await getApi().call('memory.events', eventQuery(oldest))
    if (mySeq !== seq) return
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
  if (watchers > 0) followActivity(e)
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
 * A write (e.g. the agent's memory tool) changes the entries shown for that profile, and every event moves
 * the health numbers: re-read both once a burst of events settles, instead of showing stale lists.
 */
function followActivity(e: MemoryEvent): void {
  const writes = e.kind === 'write' || (e.kind === 'tool_call' && e.name === 'memory')
  const st = useMemory.getState()
  const entriesToo = writes && st.entriesProfile === e.profile
  if (followTimer) clearTimeout(followTimer)
  const pendingEntries = entriesToo || followPendingEntries
  followPendingEntries = pendingEntries
  followTimer = setTimeout(() => {
    followTimer = null
    followPendingEntries = false
    const cur = useMemory.getState()
    if (pendingEntries && cur.entriesProfile) void loadEntries(cur.entriesProfile, cur.target)
    void loadHealth()
  }, 300)
}

export async function loadEntries(profile: string, target: Target = useMemory.getState().target): Promise<void> {
  const mySeq = ++entriesSeq
  useMemory.setState({ target, entriesProfile: profile, entriesLoading: true, entriesError: null })
  try {
    const res = await getApi().call('memory.entries', { profile, target })
    if (mySeq !== entriesSeq) return
    useMemory.setState({ entries: res.entries, entriesLoading: false })
  } catch (err) {
    if (mySeq !== entriesSeq) return
    useMemory.setState({ entries: [], entriesLoading: false, entriesError: reportError(err, 'Loading memory entries') })
  }
}

/** Edits are scoped to exactly one profile (invariant 6): the caller passes it; 'all' is not accepted. */
export async function editEntry(edit: MemoryEntryEdit): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    const res = await getApi().call('memory.edit', edit)
    ++entriesSeq
    useMemory.setState({ entries: res.entries, entriesProfile: res.profile, target: res.target, entriesError: null })
    return { ok: true }
  } catch (err) {
    return { ok: false, error: reportError(err, 'Editing memory') }
  }
}

export async function loadHealth(): Promise<void> {
  try {
    const res = await getApi().call('memory.health', { profile: useApp.getState().scope })
    useMemory.setState({ health: res.items })
  } catch (err) {
    reportError(err, 'Loading provider health')
  }
}
