/**
 * Host close for background delegations, as upstream's shutdown does (`interrupt_all`): every running child is
 * interrupted, so its unit ends 'interrupted' through the usual finalize path (its row and ledger written, its notice
 * left undelivered for the next host), and the units are awaited with a bound before the stores close.
 */
import type { DelegateDeps } from './deps'

/** Returns how many units were still running when `boundMs` passed (their later writes are refused by the store). */
export async function stopBackgroundDelegations(deps: DelegateDeps, boundMs: number): Promise<number> {
  // the live registry and the pool are shared by every profile's deps: one call stops them all
  for (const child of deps.live.list()) deps.live.interrupt(child.subagentId, 'the host is shutting down')
  return deps.pool.settle(boundMs)
}
