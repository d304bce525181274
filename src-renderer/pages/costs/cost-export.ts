/** The Costs page's current view as CSV (one row per profile: the rows sum to the page's inclusive total) or JSON (everything). */
import type { CostSummary, Money } from '@shared/contract'
import { usdToMicros } from '@shared/contract/money'
import { csvText } from '../../lib/csv'

const usd = (m: Money) => (m.usd == null ? '' : m.usd.toFixed(6))

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
  return csvText([head, ...rows])
}

export function costsJson(
  summary: CostSummary,
  view: { scope: string; days?: number; all?: true; from?: string; to?: string; day?: string }
): string {
  return JSON.stringify({ ...view, exportedAt: new Date().toISOString(), ...summary }, null, 2)
}

/** The one rounding (shared/contract/money.ts): the host sent micro-dollar sums as dollars, so this is exact. */
const toMicros = (usd: number | null): number | null => (usd == null ? null : usdToMicros(usd))

/** "12.065000" from 12065000 micro-dollars: exact, no float formatting. */
const microsToUsd = (micros: number | null): string => {
  if (micros == null) return ''
  const sign = micros < 0 ? '-' : ''
  const a = Math.abs(micros)
  return `${sign}${Math.trunc(a / 1e6)}.${String(a % 1e6).padStart(6, '0')}`
}

const REPORT_HEAD = [
  'kind',
  'day',
  'profile',
  'session_id',
  'title',
  'model',
  'input_tokens',
  'cached_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cost_micros',
  'cost_usd',
  'status'
]

/**
 * The period as a report (what ccusage exports): one row per day and profile, per session (its inclusive cost:
 * own plus children's) and per model, each kind summing to the page's total. Costs are integer micro-dollars and
 * the dollars written from them; `status` says when a row leaves out unpriced usage ("partial", "unpriced").
 * Needs `topSessions` with every session (`costs.summary` with `allSessions`).
 */
export function costReportCsv(summary: CostSummary): string {
  const tokens = new Map(summary.tokensByDay.map((t) => [`${t.day}\u0000${t.profile}`, t.tokens]))
  const rows: Array<Array<string | number>> = []
  for (const d of summary.byDay) {
    const t = tokens.get(`${d.day}\u0000${d.profile}`)
    const m = toMicros(d.usd)
    rows.push([
      'day',
      d.day,
      d.profile,
      '',
      '',
      '',
      t?.input ?? '',
      t?.cacheRead ?? '',
      t?.output ?? '',
      t?.reasoning ?? '',
      m ?? '',
      microsToUsd(m),
      d.unpriced ? 'partial' : 'complete'
    ])
  }
  for (const s of summary.topSessions) {
    const m = toMicros(s.inclusive.usd)
    rows.push([
      'session',
      '',
      s.profile,
      s.sessionId,
      s.title ?? '',
      '',
      '',
      '',
      '',
      '',
      m ?? '',
      microsToUsd(m),
      s.inclusive.status
    ])
  }
  for (const b of summary.byModel) {
    const m = toMicros(b.cost.usd)
    rows.push([
      'model',
      '',
      '',
      '',
      '',
      b.model,
      b.tokens.input,
      b.tokens.cacheRead,
      b.tokens.output,
      b.tokens.reasoning,
      m ?? '',
      microsToUsd(m),
      b.cost.status
    ])
  }
  return csvText([REPORT_HEAD, ...rows])
}
