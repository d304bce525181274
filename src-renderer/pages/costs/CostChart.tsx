import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { CostSummary } from '@shared/contract'
import { chartRows } from '../../stores/costs'
import { formatUsd } from '../../lib/format'

const COLORS = ['var(--c1)', 'var(--c2)', 'var(--c3)', 'var(--c4)', 'var(--c5)', 'var(--c6)']

/** Daily spend stacked by profile; days with unpriced usage are flagged under the chart. */
export function CostChart({ summary }: { summary: CostSummary }) {
  const { rows, profiles, unpricedDays } = chartRows(summary)
  if (!rows.length) return <div className="empty">No usage in this period.</div>
  return (
    <div className="chart" data-testid="costs-chart">
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis dataKey="day" tick={{ fill: 'var(--muted)', fontSize: 11 }} tickLine={false} axisLine={{ stroke: 'var(--border)' }} />
          <YAxis tickFormatter={(v: number) => `$${v}`} tick={{ fill: 'var(--muted)', fontSize: 11 }} tickLine={false} axisLine={false} width={48} />
          <Tooltip formatter={(v) => formatUsd(Number(v))} contentStyle={{ background: 'var(--bg-elev)', border: '1px solid var(--border)', fontSize: 12 }} cursor={{ fill: 'var(--hover)' }} />
          {profiles.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
          {profiles.map((p, i) => <Bar key={p} dataKey={p} stackId="usd" fill={COLORS[i % COLORS.length]} isAnimationActive={false} />)}
        </BarChart>
      </ResponsiveContainer>
      {unpricedDays.length > 0 && <p className="muted small" data-testid="costs-unpriced-days">Some usage on {unpricedDays.length} day(s) is unpriced and not in the bars.</p>}
    </div>
  )
}
