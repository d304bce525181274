import { create } from 'zustand'
import { useShallow } from 'zustand/react/shallow'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type {
  EventPayload,
  FollowUpEstimate,
  FollowUpResult,
  RequestOutput,
  Subagent,
  SubagentState
} from '@shared/contract'
import { getApi } from '../api'
import { errorMessage } from '../lib/format'
import { useApp } from './app'
import { reportError } from './toasts'
import { invalidateSoon, keyInput, queryClient, requestPrefix, requestQuery, settled } from './server'

export type SubagentTab = 'all' | 'running' | 'retained' | 'tombstoned' | 'expired'

/** The page's view; the rows are a query keyed by scope + whether tombstoned rows are asked for. */
interface SubagentsStore {
  tab: SubagentTab
  showTombstoned: boolean
}

const initial = (): SubagentsStore => ({ tab: 'all', showTombstoned: false })
export const useSubagents = create<SubagentsStore>()(() => initial())
export const childKey = (profile: string, childId: string) => `${profile}/${childId}`

/** Tombstoned rows come back only when asked for (the toggle or the tombstoned tab). */
function wantsTombstoned(s: SubagentsStore): boolean {
  return s.showTombstoned || s.tab === 'tombstoned'
}

const subagentsQuery = (scope: string, includeTombstoned: boolean) =>
  requestQuery('subagents.list', { profile: scope, includeTombstoned }, 'Loading subagents')

/** The list the page shows now (current scope and view). */
const currentSubagentsQuery = () => subagentsQuery(useApp.getState().scope, wantsTombstoned(useSubagents.getState()))

/** The page's rows and limits; delegation events refetch them while the page is mounted. */
export function useSubagentList() {
  const scope = useApp((s) => s.scope)
  const view = useSubagents(useShallow((s) => ({ tab: s.tab, showTombstoned: s.showTombstoned })))
  const q = useQuery({ ...subagentsQuery(scope, wantsTombstoned(view)), placeholderData: keepPreviousData })
  return {
    ...view,
    list: q.data ?? null,
    loading: q.isFetching,
    error: q.error ? errorMessage(q.error) : null,
    refresh: q.refetch
  }
}

/** Read the current list now (a mounted page shares the fetch); failures toast. */
function loadSubagents(): Promise<void> {
  return settled(queryClient.fetchQuery(currentSubagentsQuery()))
}

export function setSubagentTab(tab: SubagentTab): Promise<void> {
  const before = wantsTombstoned(useSubagents.getState())
  useSubagents.setState({ tab })
  return before === wantsTombstoned(useSubagents.getState()) ? Promise.resolve() : loadSubagents()
}

export function setShowTombstoned(show: boolean): Promise<void> {
  useSubagents.setState({ showTombstoned: show })
  return loadSubagents()
}

/** Lists that can show the event's profile go stale; only a mounted page's list refetches. */
export function applyDelegationUpdated(evt: EventPayload<'delegation.updated'>): Promise<void> {
  return invalidateSoon({
    queryKey: requestPrefix('subagents.list'),
    predicate: (q) => {
      const { profile: scope, parentSessionId } = keyInput<'subagents.list'>(q.queryKey)
      // one session's subagents (the transcript's): only when the event is about that session
      if (parentSessionId !== undefined) return scope === evt.profile && parentSessionId === evt.parentSessionId
      return scope === 'all' || scope === evt.profile
    }
  })
}

/**
 * Sessions changed (`sessions.changed`): a child's session is written by whoever runs it — upstream's delegate in
 * another process writes its messages, tokens and cost into state.db without touching its delegation row, so no
 * `delegation.updated` comes. Lists that can show the profile go stale when the event names a session that has a
 * parent (`parentIds`; one-session lists only for their own parent) or a child a cached list shows (a deleted child
 * has no parent left to name); the ones on screen refetch once per burst.
 */
export function applySubagentsSessionsChanged(evt: EventPayload<'sessions.changed'>): Promise<void> {
  const parents = new Set(evt.parentIds ?? [])
  const named = new Set(evt.sessionIds)
  const listsChild = (data: RequestOutput<'subagents.list'> | undefined) =>
    !!data?.items.some((r) => r.profile === evt.profile && named.has(r.childSessionId))
  return invalidateSoon({
    queryKey: requestPrefix('subagents.list'),
    predicate: (q) => {
      const { profile: scope, parentSessionId } = keyInput<'subagents.list'>(q.queryKey)
      if (scope !== undefined && scope !== 'all' && scope !== evt.profile) return false
      const children = parentSessionId === undefined ? parents.size > 0 : parents.has(parentSessionId)
      return children || listsChild(q.state.data as RequestOutput<'subagents.list'> | undefined)
    }
  })
}

/** Every cached list goes stale (after a change made here); mounted ones refetch. */
const refreshSubagents = () => queryClient.invalidateQueries({ queryKey: requestPrefix('subagents.list') })

const TAB_STATES: Record<Exclude<SubagentTab, 'all'>, SubagentState[]> = {
  running: ['running'],
  retained: ['retained'],
  tombstoned: ['tombstoned'],
  expired: ['expired']
}

/** Rows visible for a tab and toggle. */
export function visibleSubagents(items: Subagent[], view: SubagentsStore): Subagent[] {
  if (view.tab === 'all') return view.showTombstoned ? items : items.filter((r) => r.state !== 'tombstoned')
  const states = TAB_STATES[view.tab]
  return items.filter((r) => states.includes(r.state))
}

export function countByState(items: Subagent[]): Record<SubagentState, number> {
  const out: Record<SubagentState, number> = {
    running: 0,
    retained: 0,
    completed: 0,
    tombstoned: 0,
    expired: 0,
    failed: 0,
    unknown: 0
  }
  for (const r of items) out[r.state]++
  return out
}

export async function estimateFollowUp(profile: string, childId: string): Promise<FollowUpEstimate | null> {
  try {
    return await getApi().call('subagents.estimate', { profile, childId })
  } catch (err) {
    reportError(err, 'Estimating follow-up')
    return null
  }
}

/** Errors are returned (not only toasted) so the dialog can show them inline and keep the typed text. */
export async function followUp(
  profile: string,
  childId: string,
  text: string
): Promise<{ ok: true; result: FollowUpResult } | { ok: false; error: string }> {
  try {
    const result = await getApi().call('subagents.followUp', { profile, childId, text })
    void refreshSubagents()
    return { ok: true, result }
  } catch (err) {
    return { ok: false, error: reportError(err, 'Follow-up') }
  }
}

/** Upstream's spawn kill switch: no new subagents anywhere until resumed; follow-ups are never paused. */
export async function setSpawnPaused(paused: boolean): Promise<void> {
  try {
    const res = await getApi().call('subagents.setSpawnPaused', { paused })
    // host-wide: every cached list shows the answer without a refetch
    queryClient.setQueriesData<RequestOutput<'subagents.list'>>({ queryKey: requestPrefix('subagents.list') }, (l) =>
      l ? { ...l, spawnPaused: res.paused } : l
    )
  } catch (err) {
    reportError(err, paused ? 'Pausing new subagents' : 'Resuming new subagents')
  }
}

export async function tombstone(profile: string, childId: string): Promise<boolean> {
  try {
    const res = await getApi().call('subagents.tombstone', { profile, childId })
    await refreshSubagents()
    return res.tombstoned
  } catch (err) {
    reportError(err, 'Tombstoning subagent')
    return false
  }
}

/** A follow-up over this size gets a warning before sending (the whole transcript is re-read). */
export const LARGE_TRANSCRIPT_TOKENS = 50_000
