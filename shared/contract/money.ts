/**
 * The money rules (ARCHITECTURE invariant 5), in one place for every layer — the host's cost read models, the
 * exports (CSV, report) and the renderer: unpriced usage is never $0; a total is `complete` only when every part is
 * priced; some unpriced parts make it `partial`; all unpriced gives `usd: null`. Every sum runs on integer
 * micro-dollars (`Micros`, a field named `micros`), so totals agree to the micro-dollar however they are grouped;
 * the contract carries dollars (`Money.usd`).
 */
import type { CostStatus, Money } from './common'

/** An amount in integer micro-dollars (1 USD = 1_000_000) with its Money status: what every sum runs on. */
export interface Micros {
  micros: number | null
  status: CostStatus
  complete: boolean
}

/** Dollars → integer micro-dollars: the one rounding every layer applies (a micro-dollar sum sent as dollars comes back exact). */
export const usdToMicros = (usd: number): number => Math.round(usd * 1e6)
export const toMicros = (m: Money): Micros => ({
  micros: m.usd === null ? null : usdToMicros(m.usd),
  status: m.status,
  complete: m.complete
})
export const fromMicros = (m: Micros): Money => ({
  usd: m.micros === null ? null : m.micros / 1e6,
  status: m.status,
  complete: m.complete
})

export const NO_COST: Money = { usd: 0, status: 'none', complete: true }
export const UNPRICED: Money = { usd: null, status: 'unpriced', complete: false }

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/**
 * The cost_status of usage no price was found for: upstream writes `unknown` (its amount columns then hold 0.0, not
 * a price), Caduceus before 0.x wrote `unpriced`.
 */
export const isUnpricedStatus = (s: unknown): boolean => s === 'unknown' || s === 'unpriced'

/** Money from upstream cost columns (estimated/actual/cost_status); `usage` says whether anything was consumed. */
export function moneyFromColumns(estimated: unknown, actual: unknown, costStatus: unknown, usage: boolean): Money {
  const est = finite(estimated)
  const act = finite(actual)
  const priced = est === null && act === null ? null : (est ?? 0) + (act ?? 0)
  if (costStatus === 'partial') return { usd: priced, status: 'partial', complete: false }
  // Upstream's session row keeps its latest call's status: priced calls before an unpriced one leave an amount.
  if (isUnpricedStatus(costStatus)) {
    if (priced) return { usd: priced, status: 'partial', complete: false }
    return usage ? { ...UNPRICED } : { ...NO_COST }
  }
  // An upstream 0.0 actual next to a real estimate is "not billed", not "billed at $0".
  if (act !== null && (act > 0 || est === null))
    return { usd: priced, status: est ? 'estimated' : 'billed', complete: true }
  if (est !== null) return { usd: est, status: 'estimated', complete: true }
  if (usage) return { usd: null, status: 'unpriced', complete: false }
  return { usd: 0, status: 'none', complete: true }
}

/** The one summing rule: parts with no usage do not count; any unpriced or partial part makes the sum partial. */
function sumMicros(parts: Micros[]): Micros {
  const counted = parts.filter((p) => p.status !== 'none')
  if (counted.length === 0) return { micros: 0, status: 'none', complete: true }
  const priced = counted.filter((p) => p.micros !== null)
  if (priced.length === 0) return { micros: null, status: 'unpriced', complete: false }
  const micros = priced.reduce((a, p) => a + (p.micros as number), 0)
  if (counted.some((p) => !p.complete || p.micros === null)) return { micros, status: 'partial', complete: false }
  return { micros, status: counted.every((p) => p.status === 'billed') ? 'billed' : 'estimated', complete: true }
}

/** Dollar amounts summed by the same rule, exactly (each part to micro-dollars, added as integers, converted once). */
export const sumMoney = (parts: Money[]): Money => fromMicros(sumMicros(parts.map(toMicros)))

/** Micro-dollar parts → dollars; one part keeps its own status (a lone "partial, amount unknown" stays partial). */
export const moneyFromMicros = (parts: Micros[]): Money => fromMicros(parts.length === 1 ? parts[0]! : sumMicros(parts))

/** A ledger row's cost: a number is an estimate; null/missing with real usage is unpriced. */
export function moneyFromLedger(costUsd: unknown, used: boolean): Money {
  const c = finite(costUsd)
  if (c === null) return used ? UNPRICED : NO_COST
  return { usd: c, status: 'estimated', complete: true }
}

/** How the agent's accounting prices one turn (the cost columns' `cost_status` without `billed`/`none`). */
export type TurnCostStatus = 'estimated' | 'partial' | 'unpriced'

/** A finished turn's cost: no priced call with API calls made is unpriced; no API calls at all costs nothing. */
export function moneyFromTurn(
  t: { costUsd: number | null; costStatus: TurnCostStatus; apiCalls: number } | null
): Money {
  if (!t || t.costUsd === null) return t && t.apiCalls > 0 ? UNPRICED : NO_COST
  return { usd: t.costUsd, status: t.costStatus, complete: t.costStatus === 'estimated' }
}
