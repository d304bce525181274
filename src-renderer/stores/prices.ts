/**
 * Amounts are priced when they are read (the user's prices apply to usage upstream left unpriced), so new prices
 * make every cached amount stale: the lists of sessions, a session's usage and cost split, subagents, the Costs page.
 */
import { queryClient, invalidateSoon } from './server'
import { isRowsKey } from './sessions'

/** Reads whose answer carries an amount priced at read time. */
const PRICED = new Set(['sessions.get', 'costs.session', 'costs.summary', 'subagents.list'])

/**
 * `prices.changed`: a session list nobody shows is dropped, so it is read from its first page when shown again (the
 * live merge would re-read only its head, leaving older rows at the old prices); every other priced read goes
 * stale, and the ones on screen — the shown list included, from its first page — are read again.
 */
export function applyPricesChanged(): Promise<void> {
  queryClient.removeQueries({ type: 'inactive', predicate: (q) => isRowsKey(q.queryKey) })
  return invalidateSoon({
    predicate: (q) => isRowsKey(q.queryKey) || PRICED.has(String(q.queryKey[0]))
  })
}
