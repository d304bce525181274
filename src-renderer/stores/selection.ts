import { useMemo } from 'react'
import { create } from 'zustand'
import type { SessionSummary } from '@shared/contract'
import { applyClick } from '../lib/range-select'
import { useApp } from './app'
import { sessionRows, useSessionRows } from './sessions'

/**
 * The Sessions page's selection, by row key (`profile/id`), so it survives live updates re-sorting the list.
 * Only rows still shown count (a row that left the list — deleted elsewhere, filtered out — is not acted on).
 * A profile-scope change clears it.
 */
interface Selection {
  keys: ReadonlySet<string>
  anchor: string | null
}
const empty = (): Selection => ({ keys: new Set(), anchor: null })
export const useSelection = create<Selection>()(empty)

/** Click (toggle) or shift-click (range from the last clicked row) on a row's checkbox. */
export function clickSelect(key: string, shift: boolean): void {
  const { keys, anchor } = useSelection.getState()
  const next = applyClick(keys, sessionRows().order, anchor, key, shift)
  useSelection.setState({ keys: next.selected, anchor: next.anchor })
}

/** Select every row shown, or clear when all of them already are. */
export function toggleAllShown(): void {
  const order = sessionRows().order
  const { keys } = useSelection.getState()
  const all = order.length > 0 && order.every((k) => keys.has(k))
  useSelection.setState(all ? empty() : { keys: new Set(order), anchor: null })
}

export function clearSelection(): void {
  if (useSelection.getState().keys.size) useSelection.setState(empty())
}

/** Keep only these keys selected (a batch's failures stay selected so they can be retried). */
export function keepSelected(keys: Iterable<string>): void {
  useSelection.setState({ keys: new Set(keys), anchor: null })
}

/** Selected rows that are shown, in list order. */
export function selectedRows(
  s: { order: string[]; byKey: Record<string, SessionSummary> },
  keys: ReadonlySet<string>
): SessionSummary[] {
  if (!keys.size) return []
  const out: SessionSummary[] = []
  for (const k of s.order) if (keys.has(k) && s.byKey[k]) out.push(s.byKey[k]!)
  return out
}

/** Selected rows that are still shown (the selection itself may name rows that left the list). */
export function useSelectedRows(): SessionSummary[] {
  const keys = useSelection((s) => s.keys)
  const { order, byKey } = useSessionRows()
  return useMemo(() => selectedRows({ order, byKey }, keys), [order, byKey, keys])
}

useApp.subscribe((s, prev) => {
  if (s.scope !== prev.scope) clearSelection()
})
