/** What the Costs charts share: a day axis, a value axis and a themed tooltip (colours follow the CSS theme). */

/** "2026-11-03" → "Nov 3" (the axis has no room for ISO dates). */
export function shortDay(day: string): string {
  const d = new Date(`${day}T12:00:00`)
  return Number.isNaN(d.getTime()) ? day : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
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
