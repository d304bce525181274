/** The Costs page's current view as CSV (one row per profile: the rows sum to the page's inclusive total) or JSON (everything). */
import type { CostSummary, Money } from '@shared/contract'

const usd = (m: Money) => (m.usd == null ? '' : m.usd.toFixed(6))
const csvCell = (v: string | number) => {
  const s = String(v)
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function costsCsv(summary: CostSummary): string {
  const head = ['profile', 'sessions', 'own_usd', 'children_usd', 'inclusive_usd', 'status', 'complete']
  const rows = summary.profiles.map((p) => [p.profile, p.sessions, usd(p.own), usd(p.children), usd(p.inclusive), p.inclusive.status, p.inclusive.complete ? 'yes' : 'no'])
  return [head, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n'
}

export function costsJson(summary: CostSummary, view: { scope: string; days: number }): string {
  return JSON.stringify({ scope: view.scope, days: view.days, exportedAt: new Date().toISOString(), ...summary }, null, 2)
}

/** Save text as a file through the browser's download (works in Electron and a headless tab alike). */
export function download(filename: string, mime: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mime }))
  const a = document.createElement('a')
  a.href = url
  a.download = filename
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}
