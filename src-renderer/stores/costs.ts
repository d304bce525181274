import { create } from 'zustand'
import type { CostSummary } from '@shared/contract'
import { getApi } from '../api'
import { useApp } from './app'
import { reportError } from './toasts'

interface CostsStore {
  days: number
  summary: CostSummary | null
  loading: boolean
  error: string | null
}

const initial = (): CostsStore => ({ days: 30, summary: null, loading: false, error: null })
export const useCosts = create<CostsStore>()(() => initial())
export const DAY_CHOICES = [7, 30, 90, 365] as const
let seq = 0

export function resetCosts(): void {
  seq++
  useCosts.setState(initial(), true)
}

export async function loadCosts(): Promise<void> {
  const mySeq = ++seq
  useCosts.setState({ loading: true, error: null })
  try {
    const summary = await getApi().call('costs.summary', {
      profile: useApp.getState().scope,
      days: useCosts.getState().days
    })
    if (mySeq !== seq) return
    useCosts.setState({ summary, loading: false })
  } catch (err) {
    if (mySeq !== seq) return
    useCosts.setState({ loading: false, error: reportError(err, 'Loading costs') })
  }
}

export function setCostDays(days: number): Promise<void> {
  useCosts.setState({ days })
  return loadCosts()
}

export interface ChartRow {
  day: string
  [profile: string]: number | string
}

/** byDay rows → one row per day with a column per profile (recharts stacked bars), days ascending. */
export function chartRows(summary: CostSummary): { rows: ChartRow[]; profiles: string[]; unpricedDays: string[] } {
  const byDay = new Map<string, ChartRow>()
  const profiles = new Set<string>()
  const unpriced = new Set<string>()
  for (const d of summary.byDay) {
    profiles.add(d.profile)
    if (d.unpriced) unpriced.add(d.day)
    const row = byDay.get(d.day) ?? { day: d.day }
    row[d.profile] = Number(row[d.profile] ?? 0) + (Number.isFinite(d.usd) ? d.usd : 0)
    byDay.set(d.day, row)
  }
  const names = [...profiles].sort()
  const rows = [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day))
  for (const r of rows) for (const p of names) r[p] ??= 0
  return { rows, profiles: names, unpricedDays: [...unpriced].sort() }
}
