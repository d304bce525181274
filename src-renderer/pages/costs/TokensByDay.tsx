import { Bar, BarChart, CartesianGrid, Cell, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { CostSummary } from '@shared/contract'
import { ZERO_TOKENS } from '@shared/contract/tokens'
import { setCostDay, setCostRange, tokenRows, type TokenRow } from '../../stores/costs'
import { bucketEnd, bucketLabel, type Bucket } from '../../lib/buckets'
import { formatCount, formatUsd } from '../../lib/format'
import { axisCount, dayAxis, tooltipStyle, valueAxis } from './chart-style'

const KINDS = [
  { key: 'input', label: 'Input', color: 'var(--c1)' },
  { key: 'output', label: 'Output', color: 'var(--c2)' },
  { key: 'cacheRead', label: 'Cache read', color: 'var(--c3)' },
  { key: 'cacheWrite', label: 'Cache write', color: 'var(--c4)' },
  { key: 'reasoning', label: 'Reasoning', color: 'var(--c5)' }
] as const

const cost = (r: { micros: number | null }) => (r.micros == null ? '—' : formatUsd(r.micros / 1e6))

/**
 * Tokens and cache per day — per week or month over a long period (`bucket`) — for all profiles in scope, children's
 * sessions included; a click on a day's bar filters the page to that day, on a week's or month's opens its days.
 */
export function TokensByDay({
  summary,
  day,
  bucket = 'day'
}: {
  summary: CostSummary
  day: string | null
  bucket?: Bucket
}) {
  // the chart keeps the whole period (the chosen day highlighted, the others to click on); the table is the view
  const bars = tokenRows(summary, null, bucket)
  const rows = tokenRows(summary, day, bucket)
  const label = (start: string) => bucketLabel(start, bucket)
  const noun = bucket === 'day' ? 'day' : bucket
  /** A day's bar or row toggles the day filter; a week's or month's opens that period. */
  const open = (start: string) =>
    void (bucket === 'day' ? setCostDay(start === day ? null : start) : setCostRange(start, bucketEnd(start, bucket)))
  if (!bars.some((r) => r.input + r.output + r.cacheRead + r.cacheWrite + r.reasoning > 0)) return null
  const total = rows.reduce(
    (t, r) => {
      for (const k of KINDS) t[k.key] += r[k.key]
      if (r.micros != null) t.micros = (t.micros ?? 0) + r.micros
      return t
    },
    { ...ZERO_TOKENS(), micros: null as number | null }
  )
  const pick = (i: number) => {
    const r = bars[i]
    if (r) open(r.day)
  }
  return (
    <section className="panel" data-testid="costs-tokens">
      <h2 className="section-title">Tokens and cache per {noun}</h2>
      <div className="chart" data-testid="costs-tokens-chart">
        <ResponsiveContainer width="100%" height={200}>
          <BarChart data={bars} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
            <XAxis {...dayAxis} tickFormatter={label} />
            <YAxis {...valueAxis} tickFormatter={axisCount} />
            <Tooltip
              formatter={(v, name) => [formatCount(Number(v)), name]}
              labelFormatter={(d) => `${bucket === 'week' ? 'Week of ' : ''}${label(String(d))}`}
              {...tooltipStyle}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {KINDS.map((k) => (
              <Bar
                key={k.key}
                dataKey={k.key}
                name={k.label}
                stackId="tokens"
                fill={k.color}
                isAnimationActive={false}
                cursor="pointer"
                onClick={(_, i) => pick(i)}
              >
                {bars.map((r) => (
                  <Cell key={r.day} fillOpacity={day && r.day !== day ? 0.35 : 1} />
                ))}
              </Bar>
            ))}
          </BarChart>
        </ResponsiveContainer>
        <p className="muted small chart-note">
          {bucket === 'day'
            ? 'Click a bar (or a day below) to show only that day.'
            : `Each bar is a ${bucket}; click one (or a row below) to show its days.`}
        </p>
      </div>
      <details className="day-table">
        <summary>Per-{noun} table</summary>
        <table className="table compact" data-testid="costs-by-day">
          <thead>
            <tr>
              <th>{bucket === 'day' ? 'Day' : bucket === 'week' ? 'Week of' : 'Month'}</th>
              {KINDS.map((k) => (
                <th key={k.key} className="num">
                  {k.label}
                </th>
              ))}
              <th className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r: TokenRow) => (
              <tr key={r.day} data-testid="costs-day-row" data-day={r.day} aria-current={r.day === day || undefined}>
                <td>
                  <button
                    className="link"
                    onClick={() => open(r.day)}
                    title={
                      bucket !== 'day'
                        ? `Show this ${bucket}'s days`
                        : r.day === day
                          ? 'Show the whole period'
                          : 'Show only this day'
                    }
                  >
                    {bucket === 'month' ? r.day.slice(0, 7) : r.day}
                  </button>
                </td>
                {KINDS.map((k) => (
                  <td key={k.key} className="num">
                    {formatCount(r[k.key])}
                  </td>
                ))}
                <td className="num" data-testid="costs-day-cost">
                  {cost(r)}
                  {r.unpriced && <span className="badge badge-warn money-q">+ unpriced</span>}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-testid="costs-day-total">
              <th scope="row">Total</th>
              {KINDS.map((k) => (
                <td key={k.key} className="num">
                  {formatCount(total[k.key])}
                </td>
              ))}
              <td className="num" data-testid="costs-day-total-cost">
                {cost(total)}
              </td>
            </tr>
          </tfoot>
        </table>
      </details>
    </section>
  )
}
