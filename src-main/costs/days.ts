/**
 * Which local day each micro-dollar of a cost piece belongs to. A session's per-day rows say what was spent each
 * day and its per-route rows what was spent on each model (and between which times), but nothing says "model X on
 * day D"; the split is fitted to both (the most constrained route first), then rounded by largest remainder so a
 * piece's day shares add up to the piece exactly.
 */
import type { Tokens } from '@shared/contract'
import type { Micros } from '@shared/contract/money'
import type { SessionStore } from '../store'

/** A per-day usage row as the store's cost repository returns it. */
export type DailyRow = ReturnType<ReturnType<SessionStore['costRepo']>['dailyRows']>[number]

export interface Slice {
  day: string
  /** Micro-dollars on that day (null when the piece is unpriced). */
  micros: number | null
  /** Fraction of the piece's tokens on that day. */
  share: number
}

export interface Piece {
  model: string
  money: Micros
  custom: boolean
  tokens: Tokens
  slices: Slice[]
}

export type Draft = Omit<Piece, 'slices'> & {
  /** first_seen..last_seen of the route, when known. */
  span: [number, number] | null
  /** Fit to upstream's daily cost (a piece upstream priced) rather than to tokens. */
  byCost: boolean
}

/** Split an integer over weights so the parts add up to it exactly (largest remainder); no weight = evenly. */
export function allocate(total: number, weights: number[]): number[] {
  if (!weights.length) return []
  const w = weights.map((x) => (Number.isFinite(x) && x > 0 ? x : 0))
  const sum = w.reduce((a, b) => a + b, 0)
  const eff = sum > 0 ? w : w.map(() => 1)
  const effSum = sum > 0 ? sum : w.length
  const sign = total < 0 ? -1 : 1
  const abs = Math.abs(total)
  const raw = eff.map((x) => (abs * x) / effSum)
  const out = raw.map(Math.floor)
  let rest = abs - out.reduce((a, b) => a + b, 0)
  const order = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1])
  for (const [, i] of order) {
    if (rest <= 0) break
    out[i]! += 1
    rest--
  }
  return out.map((x) => x * sign)
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
const dayStart = (day: string) => new Date(`${day}T00:00:00`).getTime() / 1000
const tokenSum = (t: Tokens) => t.input + t.output + t.cacheRead + t.cacheWrite
const dayTokens = (d: DailyRow) => n(d.inputTokens) + n(d.outputTokens) + n(d.cacheReadTokens) + n(d.cacheWriteTokens)

/**
 * Weights of each piece over its candidate days: the most constrained piece (fewest days) takes its share of each
 * day's remaining total first, so a route used on one day claims that day before a route that spans several.
 */
function fit(rows: Array<{ total: number; cols: number[] }>, colTotals: number[]): number[][] {
  const left = colTotals.map((x) => Math.max(0, x))
  const w: number[][] = rows.map(() => [])
  const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.cols.length - rows[b]!.cols.length || a - b)
  for (const i of order) {
    const r = rows[i]!
    const cap = r.cols.map((c) => left[c]!)
    const capSum = cap.reduce((a, b) => a + b, 0)
    w[i] = capSum > 0 ? cap.map((x) => (x / capSum) * Math.max(0, r.total)) : r.cols.map(() => 0)
    r.cols.forEach((c, k) => (left[c] = Math.max(0, left[c]! - w[i]![k]!)))
  }
  return w
}

/** Give each draft its day slices over a session's per-day rows (or the fallback day when it has none). */
export function spreadOverDays(drafts: Draft[], days: DailyRow[], fallbackDay: string): Piece[] {
  if (!days.length)
    return drafts.map(({ span: _s, byCost: _b, ...p }) => ({
      ...p,
      slices: [{ day: fallbackDay, micros: p.money.micros, share: 1 }]
    }))
  const cols = drafts.map((d) => {
    const span = d.span
    const inSpan = span
      ? days.flatMap((x, i) => (dayStart(x.day) <= span[1] && dayStart(x.day) + 86400 > span[0] ? [i] : []))
      : []
    return inSpan.length ? inSpan : days.map((_, i) => i)
  })
  const costFit = fit(
    drafts.map((d, i) => ({ total: d.byCost ? (d.money.micros ?? 0) : 0, cols: cols[i]! })),
    days.map((d) => (n(d.estimatedCostUsd) + n(d.actualCostUsd)) * 1e6)
  )
  const tokenFit = fit(
    drafts.map((d, i) => ({ total: tokenSum(d.tokens), cols: cols[i]! })),
    days.map(dayTokens)
  )
  return drafts.map(({ span: _s, byCost, ...p }, i) => {
    const c = cols[i]!
    const weights = byCost && costFit[i]!.some((x) => x > 0) ? costFit[i]! : tokenFit[i]!
    const micros = p.money.micros === null ? null : allocate(p.money.micros, weights)
    const shares = allocate(1_000_000, tokenFit[i]!.some((x) => x > 0) ? tokenFit[i]! : weights)
    const slices = c
      .map((di, k) => ({ day: days[di]!.day, micros: micros ? micros[k]! : null, share: shares[k]! / 1_000_000 }))
      .filter((s) => s.micros !== 0 || s.share > 0)
    return { ...p, slices: slices.length ? slices : [{ day: days[c[0]!]!.day, micros: p.money.micros, share: 1 }] }
  })
}
