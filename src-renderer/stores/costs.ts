import { create } from 'zustand'
import { useShallow } from 'zustand/react/shallow'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { CostSummary, EventPayload } from '@shared/contract'
import { usdToMicros } from '@shared/contract/money'
import { errorMessage } from '../lib/format'
import { useApp } from './app'
import { invalidateSoon, keyInput, queryClient, requestQuery, settled } from './server'

/** The Costs page's view (period and day filter); the summary itself is a query keyed by scope + view. */
interface CostsStore {
  days: number
  /** Only this local day (YYYY-MM-DD), after a click on a chart bar; null = the whole period. */
  day: string | null
}

const initial = (): CostsStore => ({ days: 30, day: null })
export const useCosts = create<CostsStore>()(() => initial())
export const DAY_CHOICES = [7, 30, 90, 365] as const

const costsQuery = (scope: string, days: number, day: string | null) =>
  requestQuery('costs.summary', { profile: scope, days, ...(day ? { day } : {}) }, 'Loading costs')

const currentCostsQuery = () => {
  const { days, day } = useCosts.getState()
  return costsQuery(useApp.getState().scope, days, day)
}

/** The summary for the current scope and view; the previous range stays on screen while the next one loads. */
export function useCostSummary(): {
  days: number
  day: string | null
  summary: CostSummary | null
  loading: boolean
  error: string | null
} {
  const scope = useApp((s) => s.scope)
  const { days, day } = useCosts(useShallow((s) => ({ days: s.days, day: s.day })))
  const q = useQuery({ ...costsQuery(scope, days, day), placeholderData: keepPreviousData })
  return { days, day, summary: q.data ?? null, loading: q.isFetching, error: q.error ? errorMessage(q.error) : null }
}

/** Read the current view now; resolves once it is loaded (a mounted page shares the same fetch). Failures toast. */
export function loadCosts(): Promise<void> {
  return settled(queryClient.fetchQuery(currentCostsQuery()))
}

/**
 * A session of `profile` changed (tokens or cost written by a turn, by upstream's update_token_counts, a child's
 * spend, a delete): every cached summary covering that profile goes stale, and the one on screen is read again
 * once per burst of events (`invalidateSoon`).
 */
export function applyCostsSessionsChanged(evt: EventPayload<'sessions.changed'>): Promise<void> {
  return invalidateSoon({
    predicate: (q) => {
      if (q.queryKey[0] !== 'costs.summary') return false
      const scope = keyInput<'costs.summary'>(q.queryKey).profile
      return scope === undefined || scope === 'all' || scope === evt.profile
    }
  })
}

export function setCostDays(days: number): Promise<void> {
  useCosts.setState({ days })
  return loadCosts()
}

export function setCostDay(day: string | null): Promise<void> {
  if (useCosts.getState().day === day) return Promise.resolve()
  useCosts.setState({ day })
  return loadCosts()
}

export interface TokenRow {
  day: string
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  reasoning: number
  /** Exact cost that day in micro-dollars (summed before rounding), null when the day has no priced spend. */
  micros: number | null
  unpriced: boolean
}

/**
 * tokensByDay + byDay → one row per day (all profiles in scope), days ascending. tokensByDay covers the whole
 * period (the tokens chart keeps every day to click on) while byDay, like every money figure, covers only the
 * chosen day: with `day`, only that day's row, so a table of these rows and its total agree with the page.
 */
export function tokenRows(summary: CostSummary, day: string | null = null): TokenRow[] {
  const rows = new Map<string, TokenRow>()
  const row = (day: string) => {
    let r = rows.get(day)
    if (!r) {
      r = { day, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, micros: null, unpriced: false }
      rows.set(day, r)
    }
    return r
  }
  for (const d of summary.tokensByDay ?? []) {
    const r = row(d.day)
    r.input += d.tokens.input
    r.output += d.tokens.output
    r.cacheRead += d.tokens.cacheRead
    r.cacheWrite += d.tokens.cacheWrite
    r.reasoning += d.tokens.reasoning
  }
  for (const d of summary.byDay) {
    const r = row(d.day)
    r.micros = (r.micros ?? 0) + usdToMicros(d.usd)
    r.unpriced ||= d.unpriced
  }
  return [...rows.values()].filter((r) => !day || r.day === day).sort((a, b) => a.day.localeCompare(b.day))
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
