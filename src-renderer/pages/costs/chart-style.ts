/** What the Costs charts share: a day axis, a value axis and a themed tooltip (colours follow the CSS theme). */
import type { Bucket } from '../../lib/buckets'
import { countOf } from '../../lib/format'

/** "2026-11-03" → "Nov 3" (the axis has no room for ISO dates). */
export function shortDay(day: string): string {
  const d = new Date(`${day}T12:00:00`)
  return Number.isNaN(d.getTime()) ? day : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
}

/**
 * Value-axis labels: as many digits as the tick has (up to 4 significant), so neighbouring ticks never read the same:
 * a step of $0.005 labels $0.005 / $0.01 / $0.015, where two decimals showed "$0.01" twice and "$0.00" above zero.
 */
const digits = (v: number) => `${+v.toPrecision(4)}`
export const axisUsd = (v: number) => (v === 0 ? '$0' : v < 0 ? `-$${digits(-v)}` : `$${digits(v)}`)
/** Token counts in k / M, with the same care: 1500 is "1.5k", not a second "2k". */
export const axisCount = (v: number) =>
  v >= 1e6 ? `${digits(v / 1e6)}M` : v >= 1e3 ? `${digits(v / 1e3)}k` : digits(v)

/**
 * The note under a chart some of whose bars leave out unpriced usage, its verb agreeing with the count: "1 of 1 day
 * includes …", "2 of 30 days include …".
 */
export function unpricedNote(unpriced: number, bars: number, bucket: Bucket): string {
  const verb = unpriced === 1 ? 'includes' : 'include'
  return `${unpriced} of ${countOf(bars, bucket)} ${verb} usage with no known price; the bars show only the priced part.`
}

const tick = { fill: 'var(--muted)', fontSize: 11 }

export const dayAxis = {
  dataKey: 'day',
  tickFormatter: shortDay,
  tick,
  tickLine: false,
  axisLine: { stroke: 'var(--border)' },
  minTickGap: 16
} as const

export const valueAxis = { tick, tickLine: false, axisLine: false, width: 52 } as const

export const tooltipStyle = {
  contentStyle: {
    background: 'var(--bg-elev)',
    border: '1px solid var(--border)',
    borderRadius: 6,
    fontSize: 12,
    color: 'var(--fg)'
  },
  labelStyle: { color: 'var(--fg)', fontWeight: 600 },
  itemStyle: { color: 'var(--fg)' },
  cursor: { fill: 'var(--hover)' }
} as const
