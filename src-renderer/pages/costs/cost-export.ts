/** The Costs page's current view as CSV (one row per profile: the rows sum to the page's inclusive total) or JSON (everything). */
import type { CostSummary, Money } from '@shared/contract'

const usd = (m: Money) => (m.usd == null ? '' : m.usd.toFixed(6))
const csvCell = (v: string | number) => {
  const s = String(v)
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function costsCsv(summary: CostSummary): string {
  const head = ['profile', 'sessions', 'own_usd', 'children_usd', 'inclusive_usd', 'status', 'complete']
  const rows = summary.profiles.map((p) => [
    p.profile,
    p.sessions,
    usd(p.own),
    usd(p.children),
    usd(p.inclusive),
    p.inclusive.status,
    p.inclusive.complete ? 'yes' : 'no'
  ])
  return [head, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n'
}

export function costsJson(summary: CostSummary, view: { scope: string; days: number; day?: string }): string {
  return JSON.stringify({ ...view, exportedAt: new Date().toISOString(), ...summary }, null, 2)
}
