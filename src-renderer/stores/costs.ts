import { create } from 'zustand'
import { useShallow } from 'zustand/react/shallow'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { CostSummary, EventPayload } from '@shared/contract'
import { usdToMicros } from '@shared/contract/money'
import { errorMessage } from '../lib/format'
import { useApp } from './app'
import { invalidateSoon, keyInput, queryClient, requestQuery, settled } from './server'
import { bucketStart, type Bucket } from '../lib/buckets'

/** The Costs page's view (period and day filter); the summary itself is a query keyed by scope + view. */
interface CostsStore {
  /** The last N days, unless `all` or a from–to period is chosen. */
  days: number
  /** All of the history, however old. */
  all: boolean
  /** A period of local days (YYYY-MM-DD, both included; either end may be open), in place of `days`. */
  from: string | null
  to: string | null
  /** Only this local day (YYYY-MM-DD), after a click on a chart bar; null = the whole period. */
  day: string | null
}

const initial = (): CostsStore => ({ days: 30, all: false, from: null, to: null, day: null })
export const useCosts = create<CostsStore>()(() => initial())
export const DAY_CHOICES = [7, 30, 90, 365] as const

/** The view's period as the request names it: all of it, a from–to period, or the last N days. */
export function periodInput(v: Pick<CostsStore, 'days' | 'all' | 'from' | 'to'>): {
  days?: number
  all?: true
  from?: string
  to?: string
} {
  if (v.all) return { all: true }
  if (v.from || v.to) return { ...(v.from ? { from: v.from } : {}), ...(v.to ? { to: v.to } : {}) }
  return { days: v.days }
}

/** The period in words (the Sessions card, file names read their own). */
export function periodLabel(v: Pick<CostsStore, 'days' | 'all' | 'from' | 'to'>): string {
  if (v.all) return 'all time'
  if (v.from || v.to) return `${v.from ?? 'the start'} to ${v.to ?? 'today'}`
  return `last ${v.days} days`
}

/** The period in a file name: `30d`, `all`, `2024-01-01_2024-12-31`. */
export function periodSlug(v: Pick<CostsStore, 'days' | 'all' | 'from' | 'to'>): string {
  if (v.all) return 'all'
  if (v.from || v.to) return `${v.from ?? 'start'}_${v.to ?? 'today'}`
  return `${v.days}d`
}

const costsQuery = (scope: string, v: CostsStore) =>
  requestQuery(
    'costs.summary',
    { profile: scope, ...periodInput(v), ...(v.day ? { day: v.day } : {}) },
    'Loading costs'
  )

const currentCostsQuery = () => costsQuery(useApp.getState().scope, useCosts.getState())

/** The summary for the current scope and view; the previous range stays on screen while the next one loads. */
export function useCostSummary(): CostsStore & {
  summary: CostSummary | null
  loading: boolean
  error: string | null
} {
  const scope = useApp((s) => s.scope)
  const view = useCosts(useShallow((s) => ({ days: s.days, all: s.all, from: s.from, to: s.to, day: s.day })))
  const q = useQuery({ ...costsQuery(scope, view), placeholderData: keepPreviousData })
  return { ...view, summary: q.data ?? null, loading: q.isFetching, error: q.error ? errorMessage(q.error) : null }
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
  useCosts.setState({ days, all: false, from: null, to: null })
  return loadCosts()
}

/** All of the history, however old. */
export function setCostAll(): Promise<void> {
  useCosts.setState({ all: true, from: null, to: null, day: null })
  return loadCosts()
}

/** A period of local days, both ends included (either may be open); a day filter outside it is dropped. */
export function setCostRange(from: string | null, to: string | null): Promise<void> {
  const day = useCosts.getState().day
  const keep = day && (!from || day >= from) && (!to || day <= to) ? day : null
  useCosts.setState({ all: false, from, to, day: keep })
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
export function tokenRows(summary: CostSummary, day: string | null = null, bucket: Bucket = 'day'): TokenRow[] {
  const rows = new Map<string, TokenRow>()
  const row = (day: string) => {
    let r = rows.get(day)
    if (!r) {
      r = { day, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, micros: null, unpriced: false }
      rows.set(day, r)
    }
    return r
  }
  const at = (d: string) => bucketStart(d, bucket)
  for (const d of summary.tokensByDay ?? []) {
    if (day && d.day !== day) continue
    const r = row(at(d.day))
    r.input += d.tokens.input
    r.output += d.tokens.output
    r.cacheRead += d.tokens.cacheRead
    r.cacheWrite += d.tokens.cacheWrite
    r.reasoning += d.tokens.reasoning
  }
  for (const d of summary.byDay) {
    if (day && d.day !== day) continue
    const r = row(at(d.day))
    r.micros = (r.micros ?? 0) + usdToMicros(d.usd)
    r.unpriced ||= d.unpriced
  }
  return [...rows.values()].sort((a, b) => a.day.localeCompare(b.day))
}

export interface ChartRow {
  day: string
  [profile: string]: number | string
}

/**
 * byDay rows → one row per day (or per week / month: `bucket`, named by its first day) with a column per profile
 * (recharts stacked bars), ascending; `unpricedDays` are the buckets holding unpriced usage.
 */
export function chartRows(
  summary: CostSummary,
  bucket: Bucket = 'day'
): { rows: ChartRow[]; profiles: string[]; unpricedDays: string[] } {
  const byDay = new Map<string, ChartRow>()
  const profiles = new Set<string>()
  const unpriced = new Set<string>()
  for (const d of summary.byDay) {
    profiles.add(d.profile)
    const key = bucketStart(d.day, bucket)
    if (d.unpriced) unpriced.add(key)
    const row = byDay.get(key) ?? { day: key }
    row[d.profile] = Number(row[d.profile] ?? 0) + (Number.isFinite(d.usd) ? d.usd : 0)
    byDay.set(key, row)
  }
  const names = [...profiles].sort()
  const rows = [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day))
  for (const r of rows) for (const p of names) r[p] ??= 0
  return { rows, profiles: names, unpricedDays: [...unpriced].sort() }
}
