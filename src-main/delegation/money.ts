/**
 * Money arithmetic for the cost views (ARCHITECTURE invariant 5): a total is `complete` only when every
 * part is priced; some unpriced parts make it `partial`; all unpriced gives `usd: null`.
 */
import type { Money } from '@shared/contract'

export const NO_COST: Money = { usd: 0, status: 'none', complete: true }
export const UNPRICED: Money = { usd: null, status: 'unpriced', complete: false }

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/**
 * Money from upstream cost columns: the store's rule, so a session's status reads the same in the session
 * list and on the Costs page.
 */
export { moneyOf as moneyFromColumns } from '../store'

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
