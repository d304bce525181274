/**
 * The money rules (ARCHITECTURE invariant 5), in one place for every layer: unpriced usage is never $0; a total
 * is `complete` only when every part is priced; some unpriced parts make it `partial`; all unpriced gives
 * `usd: null`. Pure functions over the contract's `Money`.
 */
import type { Money } from './common'

export const NO_COST: Money = { usd: 0, status: 'none', complete: true }
export const UNPRICED: Money = { usd: null, status: 'unpriced', complete: false }

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** Money from upstream cost columns (estimated/actual/cost_status); `usage` says whether anything was consumed. */
export function moneyFromColumns(estimated: unknown, actual: unknown, costStatus: unknown, usage: boolean): Money {
  const est = finite(estimated)
  const act = finite(actual)
  const priced = est === null && act === null ? null : (est ?? 0) + (act ?? 0)
  if (costStatus === 'partial') return { usd: priced, status: 'partial', complete: false }
  // An upstream 0.0 actual next to a real estimate is "not billed", not "billed at $0".
  if (act !== null && (act > 0 || est === null))
    return { usd: priced, status: est ? 'estimated' : 'billed', complete: true }
  if (est !== null) return { usd: est, status: 'estimated', complete: true }
  if (usage) return { usd: null, status: 'unpriced', complete: false }
  return { usd: 0, status: 'none', complete: true }
}

export function sumMoney(parts: Money[]): Money {
  const counted = parts.filter((p) => p.status !== 'none')
  if (counted.length === 0) return NO_COST
  const priced = counted.filter((p) => p.usd !== null)
  if (priced.length === 0) return UNPRICED
  const usd = priced.reduce((a, p) => a + (p.usd as number), 0)
  if (counted.some((p) => !p.complete || p.usd === null)) return { usd, status: 'partial', complete: false }
  return { usd, status: counted.every((p) => p.status === 'billed') ? 'billed' : 'estimated', complete: true }
}

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
