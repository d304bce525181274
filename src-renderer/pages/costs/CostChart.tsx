import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { CostSummary } from '@shared/contract'
import { chartRows, setCostDay, setCostRange } from '../../stores/costs'
import { bucketEnd, bucketLabel, type Bucket } from '../../lib/buckets'
import { formatUsd } from '../../lib/format'
import { setScope } from '../../stores/app'
import { axisUsd, dayAxis, tooltipStyle, unpricedNote, valueAxis } from './chart-style'

const COLORS = ['var(--c1)', 'var(--c2)', 'var(--c3)', 'var(--c4)', 'var(--c5)', 'var(--c6)']

/**
 * Spend per day (per week or month over a long period: `bucket`) stacked by profile; bars with unpriced usage are
 * flagged in the tooltip and under the chart.
 */
export function CostChart({ summary, bucket = 'day' }: { summary: CostSummary; bucket?: Bucket }) {
  const { rows, profiles, unpricedDays } = chartRows(summary, bucket)
  const label = (start: string) => bucketLabel(start, bucket)
  if (!rows.length)
    return (
      <div className="empty chart" data-testid="costs-chart-empty">
        No usage in this period.
      </div>
    )
  const unpriced = new Set(unpricedDays)
  return (
    <div className="chart" data-testid="costs-chart">
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis {...dayAxis} tickFormatter={label} />
          <YAxis {...valueAxis} tickFormatter={axisUsd} />
          <Tooltip
            formatter={(v) => formatUsd(Number(v))}
            labelFormatter={(day) =>
              `${bucket === 'day' ? '' : `${bucket === 'week' ? 'Week of ' : ''}`}${label(String(day))}${
                unpriced.has(String(day)) ? ' · includes unpriced usage' : ''
              }`
            }
            {...tooltipStyle}
          />
          {profiles.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
          {/* a click on a bar filters the page to that bar's profile and day */}
          {profiles.map((p, i) => (
            <Bar
              key={p}
              dataKey={p}
              stackId="usd"
              fill={COLORS[i % COLORS.length]}
              isAnimationActive={false}
              cursor="pointer"
              onClick={(_, i) => {
                setScope(p)
                const start = rows[i]?.day
                // a week's or a month's bar opens its days; a day's shows that day only
                if (start) void (bucket === 'day' ? setCostDay(start) : setCostRange(start, bucketEnd(start, bucket)))
              }}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
      <p className="muted small chart-note">
        {bucket === 'day'
          ? `Click a bar to show only that day${profiles.length > 1 ? ' and profile' : ''}.`
          : `Each bar is a ${bucket}; click one to show its days${profiles.length > 1 ? ' for that profile' : ''}.`}
      </p>
      {unpricedDays.length > 0 && (
        <p className="muted small chart-note" data-testid="costs-unpriced-days">
          <span className="badge badge-warn money-q">unpriced</span>
          {unpricedNote(unpricedDays.length, rows.length, bucket)}
        </p>
      )}
    </div>
  )
}
