import { create } from 'zustand'
import type { EventPayload, FollowUpEstimate, FollowUpResult, Subagent, SubagentState } from '@shared/contract'
import { getApi } from '../api'
import { useApp } from './app'
import { reportError } from './toasts'
import { coalescedLoader } from '../lib/coalesce'
import { mergeByKey } from '../lib/normalize'

export type SubagentTab = 'all' | 'running' | 'retained' | 'tombstoned' | 'expired'

interface SubagentsStore {
  byKey: Record<string, Subagent>
  order: string[]
  tab: SubagentTab
  showTombstoned: boolean
  maxRetained: number | null
  ttlHours: number | null
  /** New subagents are refused host-wide (follow-ups still run). */
  spawnPaused: boolean
  loading: boolean
  error: string | null
}

const initial = (): SubagentsStore => ({
  byKey: {},
  order: [],
  tab: 'all',
  showTombstoned: false,
  maxRetained: null,
  ttlHours: null,
  spawnPaused: false,
  loading: false,
  error: null
})
export const useSubagents = create<SubagentsStore>()(() => initial())
export const childKey = (profile: string, childId: string) => `${profile}/${childId}`

let seq = 0
let watchers = 0

/** The subagents page watches while mounted; delegation events reload only then. */
export function watchSubagents(): () => void {
  watchers++
  void loadSubagents()
  return () => {
    watchers--
  }
}

/** Tombstoned rows come back only when asked for (the toggle or the tombstoned tab). */
function wantsTombstoned(s: SubagentsStore): boolean {
  return s.showTombstoned || s.tab === 'tombstoned'
}

/** Overlapping calls share the running load plus one trailing pass. */
export const loadSubagents = coalescedLoader(async () => {
  const mySeq = ++seq
  const st = useSubagents.getState()
  useSubagents.setState({ loading: true })
  try {
    const res = await getApi().call('subagents.list', {
      profile: useApp.getState().scope,
      includeTombstoned: wantsTombstoned(st)
    })
    if (mySeq !== seq) return
    const { byKey, order } = mergeByKey(res.items, (item) => childKey(item.profile, item.childId))
    useSubagents.setState({
      byKey,
      order,
      maxRetained: res.maxRetained,
      ttlHours: res.ttlHours,
      spawnPaused: res.spawnPaused ?? false,
      loading: false,
      error: null
    })
  } catch (err) {
    if (mySeq !== seq) return
    useSubagents.setState({ loading: false, error: reportError(err, 'Loading subagents') })
  }
})

export function setSubagentTab(tab: SubagentTab): Promise<void> {
  const before = wantsTombstoned(useSubagents.getState())
  useSubagents.setState({ tab })
  return before === wantsTombstoned(useSubagents.getState()) ? Promise.resolve() : loadSubagents()
}

export function setShowTombstoned(show: boolean): Promise<void> {
  useSubagents.setState({ showTombstoned: show })
  return loadSubagents()
}

export function applyDelegationUpdated(evt: EventPayload<'delegation.updated'>): Promise<void> {
  const scope = useApp.getState().scope
  if (watchers === 0 || (scope !== 'all' && scope !== evt.profile)) return Promise.resolve()
  return loadSubagents()
}

const TAB_STATES: Record<Exclude<SubagentTab, 'all'>, SubagentState[]> = {
  running: ['running'],
  retained: ['retained'],
  tombstoned: ['tombstoned'],
  expired: ['expired']
}

/** Rows visible for the current tab and toggle. */
export function visibleSubagents(s: SubagentsStore): Subagent[] {
  const rows = s.order.map((k) => s.byKey[k]!)
  if (s.tab === 'all') return s.showTombstoned ? rows : rows.filter((r) => r.state !== 'tombstoned')
  const states = TAB_STATES[s.tab]
  return rows.filter((r) => states.includes(r.state))
}

export function countByState(s: SubagentsStore): Record<SubagentState, number> {
  const out: Record<SubagentState, number> = {
    running: 0,
    retained: 0,
    tombstoned: 0,
    expired: 0,
    failed: 0,
    unknown: 0
  }
  for (const k of s.order) out[s.byKey[k]!.state]++
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
    void loadSubagents()
    return { ok: true, result }
  } catch (err) {
    return { ok: false, error: reportError(err, 'Follow-up') }
  }
}

/** Upstream's spawn kill switch: no new subagents anywhere until resumed; follow-ups are never paused. */
export async function setSpawnPaused(paused: boolean): Promise<void> {
  try {
    const res = await getApi().call('subagents.setSpawnPaused', { paused })
    useSubagents.setState({ spawnPaused: res.paused })
  } catch (err) {
    reportError(err, paused ? 'Pausing new subagents' : 'Resuming new subagents')
  }
}

export async function tombstone(profile: string, childId: string): Promise<boolean> {
  try {
    const res = await getApi().call('subagents.tombstone', { profile, childId })
    await loadSubagents()
    return res.tombstoned
  } catch (err) {
    reportError(err, 'Tombstoning subagent')
    return false
  }
}

/** A follow-up over this size gets a warning before sending (the whole transcript is re-read). */
export const LARGE_TRANSCRIPT_TOKENS = 50_000
